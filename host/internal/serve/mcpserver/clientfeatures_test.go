package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// askingPlugin's tool fetches (a cached answer, valid for a minute) and,
// when ask is true, asks the call's client through the call's record as
// the runtimes' gate does, returning what the user said.
func askingPlugin(runs *atomic.Int32) *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			Tools: []connector.Tool{{Name: "pick", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"ask":{"type":"boolean"}}}`)}}},
		Tools: map[string]sdk.ToolFunc{"pick": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
			runs.Add(1)
			var a struct {
				Ask bool `json:"ask"`
			}
			if err := sdk.DecodeArgs(args, &a); err != nil {
				return nil, err
			}
			if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://x/", Service: "api"}); err != nil {
				return nil, err
			}
			if !a.Ask {
				return map[string]string{"picked": "the first"}, nil
			}
			c := callinfo.From(ctx).AskClient()
			if c == nil {
				return nil, errors.New("no client")
			}
			res, err := c.Elicit(ctx, connector.ElicitRequest{Message: "Which one?"})
			if err != nil {
				return nil, err
			}
			return map[string]string{"picked": string(res.Content)}, nil
		}},
	}
}

// TestClientAnswersAreNeverKept: a call that asked its client is not
// kept, so the same question asked again reaches the connector and the
// user again; a call that did not ask is kept as before. The MCP session
// is the call's client.
func TestClientAnswersAreNeverKept(t *testing.T) {
	now := time.Now()
	var runs atomic.Int32
	p := askingPlugin(&runs)
	s, err := New(Options{
		Version:   "test",
		Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now}, Stamp: "v1"}}},
		Memo:      memo.New(32<<20, nil),
		Logger:    quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			n := asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": n}}, nil
		},
	})
	ctx := context.Background()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo_pick", Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("demo_pick(%v): %v %+v", args, err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	for i := 1; i <= 2; i++ {
		got := call(map[string]any{"ask": true})
		if want := fmt.Sprintf(`{\"n\":%d}`, i); !strings.Contains(got, want) {
			t.Errorf("ask #%d: %s, want the user's answer %s", i, got, want)
		}
	}
	if runs.Load() != 2 || asked.Load() != 2 {
		t.Errorf("two calls that asked: the connector ran %d times and the user was asked %d times, want 2 and 2", runs.Load(), asked.Load())
	}
	// The control: a call that does not ask is kept and served again.
	call(map[string]any{"ask": false})
	call(map[string]any{"ask": false})
	if runs.Load() != 3 {
		t.Errorf("a call that did not ask ran %d times in all, want it kept after its first run (3)", runs.Load())
	}
	// A call from no MCP session (the host's own features) has no client.
	info := &callinfo.Info{Session: "page"}
	res := s.Call(ctx, info, "demo_pick", json.RawMessage(`{"ask":true}`))
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no client") || !info.AskedClient() {
		t.Errorf("a call without a session: %+v (asked %v)", res, info.AskedClient())
	}
}

// TestSessionClientCapabilities: the session is asked only for what the
// client declared.
func TestSessionClientCapabilities(t *testing.T) {
	var runs atomic.Int32
	p := askingPlugin(&runs)
	s, err := New(Options{Version: "test", Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: time.Now()}, Stamp: "v1"}}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo_pick", Arguments: map[string]any{"ask": true}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `the MCP client did not declare the "elicitation" capability`) {
		t.Errorf("a client without elicitation: %v %+v", err, res)
	}
}
