package host_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/netip"
	"strings"
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

// BenchmarkFindInDocument: a find of a phrase on page 40 of a long
// document whose text is kept, against reading page 40 itself. The find
// reads every kept page (the text is about 65 pages) and folds it, so it
// costs more than one page, but neither fetches nor extracts the
// document: the ratio is what a find costs in pages read. The WebAssembly
// tk connector reads the simulator's long Kamerstuk PDF through a real
// gate and platform cache, as BenchmarkDocumentPage does (no kept tool
// results, so every call runs the connector).
func BenchmarkFindInDocument(b *testing.B) {
	doc := longTKPDF(b)
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
	call := func(args map[string]any) (connector.Document, int, time.Duration) {
		args[doc.Arg] = doc.ID
		raw, _ := json.Marshal(args)
		start := time.Now()
		res, err := conn.Call(ctx, connector.CallRequest{Tool: "get_document", Arguments: raw}, gate)
		took := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %s", raw, err, res.Text)
		}
		var d connector.Document
		if err := json.Unmarshal([]byte(res.Text), &d); err != nil {
			b.Fatal(err)
		}
		return d, len(res.Text), took
	}
	call(map[string]any{"page": 1}) // fetches and extracts; the text is kept
	p40, _, _ := call(map[string]any{"page": 40})
	lines := strings.Split(strings.TrimSpace(p40.Text), "\n")
	phrase := strings.TrimSpace(lines[len(lines)/2])
	if len(phrase) > 60 {
		phrase = phrase[:strings.LastIndexByte(phrase[:60], ' ')]
	}
	find := map[string]any{"find": `"` + phrase + `"`}
	found, size, _ := call(find)
	on40 := false
	for _, p := range found.Find.Pages {
		on40 = on40 || p.Page == 40
	}
	if !on40 {
		b.Fatalf("find %q: %+v, want page 40", phrase, found.Find)
	}
	b.ResetTimer()
	var tFind, t40 time.Duration
	for range b.N {
		_, _, took := call(find)
		tFind += took
		_, _, took = call(map[string]any{"page": 40})
		t40 += took
	}
	b.StopTimer()
	if kept := store.Stats().Classes[connector.ClassDocument].TextsKept; kept != 1 {
		b.Fatalf("%d texts kept, want 1 extraction", kept)
	}
	b.ReportMetric(float64(tFind.Nanoseconds())/float64(b.N), "find-ns/call")
	b.ReportMetric(float64(t40.Nanoseconds())/float64(b.N), "page40-ns/call")
	b.ReportMetric(float64(tFind)/float64(t40), "find/page40")
	b.ReportMetric(float64(size), "find-bytes")
	b.ReportMetric(float64(found.Pages), "pages")
}
