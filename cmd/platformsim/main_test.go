package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/platformsim"
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

// TestEnvFileNamesTheBoundAddress: -env writes the overrides for the
// address actually bound (here a free port from -addr 127.0.0.1:0), before
// "serving on" is printed, in a form a shell sources and host config
// loading accepts. It catches a file written for the -addr flag's text (port
// 0), written after the line make demo waits for, or quoted so that the
// url_rewrites' spaces and "=>" split the value.
func TestEnvFileNamesTheBoundAddress(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := filepath.Join(t.TempDir(), "sim.env")
	var out, errb syncBuffer
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"-addr", "127.0.0.1:0", "-data", data, "-quiet", "-env", env}, &out, &errb, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("exited %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(env)
	if err != nil {
		t.Fatalf("the env file is not there once the simulator listens: %v", err)
	}
	root := "http://" + addr
	// What a shell makes of the file: source it and print the variables.
	sh := exec.Command("sh", "-c", `set -a; . "$1"; set +a; env`, "sh", env)
	sh.Env = []string{"PATH=" + os.Getenv("PATH")}
	got, err := sh.Output()
	if err != nil {
		t.Fatalf("sourcing %s: %v\n%s", env, err, b)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(got), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "BESLUITBRON_") {
			vars[k] = v
		}
	}
	want := map[string]string{
		"BESLUITBRON_CONNECTORS__OBV__BASE_URL":     root + "/obv",
		"BESLUITBRON_CONNECTORS__TK__BASE_URL":      root + "/tk/OData/v4/2.0",
		"BESLUITBRON_CONNECTORS__OBK__URL_REWRITES": "https://zoek.officielebekendmakingen.nl => " + root + "/zoek",
		"BESLUITBRON_CONNECTORS__TK__URL_REWRITES":  "https://zoek.officielebekendmakingen.nl => " + root + "/zoek",
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s = %q after sourcing, want %q\n%s", k, vars[k], v, b)
		}
	}
	if n := len(platformsim.EnvOverrides(root)); len(vars) != n {
		t.Errorf("the file sets %d variables, want %d:\n%s", len(vars), n, b)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// TestEnvFileUnwritable: when the env file cannot be written the
// simulator exits 1 without "serving on", rather than serve and leave make
// demo starting BesluitBron against the addresses of demo.toml.
func TestEnvFileUnwritable(t *testing.T) {
	var out, errb bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Were it to serve, the ready hook stops it (exit 0), so the test
	// fails rather than hangs.
	code := serve(ctx, []string{"-addr", "127.0.0.1:0", "-data", data, "-env", filepath.Join(t.TempDir(), "none", "sim.env")}, &out, &errb, func(string) { cancel() })
	if code != 1 || !strings.Contains(errb.String(), "-env") || strings.Contains(out.String(), "serving on") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, no \"serving on\", and an -env error", code, out.String(), errb.String())
	}
}
