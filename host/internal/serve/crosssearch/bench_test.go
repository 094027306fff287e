package crosssearch

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// BenchmarkFanOut is the search's own overhead over six platforms that
// answer at once: argument checks, six goroutines, translation, decoding
// the connectors' results and encoding the combined one.
func BenchmarkFanOut(b *testing.B) {
	f := newFake()
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	args := json.RawMessage(`{"query":"klimaat","limit":10}`)
	for b.Loop() {
		f.mu.Lock()
		f.calls = f.calls[:0]
		f.mu.Unlock()
		r := s.Handle(context.Background(), &callinfo.Info{Session: "b"}, args)
		if r.IsError {
			b.Fatal(resultText(r))
		}
	}
}
