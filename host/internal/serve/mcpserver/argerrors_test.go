package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
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

// realServer is a Server with the seven real manifests and a recorder
// behind every tool.
func realServer(t *testing.T, hostTools ...invoke.HostTool) (*Server, *recorder) {
	t.Helper()
	rec := &recorder{res: connector.CallResult{Text: "{}"}}
	var plats []Platform
	for _, p := range []*sdk.Plugin{obk.Plugin(), obv.Plugin(), openarchivaris.Plugin(), opentk.Plugin(), ori.Plugin(), rechtspraak.Plugin(), tk.Plugin()} {
		m, err := p.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		plats = append(plats, Platform{Platform: &invoke.Platform{Manifest: m, Connector: rec}})
	}
	plats = append(plats, Platform{Platform: &invoke.Platform{Manifest: demoManifest, Connector: rec}})
	s, err := New(Options{Platforms: plats, HostTools: hostTools, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return s, rec
}

// demoManifest has schemas like the connectors' (kept here so that the
// wording tests do not move when a connector's schema does).
var demoManifest = connector.Manifest{ID: "demo", Title: "Demo", Tools: []connector.Tool{
	{Name: "search", InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500},
    "organization": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_]{0,79}$"},
    "publication": {"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true, "items": {"type": "string", "enum": ["Staatscourant", "Staatsblad", "Gemeenteblad"]}},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    "sort": {"type": "string", "enum": ["relevance", "date_desc", "date_asc"]},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 9999, "default": 0}
  },
  "anyOf": [{"required": ["query"]}, {"required": ["organization"]}],
  "dependentRequired": {"date_to": ["date_from"]},
  "additionalProperties": false
}`)},
	{Name: "get_document", InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "id": {"type": "string", "minLength": 3, "maxLength": 200},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["id"],
  "additionalProperties": false
}`)},
	{Name: "list", InputSchema: json.RawMessage(`{"type": "object", "additionalProperties": false}`)},
	// A format without a pattern: the schema library accepts any string,
	// the host checks the date.
	{Name: "dated", InputSchema: json.RawMessage(`{"type": "object", "properties": {"day": {"type": "string", "format": "date"}, "at": {"type": "string", "format": "date-time"}}, "additionalProperties": false}`)},
}}

