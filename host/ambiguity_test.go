// End to end: an organisation name that fits several organisations, asked
// about through MCP elicitation or listed in a tool error, through the
// whole HTTP stack with a real MCP client (the go-sdk's, over streamable
// HTTP), the real WebAssembly ori connector and the platform simulator,
// which has two municipalities named Bergen. It builds a module, so it
// runs in the plain pass of make test, not under the race detector.

//go:build !race

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// oriOnSim serves the ori connector's WebAssembly build against a fresh
// simulator, with the config's grant line for it ("" grants nothing),
// and returns the unified MCP address.
func oriOnSim(t *testing.T, grant string) string {
	t.Helper()
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(sim.Handler())
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close)
	cfg := fmt.Sprintf("[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n"+
		"[connectors.ori]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\npool_size = 1\n%s\n",
		proofCompileDir(t), t.TempDir(), wasmbuild.Path(t, "./plugins/ori/cmd"), platformsim.BaseURLs(up.URL)["ori"], grant)
	c, err := host.LoadConfig(writeConfig(t, cfg), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "9.9.9-sim", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp/unified/v1"
}

// chooser is an MCP client's elicitation handler that picks the option
// whose title names place, as a person reading the form would, and
// records what it was asked.
type chooser struct {
	place string
	mu    sync.Mutex
	asked []*mcp.ElicitParams
}

func (c *chooser) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req.Params)
	c.mu.Unlock()
	var schema struct {
		Properties map[string]struct {
			OneOf []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(req.Params.RequestedSchema)
	if err := json.Unmarshal(b, &schema); err != nil {
		return nil, err
	}
	for name, p := range schema.Properties {
		for _, o := range p.OneOf {
			if strings.Contains(o.Title, c.place) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{name: o.Const}}, nil
			}
		}
	}
	return &mcp.ElicitResult{Action: "decline"}, nil
}

func (c *chooser) questions() []*mcp.ElicitParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), c.asked...)
}

// connectAsking connects a go-sdk client that answers elicitations with
// handler (nil: a client without the capability).
func connectAsking(t *testing.T, url string, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, legacyClient)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var bergenArgs = map[string]any{"query": "woningbouw", "organization": "Bergen"}

// bothBergens is what the tool error must list: each Bergen with the key
// that picks it.
var bothBergens = []string{
	`Gemeente Bergen (Limburg) — pass organization="bergen"`,
	`Gemeente Bergen (Noord-Holland) — pass organization="bergen_nh"`,
}

// TestAmbiguousOrganizationWithoutGrant: ori asks for elicitation in its
// manifest, but nothing is granted by default, so "Bergen" is a tool
// error listing both Bergens, even for a client that could be asked (its
// handler is never called).
func TestAmbiguousOrganizationWithoutGrant(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ori connector")
	}
	url := oriOnSim(t, "")
	for name, handler := range map[string]*chooser{"client without elicitation": nil, "client with elicitation": {place: "Limburg"}} {
		t.Run(name, func(t *testing.T) {
			var cs *mcp.ClientSession
			if handler == nil {
				cs = connectAsking(t, url, nil)
			} else {
				cs = connectAsking(t, url, handler.handle)
			}
			res := callTool(t, cs, "ori_search", bergenArgs)
			got := text(res)
			if !res.IsError {
				t.Fatalf("not a tool error: %s", shorten(got, 500))
			}
			for _, want := range append(bothBergens, `"Bergen" matches 2 organisations`, "not granted this connector elicitation") {
				if !strings.Contains(got, want) {
					t.Errorf("the error lacks %q:\n%s", want, got)
				}
			}
			if len(got) > 2000 {
				t.Errorf("the error is %d bytes", len(got))
			}
			if handler != nil && len(handler.questions()) != 0 {
				t.Errorf("the client was asked without a grant: %+v", handler.questions())
			}
		})
	}
}

// TestAmbiguousOrganizationAsked: with connectors.ori.grant =
// ["elicitation"], a client that supports elicitation is asked which
// Bergen (a titled single select naming both), chooses Limburg, and gets
// Bergen (Limburg)'s results only; a client without the capability gets
// the list.
func TestAmbiguousOrganizationAsked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ori connector")
	}
	url := oriOnSim(t, `grant = ["elicitation"]`)
	ch := &chooser{place: "Limburg"}
	cs := connectAsking(t, url, ch.handle)
	res := callTool(t, cs, "ori_search", bergenArgs)
	if res.IsError {
		t.Fatalf("tool error: %s", shorten(text(res), 500))
	}
	asked := ch.questions()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	form, _ := json.Marshal(asked[0].RequestedSchema)
	for _, want := range []string{`"const":"bergen"`, `"title":"Gemeente Bergen (Limburg)"`, `"const":"bergen_nh"`, `"title":"Gemeente Bergen (Noord-Holland)"`, `"oneOf"`} {
		if !strings.Contains(string(form), want) {
			t.Errorf("the form lacks %s: %s", want, form)
		}
	}
	if !strings.Contains(asked[0].Message, `"Bergen"`) {
		t.Errorf("question %q", asked[0].Message)
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

	// Granted, but the client cannot be asked: the list again.
	res = callTool(t, connectAsking(t, url, nil), "ori_search", bergenArgs)
	got := text(res)
	if !res.IsError || !strings.Contains(got, bothBergens[0]) || !strings.Contains(got, bothBergens[1]) || !strings.Contains(got, "does not support elicitation") {
		t.Errorf("a client without elicitation: %s", shorten(got, 600))
	}
}
