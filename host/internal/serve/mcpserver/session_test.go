package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
)

func TestEndpointSession(t *testing.T) {
	for event, want := range map[string]string{
		"event: endpoint\ndata: /sse?sessionid=ABC\n\n":                    "ABC",
		"event: endpoint\r\ndata: /mcp/unified/v1?sessionid=X%2BY\r\n\r\n": "X+Y",
		"event: message\ndata: /sse?sessionid=ABC\n\n":                     "",
		"event: endpoint\ndata: /sse\n\n":                                  "",
	} {
		if got := endpointSession([]byte(event)); got != want {
			t.Errorf("%q: %q, want %q", event, got, want)
		}
	}
}

// sessionRecorder records the ?sessionid= of a client's POSTs.
type sessionRecorder struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *sessionRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if id := r.URL.Query().Get("sessionid"); id != "" && r.Method == http.MethodPost {
		s.mu.Lock()
		s.ids[id] = true
		s.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Each HTTP+SSE client is a session of its own: its tool calls and
// resource reads carry the ?sessionid= its POSTs go to, on every address.
func TestLegacyClientsAreSessions(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // session → tools
	p := fixtures(t, nil, "")
	s, err := New(Options{Version: "test", Platforms: []Platform{p}, Logger: quiet, Observe: func(_ context.Context, e invoke.CallEvent) {
		mu.Lock()
		seen[e.Session] = append(seen[e.Session], e.Tool)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	ctx := context.Background()
	var recs []*sessionRecorder
	for _, path := range []string{"/sse", "/mcp/unified/v1", "/mcp/conformance/v1"} {
		rec := &sessionRecorder{ids: map[string]bool{}}
		recs = append(recs, rec)
		c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.SSEClientTransport{Endpoint: srv.URL + path, HTTPClient: &http.Client{Transport: rec}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "conformance_test_simple_text"}); err != nil || res.IsError {
			t.Fatalf("%s: %v %v", path, err, res)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "besluitbron://conformance/static-text"}); err != nil {
			t.Fatalf("%s: read: %v", path, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("sessions seen %v, want three", seen)
	}
	for i, rec := range recs {
		if len(rec.ids) != 1 {
			t.Fatalf("client %d posted to %v", i, rec.ids)
		}
		for id := range rec.ids {
			if !slices.Equal(seen[id], []string{"conformance_test_simple_text", "conformance_read_static_text"}) {
				t.Errorf("client %d (?sessionid=%s): calls seen under %v", i, id, seen)
			}
		}
	}
}
