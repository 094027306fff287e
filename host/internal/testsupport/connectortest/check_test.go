package connectortest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/plugins/conformance"
	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// recorder is a testing.TB that records errors instead of failing, so
// the suite's own checks can be shown to fail.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

// skewed changes a connector's results the way a broken runtime might.
type skewed struct {
	connector.Connector
	change func(connector.CallResult) connector.CallResult
}

func (s skewed) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	res, err := s.Connector.Call(ctx, req, h)
	return s.change(res), err
}

func statsCase(t *testing.T) Case {
	t.Helper()
	c, err := ParseCase(filepath.Join(Dir("example"), "stats.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckPassesIdenticalRuntimes(t *testing.T) {
	r := &recorder{TB: t}
	check(r, statsCase(t), []connector.Connector{example.Plugin(), example.Plugin()}, []string{"a", "b"}, false)
	if len(r.errs) != 0 {
		t.Fatalf("identical runtimes reported: %v", r.errs)
	}
}

// TestCheckCatchesDivergence: each way a runtime can drift from the
// reference fails the case.
func TestCheckCatchesDivergence(t *testing.T) {
	changes := map[string]func(connector.CallResult) connector.CallResult{
		"text": func(r connector.CallResult) connector.CallResult {
			r.Text = strings.Replace(r.Text, "124", "125", 1)
			return r
		},
		"is_error":   func(r connector.CallResult) connector.CallResult { r.IsError = true; return r },
		"structured": func(r connector.CallResult) connector.CallResult { r.Structured = nil; return r },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			r := &recorder{TB: t}
			check(r, statsCase(t), []connector.Connector{example.Plugin(), skewed{example.Plugin(), change}}, []string{"ref", "broken"}, false)
			if len(r.errs) != 1 || !strings.Contains(r.errs[0], "(-ref +broken)") {
				t.Fatalf("errors %q, want one naming the broken runtime", r.errs)
			}
		})
	}
}

// TestCheckCatchesChangedWant: identical runtimes that no longer give the
// recorded outcome fail the case.
func TestCheckCatchesChangedWant(t *testing.T) {
	c := statsCase(t)
	c.Want = []byte(strings.Replace(string(c.Want), "3045470", "3045471", 1))
	r := &recorder{TB: t}
	check(r, c, []connector.Connector{example.Plugin()}, []string{"ref"}, false)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "differs from the want section") {
		t.Fatalf("errors %q, want one about the want section", r.errs)
	}
	c.Want = nil
	r = &recorder{TB: t}
	check(r, c, []connector.Connector{example.Plugin()}, []string{"ref"}, false)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "-update") {
		t.Fatalf("errors %q, want advice to run -update", r.errs)
	}
}

func TestCheckUpdateWritesWant(t *testing.T) {
	c := statsCase(t)
	p := filepath.Join(t.TempDir(), "stats.txtar")
	body := "The stats tool.\n-- call --\nstats {}\n-- routes --\nhttps://openbesluitvorming.nl/api/stats 200 @obv/obv-stats.json\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c.path = p
	check(t, c, []connector.Connector{example.Plugin()}, []string{"ref"}, true)
	again, err := ParseCase(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(statsCase(t).Want), string(again.Want)); d != "" {
		t.Errorf("written want (-recorded +written):\n%s", d)
	}
}

