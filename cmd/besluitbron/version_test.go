package main

import (
	"runtime/debug"
	"testing"
)

func TestResolveVersion(t *testing.T) {
	info := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: v}}, true }
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		set  string
		read func() (*debug.BuildInfo, bool)
		want string
	}{
		{"0.1.0", info("v9.9.9"), "0.1.0"}, // the Makefile's wins
		{"dev", info("v0.1.0"), "0.1.0"},   // go install …@v0.1.0
		{"dev", info("v0.0.0-20261205233803-df14796abcde+dirty"), "0.0.0-20261205233803-df14796abcde+dirty"},
		{"dev", info("(devel)"), "dev"}, // go build without VCS stamps
		{"dev", info(""), "dev"},
		{"dev", none, "dev"},
	} {
		if got := resolveVersion(c.set, c.read); got != c.want {
			t.Errorf("resolveVersion(%q) = %q, want %q", c.set, got, c.want)
		}
	}
}
