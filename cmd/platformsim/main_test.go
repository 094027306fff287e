package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/syncbuf"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

var data = filepath.Join(wasmbuild.Root(), "testdata")

func TestRunRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"-log", "xml"}, 2, `-log "xml"`},
		{[]string{"-data", data, "-fault", "obv:colour=red"}, 2, `unknown key "colour"`},
		{[]string{"-data", data, "-fault", "mars:hang"}, 2, `unknown platform "mars"`},
		{[]string{"-data", filepath.Join(t.TempDir(), "none")}, 1, "pass -data"},
		{[]string{"stray"}, 2, "unexpected arguments"},
		{[]string{"-data", data, "-addr", "256.0.0.1:1"}, 1, "-addr"},
		{[]string{"-h"}, 0, "usage: platformsim"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}

// syncBuffer collects log lines written while the test reads them.
type syncBuffer = syncbuf.Buffer

func TestServesUntilStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"-addr", "127.0.0.1:0", "-data", data, "-fault", "tk:hang", "-fault", "obk:error_rate=1"}, &out, &errb, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("exited %d: %s", code, errb.String())
	}
	root := "http://" + addr
	for path, want := range map[string]string{
		"/":            root + "/tk/OData/v4/2.0",
		"/_sim/faults": `"hang":true`,
		"/obk/sru?operation=searchRetrieve&version=2.0&query=klimaat": "503",
		"/obv/api/sources": `"soest"`,
	} {
		resp, err := http.Get(root + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: %s, want %q", path, b, want)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"platformsim serving on " + root, `connectors.obv.base_url = "` + root + `/obv"`, "fault tk: {\"hang\":true}"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "platform=obv method=GET path=/obv/api/sources cost=1 status=200") {
		t.Errorf("request log:\n%s", errb.String())
	}
}