func errText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %+v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestArgumentErrorsInWords: every kind of refusal says the rule in words,
// shows the refused value, and lists the tool's arguments when one is
// unknown or missing. It catches messages passed on from the schema
// library ("minimum: 0 is less than 1.000000") and unbounded echoes.
func TestArgumentErrorsInWords(t *testing.T) {
	s, rec := realServer(t)
	big := strings.Repeat("woningbouw ", 900*1024/11)
	for _, c := range []struct {
		name, tool, args string
		want             []string
	}{
		{"below minimum", "demo_get_document", `{"id":"doc-1","page":0}`,
			[]string{`Demo: invalid arguments for demo_get_document: argument "page" must be at least 1 (got 0)`}},
		{"above maximum", "demo_search", `{"query":"x","limit":51}`, []string{`argument "limit" must be at most 50 (got 51)`}},
		{"not a whole number", "demo_search", `{"query":"x","limit":2.5}`, []string{`argument "limit" must be a whole number (got the number 2.5)`}},
		{"wrong type shows the value", "demo_search", `{"query":"x","limit":"banana"}`, []string{`argument "limit" must be a whole number (got the string "banana")`}},
		{"wrong type of an enum lists the values", "demo_search", `{"query":"x","sort":42}`,
			[]string{`argument "sort" must be one of "relevance", "date_desc", "date_asc" (got the number 42)`}},
		{"not in the enum", "demo_search", `{"query":"x","sort":"banana"}`,
			[]string{`argument "sort" must be one of "relevance", "date_desc", "date_asc" (got "banana")`}},
		{"unknown argument lists the allowed ones", "demo_get_document", `{"id":"doc-1","organization":"soest"}`,
			[]string{`unknown argument "organization"`, `(this tool takes: id (required), page)`}},
		{"missing argument lists the allowed ones", "demo_get_document", `{}`,
			[]string{`argument "id" is required`, `(this tool takes: id (required), page)`}},
		{"a tool without arguments", "demo_list", `{"x":1}`, []string{`unknown argument "x" (this tool takes no arguments)`}},
		{"either of two", "demo_search", `{"limit":5}`, []string{`give at least one of the arguments "query" or "organization"`}},
		{"dependent argument", "demo_search", `{"query":"x","date_to":"2024-01-01"}`, []string{`argument "date_to" needs "date_from" as well`}},
		{"date pattern", "demo_search", `{"query":"x","date_from":"1 mei 2024"}`, []string{`argument "date_from" must be a date written YYYY-MM-DD (got "1 mei 2024")`}},
		{"date format without a pattern", "demo_dated", `{"day":"1 mei 2024"}`, []string{`argument "day" must be a date written YYYY-MM-DD (got "1 mei 2024")`}},
		{"impossible date", "demo_dated", `{"day":"2024-13-01"}`, []string{`argument "day" must be a date written YYYY-MM-DD (got "2024-13-01")`}},
		{"date-time format", "demo_dated", `{"at":"gisteren"}`, []string{`argument "at" must be a date and time written YYYY-MM-DDThh:mm:ssZ (got "gisteren")`}},
		{"other pattern", "demo_search", `{"organization":"Den Helder"}`, []string{`argument "organization" must match the pattern ^[a-z0-9][a-z0-9_]{0,79}$ (got "Den Helder")`}},
		{"empty string", "demo_search", `{"query":""}`, []string{`argument "query" must not be empty`}},
		{"short string", "demo_get_document", `{"id":"x"}`, []string{`argument "id" must be at least 3 characters long (got "x")`}},
		{"list item", "demo_search", `{"query":"x","publication":["Staatscourant","Krant"]}`,
			[]string{`argument "publication" (item 2) must be one of "Staatscourant", "Staatsblad", "Gemeenteblad" (got "Krant")`}},
		{"duplicate item", "demo_search", `{"query":"x","publication":["Staatsblad","Staatsblad"]}`, []string{`argument "publication" lists "Staatsblad" twice (items 1 and 2)`}},
		{"empty list", "demo_search", `{"query":"x","publication":[]}`, []string{`argument "publication" must not be an empty list`}},
		{"several problems at once", "demo_search", `{"query":"x","limit":0,"offset":-1,"colour":"red"}`,
			[]string{`argument "limit" must be at least 1 (got 0)`, `argument "offset" must be at least 0 (got -1)`, `unknown argument "colour"`}},
		{"not an object", "demo_search", `["x"]`, []string{`the arguments must be a JSON object of named arguments (got a list of 1 items ["x"])`}},
		{"too long, cut", "demo_search", `{"query":` + testJSONString(big) + `}`,
			[]string{`argument "query" must be at most 500 characters long (got 921591 characters: "woningbouw woningbouw`, `wo"…)`}},
		// A real connector's schema, through the same path.
		{"a connector's tool", "tk_get_document", `{}`, []string{`Tweede Kamer`, `invalid arguments for tk_get_document: argument "id" is required`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := rec.calls.Load()
			text := errText(t, s.Call(context.Background(), testInfo(), c.tool, json.RawMessage(c.args)))
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("error %q\nlacks %q", text, w)
				}
			}
			for _, bad := range []string{"minimum:", "maximum:", "is less than", "1.000000", "validating", "additional properties"} {
				if strings.Contains(text, bad) {
					t.Errorf("error %q still reads like the schema library (%q)", text, bad)
				}
			}
			if len(text) > 1000 {
				t.Errorf("error is %d bytes", len(text))
			}
			if rec.calls.Load() != before {
				t.Error("the connector ran on refused arguments")
			}
		})
	}
}

// TestArgumentEchoBounded: whatever a client sends, the error echoes at
// most a couple of hundred characters of it: a huge value, a huge
// unknown argument name, many unknown arguments, a huge list. It catches
// any path that quotes a value whole.
func TestArgumentEchoBounded(t *testing.T) {
	s, _ := realServer(t)
	huge := strings.Repeat("x", 900<<10)
	many := map[string]any{"query": "x"}
	for i := range 500 {
		many[strings.Repeat("k", 50)+string(rune('a'+i%26))+strings.Repeat("z", i)] = i
	}
	manyJSON, _ := json.Marshal(many)
	list := make([]string, 20000)
	for i := range list {
		list[i] = "Krant"
	}
	listJSON, _ := json.Marshal(map[string]any{"publication": list})
	for name, c := range map[string]struct{ tool, args string }{
		"huge value":       {"demo_search", `{"query":"` + huge + `"}`},
		"huge pattern arg": {"demo_search", `{"organization":"` + huge + `"}`},
		"huge enum arg":    {"demo_search", `{"query":"x","sort":"` + huge + `"}`},
		"huge wrong type":  {"demo_search", `{"query":"x","limit":"` + huge + `"}`},
		"huge name":        {"demo_search", `{"query":"x","` + huge + `":1}`},
		"many names":       {"demo_search", string(manyJSON)},
		"huge list":        {"demo_search", string(listJSON)},
		"huge list item":   {"demo_search", `{"query":"x","publication":["` + huge + `"]}`},
		"huge object":      {"demo_search", `{"query":{"a":"` + huge + `"}}`},
	} {
		t.Run(name, func(t *testing.T) {
			text := errText(t, s.Call(context.Background(), testInfo(), c.tool, json.RawMessage(c.args)))
			if len(text) > 1200 {
				t.Errorf("%d-byte argument gave a %d-byte error: %.300s…", len(c.args), len(text), text)
			}
		})
	}
}

