package inbound

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"
)

func benchLimiter(b *testing.B) *Limits {
	huge := Limit{RPS: 1e12, Burst: 1 << 40}
	return mustNew(b, Options{Process: huge, Connector: huge, Session: huge, IP: huge, Connectors: []string{"obv"}})
}

// The limit check of one request on a known session (the common case).
func BenchmarkAllowAtSession(b *testing.B) {
	l := benchLimiter(b)
	l.SessionStarted(t0, "/mcp/unified/v1", "session-1")
	r := Request{Address: "/mcp/unified/v1", Session: "session-1", IP: ip("192.0.2.1")}
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Microsecond)
		if !l.AllowAt(now, r).OK {
			b.Fatal("refused")
		}
	}
}

// A request from a client address seen before, without a session.
func BenchmarkAllowAtIP(b *testing.B) {
	l := benchLimiter(b)
	r := Request{Address: "/mcp/unified/v1", IP: ip("192.0.2.1")}
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Microsecond)
		l.AllowAt(now, r)
	}
}

// A refused request: the cheapest path, as a flood meets it.
func BenchmarkAllowAtRefused(b *testing.B) {
	l := mustNew(b, Options{Process: Limit{RPS: 1e-3, Burst: 1}, Connector: Limit{RPS: 1, Burst: 1}, Session: Limit{RPS: 1, Burst: 1}, IP: Limit{RPS: 1, Burst: 1}})
	l.AllowAt(t0, Request{})
	r := Request{Address: "/mcp/unified/v1", Session: "invented", IP: ip("192.0.2.1")}
	b.ReportAllocs()
	for b.Loop() {
		if l.AllowAt(t0, r).OK {
			b.Fatal("admitted")
		}
	}
}

// Every request from a new address (the flood case, at the cap).
func BenchmarkAllowAtNewIPs(b *testing.B) {
	l := benchLimiter(b)
	now := t0
	var i uint32
	b.ReportAllocs()
	for b.Loop() {
		i++
		now = now.Add(time.Microsecond)
		l.AllowAt(now, Request{IP: netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})})
	}
}

// All cores on one Limits: the lock is shared by design (the process
// bucket is one).
func BenchmarkAllowAtParallel(b *testing.B) {
	l := benchLimiter(b)
	for i := range 64 {
		l.SessionStarted(t0, "/mcp/unified/v1", "s"+string(rune('A'+i)))
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := Request{Address: "/mcp/unified/v1", Session: "sA", IP: ip("192.0.2.1")}
		for pb.Next() {
			l.AllowAt(time.Now(), r)
		}
	})
}

// The whole Guard in front of a trivial handler, limits on and off: the
// difference is what the limits cost per HTTP request, reading a
// tools/call's body to find its connector included.
func BenchmarkGuard(b *testing.B) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"obv_search","arguments":{"query":"woningbouw","organization":"soest","limit":20}}}`
	for _, on := range []bool{false, true} {
		name := "off"
		o := GuardOptions{}
		if on {
			name = "on"
			o.Limits = benchLimiter(b)
			o.Limits.SessionStarted(t0, "/", "session-1")
			o.Route = testRoute
		}
		g := NewGuard(inner, o)
		b.Run(name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			req.Header.Set(SessionHeader, "session-1")
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				req.Body = io.NopCloser(strings.NewReader(body))
				g.ServeHTTP(w, req)
			}
		})
	}
}

// Memory held by a full IP table: the heap after a flood that fills it.
func BenchmarkFloodHeap(b *testing.B) {
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		l := mustNew(b, Options{Process: Limit{RPS: 1e12, Burst: 1 << 40}, Connector: Limit{RPS: 1, Burst: 1}, Session: Limit{RPS: 1, Burst: 1}, IP: Limit{RPS: 1, Burst: 1}})
		for i := range 100_000 {
			l.AllowAt(t0, Request{IP: netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-held")
		b.ReportMetric(float64(l.Stats().PeakIPs), "peak-buckets")
		runtime.KeepAlive(l)
	}
}
