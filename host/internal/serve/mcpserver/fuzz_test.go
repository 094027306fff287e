package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// recorder is a connector with a real manifest that records the arguments
// the host lets through and answers with a fixed result.
type recorder struct {
	calls atomic.Int64
	last  atomic.Value // json.RawMessage
	res   connector.CallResult
}

func (r *recorder) Describe(context.Context) (connector.Manifest, error) {
	return connector.Manifest{}, nil
}

func (r *recorder) Call(_ context.Context, req connector.CallRequest, _ connector.Host) (connector.CallResult, error) {
	r.calls.Add(1)
	r.last.Store(req.Arguments)
	return r.res, nil
}

func (r *recorder) Close(context.Context) error { return nil }

// FuzzToolArguments sends arbitrary arguments to every tool of every real
// connector manifest: the host either refuses them with a tool error that
// names the platform and says what is wrong, before the connector runs, or
// hands the connector a JSON object that passes the tool's schema.
func FuzzToolArguments(f *testing.F) {
	rec := &recorder{res: connector.CallResult{Text: "{}"}}
	var plats []Platform
	var tools []*toolEntry
	for _, p := range []*sdk.Plugin{obk.Plugin(), obv.Plugin(), openarchivaris.Plugin(), opentk.Plugin(), ori.Plugin(), rechtspraak.Plugin(), tk.Plugin()} {
		m, err := p.Describe(context.Background())
		if err != nil {
			f.Fatal(err)
		}
		plats = append(plats, Platform{Platform: &invoke.Platform{Manifest: m, Connector: rec}})
	}
	s, err := New(Options{Platforms: plats, Logger: quiet})
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range s.ToolNames() {
		tools = append(tools, s.tools[name])
	}
	for i := range tools {
		for _, a := range []string{`{}`, `null`, ``, `[]`, `"x"`, `{"query":"begroting","limit":5}`, `{"id":"2023D52517","page":2}`,
			`{"ecli":"ECLI:NL:HR:2023:1049"}`, `{"date_from":"2024-01-01"}`, `{"limit":1e400}`, `{"query":"\u0000"}`, `{"a":1,"a":2}`} {
			f.Add(uint16(i), []byte(a))
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, args []byte) {
		e := tools[int(which)%len(tools)]
		before := rec.calls.Load()
		res := s.Call(context.Background(), testInfo(), e.t.Full, args)
		called := rec.calls.Load() > before
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			prefix := e.platform.Manifest.Title + ": invalid arguments for " + e.t.Full + ": "
			if !strings.HasPrefix(text, prefix) || len(text) == len(prefix) {
				t.Fatalf("%s(%q): refusal %q does not name the platform and the problem", e.t.Full, args, text)
			}
			if called {
				t.Fatalf("%s(%q): refused but the connector ran", e.t.Full, args)
			}
			// Whatever was sent, the refusal stays short (it is read by an
			// assistant that pays for every byte of it).
			if len(text) > invoke.MaxErrorText {
				t.Fatalf("%s: a %d-byte refusal", e.t.Full, len(text))
			}
			// The refusal is explained in words, not passed on from the
			// schema library (whose messages start "validating").
			if strings.Contains(text, "validating") {
				t.Fatalf("%s(%q): refusal not explained: %q", e.t.Full, args, text)
			}
			return
		}
		if !called {
			t.Fatalf("%s(%q): accepted but the connector did not run", e.t.Full, args)
		}
		got := rec.last.Load().(json.RawMessage)
		var v any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("%s: the connector got invalid JSON %q", e.t.Full, got)
		}
		if _, ok := v.(map[string]any); !ok {
			t.Fatalf("%s: the connector got a non-object %q", e.t.Full, got)
		}
		if err := e.t.Args.Resolved().Validate(v); err != nil {
			t.Fatalf("%s: the connector got arguments its schema refuses: %v", e.t.Full, err)
		}
	})
}
