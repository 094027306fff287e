package host_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// BenchmarkDocumentPage: page 40 of a long document costs what page 1
// costs once its text is kept: neither fetches nor extracts the document
// again. The WebAssembly tk connector reads the simulator's long
// Kamerstuk PDF through a real gate and platform cache (no kept tool
// results, so every call runs the connector); the first read, which
// extracts, is reported beside them.
func BenchmarkDocumentPage(b *testing.B) {
	var doc platformsim.LongDocument
	for _, d := range platformsim.LongDocuments() {
		if d.Platform == "tk" && d.Size == "long" && d.Format == "PDF" {
			doc = d
		}
	}
	if doc.ID == "" {
		b.Fatal("the simulator has no long tk PDF")
	}
	_, simURL := proofSim(b)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	conn, err := wasmrt.Load(ctx, wasmrt.Options{ID: "tk", Wasm: wasmbuild.Bytes(b, "./plugins/tk/cmd"), PoolSize: 1, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	m, _ := conn.Describe(ctx)
	ttl := map[string]time.Duration{}
	for _, c := range m.CacheClasses {
		ttl[c.Name] = time.Duration(c.TTL)
	}
	store, err := cache.Open(cache.Options{Platform: "tk", MaxBytes: 64 << 20, TTL: ttl, Version: "bench", ModuleSHA256: conn.SHA256(), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	var rewrites []fetch.Rewrite
	for _, rw := range platformsim.URLRewrites(simURL)["tk"] {
		from, to, _ := config.SplitRewrite(rw)
		rewrites = append(rewrites, fetch.Rewrite{From: from, To: to})
	}
	gate, err := fetch.New(fetch.Options{Manifest: m, BaseURL: platformsim.BaseURLs(simURL)["tk"], Rewrites: rewrites,
		PrivateNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, Cache: store, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	call := func(n int) time.Duration {
		args, _ := json.Marshal(map[string]any{doc.Arg: doc.ID, "page": n})
		start := time.Now()
		res, err := conn.Call(ctx, connector.CallRequest{Tool: "get_document", Arguments: args}, gate)
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("page %d: %v %s", n, err, res.Text)
		}
		return took
	}
	extract := call(1)
	b.ResetTimer()
	var p1, p40 time.Duration
	for range b.N {
		p1 += call(1)
		p40 += call(40)
	}
	b.StopTimer()
	if kept := store.Stats().Classes[connector.ClassDocument].TextsKept; kept != 1 {
		b.Fatalf("%d texts kept, want 1 extraction", kept)
	}
	b.ReportMetric(float64(extract.Nanoseconds()), "extract-ns")
	b.ReportMetric(float64(p1.Nanoseconds())/float64(b.N), "page1-ns/call")
	b.ReportMetric(float64(p40.Nanoseconds())/float64(b.N), "page40-ns/call")
	b.ReportMetric(float64(p40)/float64(p1), "page40/page1")
	b.ReportMetric(float64(extract)/(float64(p40)/float64(b.N)), "extract/page40")
}
