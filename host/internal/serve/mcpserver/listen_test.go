package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// A 2026-07-28 client listens to its own watch (subscriptions/listen,
// basic/patterns/subscriptions.mdx): the host's watch family admits the
// caller it owns — for an anonymous client, its address — the stream is
// acknowledged, and a change reaches it tagged with the listen's id; a
// watch of someone else is refused with the family's reason.
func TestModernClientListensToItsWatch(t *testing.T) {
	owner := callinfo.AddressPrefix + "127.0.0.1"
	s, err := New(Options{Version: "test", Platforms: []Platform{fixtures(t, nil, "")}, Logger: quiet,
		HostTemplates: []HostTemplate{{
			Template: &mcp.ResourceTemplate{Name: "watch", URITemplate: "besluitbron://watch/{id}", MIMEType: "application/json"},
			Prefix:   "besluitbron://watch/",
			Read:     func(context.Context, string, string) (string, error) { return "{}", nil },
			Subscribe: func(_ context.Context, caller, uri string) error {
				if uri == "besluitbron://watch/mine" && caller == owner {
					return nil
				}
				return errors.New("watch " + uri + " is not " + caller + "'s")
			},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	listen := func(ctx context.Context, id, uri string) *http.Response {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["` + uri + `"]},` + modernMeta + `}}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp/unified/v1", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := listen(ctx, "l1", "besluitbron://watch/mine")
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		t.Fatalf("listening to its own watch: %d %v", resp.StatusCode, m)
	}
	events := bufio.NewScanner(resp.Body)
	next := func() map[string]any {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("event %s: %v", data, err)
				}
				return m
			}
		}
		t.Fatalf("the listen stream ended: %v", events.Err())
		return nil
	}
	tag := func(m map[string]any) any {
		p, _ := m["params"].(map[string]any)
		meta, _ := p["_meta"].(map[string]any)
		return meta["io.modelcontextprotocol/subscriptionId"]
	}
	if ack := next(); ack["method"] != "notifications/subscriptions/acknowledged" || tag(ack) != "l1" {
		t.Fatalf("first event %v, want the acknowledgement of l1", ack)
	}
	s.ResourceUpdated(context.Background(), "besluitbron://watch/mine")
	u := next()
	p, _ := u["params"].(map[string]any)
	if u["method"] != "notifications/resources/updated" || p["uri"] != "besluitbron://watch/mine" || tag(u) != "l1" {
		t.Fatalf("after a change %v: want notifications/resources/updated for the watch, tagged l1", u)
	}

	other := listen(context.Background(), "l2", "besluitbron://watch/theirs")
	defer other.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(other.Body).Decode(&m)
	e, _ := m["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if other.StatusCode != 400 || !strings.Contains(msg, "is not "+owner+"'s") {
		t.Fatalf("listening to another's watch: %d %v, want 400 with the family's reason", other.StatusCode, m)
	}
}
