package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestResourceReadControlCharacter: a resources/read whose URI holds a
// control character gets a clear JSON-RPC error naming the URI, and the
// session stays healthy: a ping and a tools/list on it are answered. It
// catches a URI that ends the sender's session and leaves it half alive
// (issue 27: the session's next requests got neither answers nor 404).
func TestResourceReadControlCharacter(t *testing.T) {
	s, _ := realServer(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{ClientAddr: testAddr}))
	defer srv.Close()
	const path = "/mcp/unified/v1"
	sid, r := openSession(t, srv.URL, path, "10.0.0.1", "2025-06-18")
	if sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	for _, uri := range []string{`obv://document/a\u0001b`, `obv://document/a\nb`, `obv://document/\u007f`, `\u0000`} {
		r := rawDo(t, context.Background(), http.MethodPost, srv.URL+path, "10.0.0.1", sid, nil,
			`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"`+uri+`"}}`)
		t.Logf("resources/read %s: %d %s", uri, r.status, r.body)
		if r.status != 200 || !strings.Contains(r.body, `"error"`) || !strings.Contains(r.body, "control character") {
			t.Errorf("resources/read %s: %d %q, want a JSON-RPC error naming the control character", uri, r.status, r.body)
		}
		for _, m := range []string{`{"jsonrpc":"2.0","id":6,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`} {
			if r := rawDo(t, context.Background(), http.MethodPost, srv.URL+path, "10.0.0.1", sid, nil, m); r.status != 200 || !strings.Contains(r.body, `"result"`) {
				t.Fatalf("after resources/read %s, %s: %d %q: the session is not healthy", uri, m, r.status, r.body)
			}
		}
	}
}
