// Command hostile is a purpose-built guest that misbehaves on request, to
// prove the host survives each fault.
package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var sink [][]byte

func recurse(n int) int { return recurse(n+1) + 1 }

func main() {}

func init() {
	obj := json.RawMessage(`{"type":"object"}`)
	tool := func(name string) connector.Tool {
		return connector.Tool{Name: name, Description: name, InputSchema: obj}
	}
	sdk.Export(&sdk.Plugin{
		Manifest: connector.Manifest{
			ID: "hostile", Version: "1", Title: "Hostile", BaseURL: "https://example.org",
			AllowedHosts: []string{"example.org", "127.0.0.1"},
			Services:     []connector.Service{{Name: "api"}},
			CacheClasses: []connector.CacheClass{{Name: "search", TTL: connector.Duration(time.Minute)}},
			Tools:        []connector.Tool{tool("echo"), tool("loop"), tool("hog"), tool("exit"), tool("overflow"), tool("fetch"), tool("bigout"), tool("panic")},
		},
		Tools: map[string]sdk.ToolFunc{
			"echo": func(_ context.Context, _ connector.Host, a json.RawMessage) (any, error) {
				return map[string]any{"echo": a}, nil
			},
			"loop": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				for {
				}
			},
			"hog": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				for {
					sink = append(sink, make([]byte, 8<<20))
				}
			},
			"exit": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				os.Exit(3)
				return nil, nil
			},
			"overflow": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return recurse(0), nil
			},
			"panic": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				var m map[string]int
				m["x"] = 1
				return nil, nil
			},
			"bigout": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return strings.Repeat("a", 2<<20), nil
			},
			"fetch": func(ctx context.Context, h connector.Host, a json.RawMessage) (any, error) {
				var args struct{ URL string }
				if err := json.Unmarshal(a, &args); err != nil {
					return nil, err
				}
				r, err := sdk.Get(ctx, h, args.URL, "api", 1, "search")
				if err != nil {
					return nil, err
				}
				return map[string]any{"status": r.Status, "bytes": len(r.Body)}, nil
			},
		},
	})
}