// TestHostToolArguments: the host's own tools are checked against their
// schemas like connector tools, before their handler runs, with the same
// wording. It catches a host tool left to decode arguments its own way.
func TestHostToolArguments(t *testing.T) {
	ran := 0
	ht := invoke.HostTool{
		Name: "besluitbron_thing", InputSchema: &jsonschema.Schema{
			Type:                 "object",
			Properties:           map[string]*jsonschema.Schema{"platform": {Type: "string", Enum: []any{"obv", "tk"}}},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
		Handler: func(ctx context.Context, info *callinfo.Info, args json.RawMessage) invoke.Answer {
			ran++
			return invoke.JSONAnswer([]byte(`{"ok":true}`), info.Summary())
		},
	}
	s, _ := realServer(t, ht)
	cs := connectTo(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_thing", Arguments: map[string]any{"platform": "nowhere", "organisation": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	text := errText(t, res)
	for _, w := range []string{`besluitbron_thing: invalid arguments: `, `argument "platform" must be one of "obv", "tk" (got "nowhere")`,
		`unknown argument "organisation"`, `(this tool takes: platform)`} {
		if !strings.Contains(text, w) {
			t.Errorf("%q lacks %q", text, w)
		}
	}
	if ran != 0 {
		t.Error("the handler ran on refused arguments")
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_thing", Arguments: map[string]any{"platform": "tk"}})
	if err != nil || res.IsError || ran != 1 {
		t.Errorf("valid arguments: %v %+v, handler ran %d times", err, res, ran)
	}
}

// TestConnectorErrorCut: a connector's own error text is cut too (one that
// echoes what it was given), saying how long it was.
func TestConnectorErrorCut(t *testing.T) {
	s, rec := realServer(t)
	rec.res = connector.CallResult{IsError: true, Text: "no such document: " + strings.Repeat("ab", 400<<10)}
	text := errText(t, s.Call(context.Background(), testInfo(), "tk_get_document", json.RawMessage(`{"id":"2024D41190"}`)))
	if len(text) > invoke.MaxErrorText || !strings.Contains(text, "(cut; ") || !strings.HasPrefix(text, "Tweede Kamer") {
		t.Errorf("%d bytes: %.200s … %s", len(text), text, text[max(0, len(text)-80):])
	}
}

// connectTo connects an in-memory client to s's unified server.
func connectTo(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Unified().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// TestUnknownToolNameCut: the go-sdk's own "unknown tool" error quotes the
// name whole; a 900 KB name must come back cut, pointing at tools/list.
func TestUnknownToolNameCut(t *testing.T) {
	s, _ := realServer(t)
	cs := connectTo(t, s)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: strings.Repeat("n", 900<<10)})
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "tools/list") || !strings.Contains(err.Error(), "(a name of 921600 characters)") {
		t.Errorf("%d bytes: %.300s", len(fmt.Sprint(err)), fmt.Sprint(err))
	}
}

// TestFormatsPassWhenRight: a schema with a checked format still lets
// right values through to the connector (the walk after the library's
// acceptance must not refuse what fits).
func TestFormatsPassWhenRight(t *testing.T) {
	s, rec := realServer(t)
	before := rec.calls.Load()
	res := s.Call(context.Background(), testInfo(), "demo_dated", json.RawMessage(`{"day":"2024-05-01","at":"2024-05-01T10:00:00Z"}`))
	if res.IsError && strings.Contains(res.Content[0].(*mcp.TextContent).Text, "invalid arguments") {
		t.Fatalf("right dates refused: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	if rec.calls.Load() != before+1 {
		t.Errorf("the connector ran %d times, want once", rec.calls.Load()-before)
	}
}

// testJSONString is s as a JSON string.
func testJSONString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