func TestNormalise(t *testing.T) {
	reqs := []connector.FetchRequest{
		{Method: "GET", URL: "https://b.test/", Service: "api", CacheClass: "search"},
		{Method: "POST", URL: "https://a.test/", Service: "api", Cost: 2, CacheClass: "none", Header: map[string]string{"Accept": "x"}, Body: []byte("q=1")},
	}
	got := Normalise(connector.CallResult{Text: `{"b":1, "a":[1,2]}`, Structured: []byte(`{"a":[1,2],"b":1}`)}, nil, reqs)
	want := Outcome{
		Result:     map[string]any{"a": []any{1.0, 2.0}, "b": 1.0},
		Structured: "= result",
		Fetches: []string{
			"GET https://b.test/ service=api cost=1 class=search",
			`POST https://a.test/ service=api cost=2 class=none Accept="x" body="q=1"`,
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got = Normalise(connector.CallResult{}, errors.New("connector \"obv\": module trapped\nstack"), nil)
	if got.Failure != "module trapped" || got.Fetches == nil {
		t.Errorf("failure = %+v", got)
	}
	got = Normalise(connector.CallResult{IsError: true, Text: "search: nope"}, nil, nil)
	if got.Text != "search: nope" || got.Result != nil || !got.IsError {
		t.Errorf("tool error = %+v", got)
	}
	long := strings.Repeat("é", 400)
	if s := clipString(long); !strings.Contains(s, "… [800 bytes, sha256 ") || !strings.HasPrefix(long, strings.Split(s, "…")[0]) {
		t.Errorf("clipped %q", s)
	}
}

func TestParseCaseErrors(t *testing.T) {
	cases := map[string]string{
		"":                                     "no prose header",
		"x\n-- routes --\n":                    "no call section",
		"x\n-- call --\nsearch {\n":            "are not JSON",
		"x\n-- call --\nsearch\n-- other --\n": `unknown section "other"`,
		"x\n-- call --\ns\n-- routes --\nu 99 b\n":                                                            "routes line 1: status",
		"x\n-- call --\ns\n-- routes --\nu fetcherror odd m\n":                                                `kind "odd"`,
		"x\n-- call --\ns\n-- routes --\nu 200 @nope/nope\n":                                                  "no such file",
		"x\n-- call --\ns\n-- call --\ns\n":                                                                   `section "call" twice`,
		"x\n-- call --\ns\n-- grant --\nteleport\n":                                                           `grant: "teleport" is not a client feature`,
		"x\n-- call --\ns\n-- grant --\n\n":                                                                   "grant: empty",
		"x\n-- call --\ns\n-- grant --\nroots, roots\n":                                                       "granted twice",
		"x\n-- call --\ns\n-- elicit --\n{\"action\":\"accept\"}\n":                                           "not granted \"elicitation\"",
		"x\n-- call --\ns\n-- grant --\nelicitation\n-- elicit --\n{\"action\":\"maybe\"}\n":                  `action "maybe"`,
		"x\n-- call --\ns\n-- grant --\nelicitation\n-- elicit --\n{\"action\":\"decline\",\"content\":{}}\n": "only accept carries content",
		"x\n-- call --\ns\n-- grant --\nelicitation\n-- elicit --\n{\"act\":1}\n":                             "answer 1",
		"x\n-- call --\ns\n-- grant --\nelicitation\n-- elicit --\n\n":                                        "no answer",
	}
	for body, want := range cases {
		p := filepath.Join(t.TempDir(), "c.txtar")
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ParseCase(p); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v, want an error naming the file and %q", body, err, want)
		}
	}
	p := filepath.Join(t.TempDir(), "g.txtar")
	os.WriteFile(p, []byte("ok\n-- call --\nsearch\n-- grant --\n[\"roots\", \"elicitation\"]\n-- elicit --\n{\"action\":\"accept\",\"content\":{\"choice\":\"a\"}}\n{\"action\":\"cancel\"}\n"), 0o644)
	if c, err := ParseCase(p); err != nil || !slices.Equal(c.Grant, []string{"elicitation", "roots"}) || len(c.Elicit) != 2 || c.Elicit[1].Action != connector.ElicitCancel {
		t.Errorf("grant and elicit: %+v, %v", c, err)
	}
	p = filepath.Join(t.TempDir(), "c.txtar")
	os.WriteFile(p, []byte("ok\n-- call --\nsearch\n-- routes --\n# comment\nhttps://x.test/* fetcherror queue_timeout no room\n"), 0o644)
	c, err := ParseCase(p)
	if err != nil || string(c.Args) != "{}" || len(c.Routes) != 1 || c.Routes[0].Err.Kind != connector.FetchQueueTimeout || c.Routes[0].Err.Message != "no room" {
		t.Errorf("case %+v, %v", c, err)
	}
}

// TestInProcessRefusesAsTheHost: the in-process runtime answers client
// features through the host's gate, as the WebAssembly and native ones
// do: not granted is the real host's refusal naming the grant to add,
// whatever the client could do; granted, the call's client is asked.
func TestInProcessRefusesAsTheHost(t *testing.T) {
	c := Case{Tool: "test_elicitation", Args: []byte(`{"message":"Which one?"}`), Elicit: []connector.ElicitResult{{Action: connector.ElicitAccept, Content: []byte(`{"username":"u","email":"e@x.nl"}`)}}}
	conn := InProcess().Open(t, "example")
	if _, ok := conn.(gated); !ok {
		t.Fatalf("in-process connector %T is not behind the gate", conn)
	}
	g := gated{Connector: conformance.Plugin(), gate: clientcall.New(clientcall.Options{ID: "conformance"})}
	o := call(t, g, c)
	want := `client feature "elicitation" is not granted to connector "conformance": add it to connectors.conformance.grant`
	if !strings.Contains(o.Text+o.Failure+fmt.Sprint(o.Result), want) || len(o.Elicitations) != 0 {
		t.Errorf("not granted: %+v, want %q and no question", o, want)
	}
	g.gate = clientcall.New(clientcall.Options{ID: "conformance", Grant: []string{connector.FeatureElicitation}})
	o = call(t, g, c)
	if len(o.Elicitations) != 1 || o.Elicitations[0].Message == "" || o.IsError {
		t.Errorf("granted: %+v", o)
	}
}
