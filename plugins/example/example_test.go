package example_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func TestStats(t *testing.T) {
	sdktest.CheckManifest(t, example.Plugin())
	h := sdktest.NewHost(t).Handle("https://openbesluitvorming.nl/api/stats", 200, "../../testdata/obv/obv-stats.json")
	var s example.Stats
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, "stats", `{}`), &s)
	if s.Documents != 3045470 || s.Organizations != 124 {
		t.Errorf("stats = %+v", s)
	}
	if r := h.Requests()[0]; r.Service != "api" || r.CacheClass != "stats" || r.Cost != 1 {
		t.Errorf("request = %+v", r)
	}
}

func TestStatsErrors(t *testing.T) {
	for _, c := range []struct {
		status    int
		body, arg string
		want      string
	}{
		{200, `{"documentCount": 1}`, `{}`, "lacks documentCount or organizationCount"},
		{200, `<html>`, `{}`, "not the expected JSON"},
		{503, `{"error":"onderhoud"}`, `{}`, "HTTP 503: onderhoud"},
		{200, `{}`, `{"x":1}`, `"x"`},
	} {
		h := sdktest.NewHost(t).HandleBody("https://openbesluitvorming.nl/api/stats", c.status, []byte(c.body))
		res := sdktest.Call(t, example.Plugin(), h, "stats", c.arg)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%d %s: got %+v, want %q", c.status, c.body, res, c.want)
		}
	}
}
