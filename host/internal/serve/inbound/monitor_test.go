package inbound

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A monitoring path answers a foreign Host on loopback 403 (DNS
// rebinding), and past its concurrency caps 503 with Retry-After; a
// request within them passes. It catches /metrics answering any Host and
// unlimited renders (issue 27).
func TestMonitorHostAndCaps(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 16)
	m := NewMonitor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	}), nil, nil)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	req := func(host, peer string) *http.Request {
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.Host = host
		r.RemoteAddr = peer + ":40000"
		return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
	}
	w := httptest.NewRecorder()
	m.ServeHTTP(w, req("evil.example", "127.0.0.1"))
	if w.Code != http.StatusForbidden {
		t.Errorf("a foreign Host on loopback: %d, want 403", w.Code)
	}
	done := make(chan int, 16)
	for range DefaultMonitorConcurrentPerAddr {
		go func() {
			w := httptest.NewRecorder()
			m.ServeHTTP(w, req("127.0.0.1:8080", "127.0.0.1"))
			done <- w.Code
		}()
		<-entered
	}
	w = httptest.NewRecorder()
	m.ServeHTTP(w, req("127.0.0.1:8080", "127.0.0.1"))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("past the per-address cap: %d %q, want 503 with Retry-After 1", w.Code, w.Header().Get("Retry-After"))
	}
	for i := range DefaultMonitorConcurrent - DefaultMonitorConcurrentPerAddr {
		go func() {
			w := httptest.NewRecorder()
			m.ServeHTTP(w, req("localhost", net.IPv4(127, 0, 1, byte(i)).String()))
			done <- w.Code
		}()
		<-entered
	}
	w = httptest.NewRecorder()
	m.ServeHTTP(w, req("localhost", "127.0.0.9"))
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("past the total cap: %d, want 503", w.Code)
	}
	close(release)
	for range DefaultMonitorConcurrent {
		if c := <-done; c != 200 {
			t.Errorf("a request within the caps: %d", c)
		}
	}
}
