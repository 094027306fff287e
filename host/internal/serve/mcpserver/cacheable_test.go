package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// cachingServer serves a connector whose resource besluitbron://demo/doc/{+id}
// reads through a fetch valid for a minute (or a volatile one), a host
// resource and a host resource family, to a 2026-07-28 client.
func cachingServer(t *testing.T, now time.Time, volatile bool) *mcp.ClientSession {
	t.Helper()
	p := &sdk.Plugin{
		Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			Tools:     []connector.Tool{{Name: "get", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}},
			Resources: []connector.ResourceTemplate{{Name: "doc", URITemplate: "besluitbron://demo/doc/{+id}", Tool: "get"}}},
		Tools: map[string]sdk.ToolFunc{"get": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
			if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://x/", Service: "api"}); err != nil {
				return nil, err
			}
			return map[string]string{"doc": "text"}, nil
		}},
	}
	s, err := New(Options{
		Version:       "test",
		Platforms:     []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now, volatile: volatile}, Stamp: "v1"}}},
		HostResources: []HostResource{{Resource: &mcp.Resource{Name: "status", URI: "besluitbron://status", MIMEType: "application/json"}, Read: func(context.Context) (string, error) { return "{}", nil }}},
		HostTemplates: []HostTemplate{{
			Template: &mcp.ResourceTemplate{Name: "watch", URITemplate: "besluitbron://watch/{id}", MIMEType: "application/json"},
			Prefix:   "besluitbron://watch/",
			Read:     func(context.Context, string, string) (string, error) { return "{}", nil },
		}},
		Logger: quiet,
		Now:    func() time.Time { return now },
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// ttlMs and cacheScope (MCP 2026-07-28, server/utilities/caching.mdx):
// the lists say ListTTL, public; a connector resource's read is fresh as
// long as the cached answer it was built from (its cache class: a minute
// here), 0 when that answer was not cached; the host's status resource
// is 0, public, and a watch 0, private.
func TestCacheHintsOnListsAndReads(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	cs := cachingServer(t, now, false)

	want := mcp.Cacheable{TTLMs: int(ListTTL / time.Millisecond), CacheScope: "public"}
	tl, err := cs.ListTools(ctx, nil)
	if err != nil || tl.Cacheable != want {
		t.Errorf("tools/list: %v %+v, want %+v", err, tl.Cacheable, want)
	}
	rl, err := cs.ListResources(ctx, nil)
	if err != nil || rl.Cacheable != want {
		t.Errorf("resources/list: %v %+v, want %+v", err, rl.Cacheable, want)
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || tpl.Cacheable != want {
		t.Errorf("resources/templates/list: %v %+v, want %+v", err, tpl.Cacheable, want)
	}
	pl, err := cs.ListPrompts(ctx, nil)
	if err != nil || pl.Cacheable != want {
		t.Errorf("prompts/list: %v %+v, want %+v", err, pl.Cacheable, want)
	}

	for _, tc := range []struct {
		uri  string
		want mcp.Cacheable
	}{
		{"besluitbron://demo/doc/a", mcp.Cacheable{TTLMs: 60_000, CacheScope: "public"}},
		{"besluitbron://status", mcp.Cacheable{TTLMs: 0, CacheScope: "public"}},
		{"besluitbron://watch/w1", mcp.Cacheable{TTLMs: 0, CacheScope: "private"}},
	} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if err != nil || rr.Cacheable != tc.want {
			t.Errorf("resources/read %s: %v %+v, want %+v", tc.uri, err, rr, tc.want)
		}
	}

	volatile := cachingServer(t, now, true)
	rr, err := volatile.ReadResource(ctx, &mcp.ReadResourceParams{URI: "besluitbron://demo/doc/b"})
	if want := (mcp.Cacheable{TTLMs: 0, CacheScope: "public"}); err != nil || rr.Cacheable != want {
		t.Errorf("resources/read of an uncached answer: %v %+v, want %+v", err, rr, want)
	}
}
