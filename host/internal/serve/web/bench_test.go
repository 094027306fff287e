package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// BenchmarkPages measures the pages' own cost (parsing, the call
// bookkeeping, templates) with a runner that answers at once.
func BenchmarkPages(b *testing.B) {
	f := &fake{answer: func(tool string, args map[string]any, _ *callinfo.Info) invoke.Answer {
		if tool == "obv_get_document" {
			return ok(map[string]any{"platform": "obv", "id": "d", "title": "T", "format": "markdown", "page": 1, "pages": 4, "text": "## Kop\nTekst.\n\nMeer tekst."})
		}
		return ok(searchAnswer)
	}}
	snap := loadstatus.Snapshot{GeneratedAt: time.Now(), IntervalSeconds: 300, Platforms: []loadstatus.Status{{Platform: "obv", Title: "OpenBesluitvorming", State: loadstatus.Up}}}
	mux := http.NewServeMux()
	web.New(web.Options{Platforms: platforms(), Invoke: f.Invoke, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Status: func() loadstatus.Snapshot { return snap }}).Routes(mux)
	for _, c := range []struct{ name, url string }{
		{"search", "/?q=begroting&p=obv&p=rechtspraak&f.rechtspraak=HR"},
		{"document", "/document?p=obv&id=d&page=2"},
		{"status", "/status?org=soest"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, httptest.NewRequestWithContext(context.Background(), "GET", c.url, nil))
				if rec.Code != 200 {
					b.Fatalf("%s: %d", c.url, rec.Code)
				}
			}
		})
	}
}
