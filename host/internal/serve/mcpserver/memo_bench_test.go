package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/obv"
)

// BenchmarkKeptResult is the host's own cost of answering a repeated
// obv_search from a kept result: argument validation, the key, the lookup
// and the MCP result, without the transport.
func BenchmarkKeptResult(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		b.Fatal(err)
	}
	p := obv.Plugin()
	now := time.Now()
	s, err := New(Options{
		Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now, body: body}, Stamp: "v1"}}},
		Memo:      memo.New(32<<20, func() time.Time { return now }),
	})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"query":"begroting","organization":"soest"}`)
	s.Call(context.Background(), &callinfo.Info{Session: "s"}, "obv_search", args)
	for b.Loop() {
		res := s.Call(context.Background(), &callinfo.Info{Session: "s"}, "obv_search", args)
		if res.Meta[MetaCache] != callinfo.Hit {
			b.Fatal(res.Meta)
		}
	}
}
