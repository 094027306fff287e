// The ori connector's ambiguity helpers (ambiguity_test.go) build a module
// and run in the plain pass only, so this file does too.

//go:build !race

package host_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2026-07-28 client is asked in the call's result (multi-round-trip
// requests): with elicitation granted to ori, an ambiguous "Bergen" comes
// back input_required with the question, the go-sdk's client asks its
// user and sends the call again with the answer, and the results are
// Bergen (Limburg)'s, the user's choice; a client that declares no
// elicitation gets the list of both Bergens as before.
func TestMCP20260728ClientIsAskedInTheResult(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ori connector")
	}
	url := oriOnSim(t, `grant = ["elicitation"]`)
	connect := func(handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "modern", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler}).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("negotiated %q, want 2026-07-28", v)
		}
		return cs
	}
	ch := &chooser{place: "Limburg"}
	res := callTool(t, connect(ch.handle), "ori_search", bergenArgs)
	if res.IsError {
		t.Fatalf("tool error: %s", shorten(text(res), 500))
	}
	asked := ch.questions()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, `"Bergen"`) {
		t.Fatalf("asked %d times (%+v), want once about \"Bergen\"", len(asked), asked)
	}
	var sr struct {
		Results []struct {
			ID           string
			Organization string
			Extra        map[string]map[string]any
		}
		Notes []string
	}
	if err := json.Unmarshal([]byte(text(res)), &sr); err != nil || len(sr.Results) == 0 {
		t.Fatalf("results: %v %s", err, shorten(text(res), 500))
	}
	for _, r := range sr.Results {
		if r.Extra["ori"]["organization_key"] != "bergen" || r.Organization != "Gemeente Bergen (Limburg)" {
			t.Errorf("result %s of %s (%v): want Bergen (Limburg)'s only", r.ID, r.Organization, r.Extra["ori"]["organization_key"])
		}
	}
	if !strings.Contains(strings.Join(sr.Notes, " "), "the user chose Gemeente Bergen (Limburg)") {
		t.Errorf("notes %q", sr.Notes)
	}

	res = callTool(t, connect(nil), "ori_search", bergenArgs)
	got := text(res)
	if !res.IsError || !strings.Contains(got, bothBergens[0]) || !strings.Contains(got, bothBergens[1]) || !strings.Contains(got, "does not support elicitation") {
		t.Errorf("a 2026-07-28 client without elicitation: %s", shorten(got, 600))
	}
}
