package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
)

func mcpSession(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// resultText joins an MCP result's text content, as a client reads it
// (the host's own code reads connectors' answers through Invoke).
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func callStatus(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_status", Arguments: args})
	if err != nil {
		t.Fatalf("protocol error: %v", err)
	}
	return resultText(res), res.IsError
}

func TestStatusTool(t *testing.T) {
	th := startTestHost(t, "")
	cs := mcpSession(t, th.url)
	text, isErr := callStatus(t, cs, nil)
	if isErr || !strings.Contains(text, "OpenBesluitvorming: not checked yet.") {
		t.Fatalf("before the first round: %s", text)
	}
	th.h.lstatus.CheckAll(context.Background())
	text, isErr = callStatus(t, cs, map[string]any{"organization": "Houten"})
	var ans loadstatus.ToolAnswer
	if err := json.Unmarshal([]byte(text), &ans); err != nil || isErr {
		t.Fatalf("%v: %s", err, text)
	}
	for _, want := range []string{
		"OpenBesluitvorming: up, checked",
		"Sources: 1 ok, 1 stale, 1 failing.",
		"Rechtspraak: up",
		"OpenBesluitvorming, Houten (houten): FAILING",
		"last error: HTTP 503",
	} {
		if !strings.Contains(strings.Join(ans.Summary, "\n"), want) {
			t.Errorf("summary lacks %q:\n%s", want, strings.Join(ans.Summary, "\n"))
		}
	}
	if len(ans.Platforms) != 2 || ans.Platforms[0].Freshness == nil || ans.Platforms[0].Freshness.Sources != nil || len(ans.Platforms[0].ProblemSources) != 2 {
		t.Errorf("platforms = %+v (freshness without the full list, problems apart)", ans.Platforms)
	}
	if len(ans.Organizations) != 1 || len(ans.Organizations[0].Sources) != 1 || ans.Organizations[0].Sources[0].State != "failing" {
		t.Errorf("organizations = %+v", ans.Organizations)
	}

	th.obv.down.Store(true)
	th.h.lstatus.CheckAll(context.Background())
	text, _ = callStatus(t, cs, map[string]any{"platform": "obv", "organization": "soest"})
	for _, want := range []string{"OpenBesluitvorming: down", "does not answer", "Down for", "Soest (soest): current"} {
		if !strings.Contains(text, want) {
			t.Errorf("down: lacks %q: %s", want, text)
		}
	}
	if strings.Contains(text, "Rechtspraak") {
		t.Errorf("platform filter ignored: %s", text)
	}
	if s, _ := th.h.lstatus.Status("obv"); s.State != loadstatus.Down {
		t.Errorf("obv = %+v", s)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		// The schema's enum or the handler's own check, whichever words it:
		// the bad value and the platforms to choose from.
		{map[string]any{"platform": "nope"}, `"nope"`},
		{map[string]any{"platform": "nope"}, `rechtspraak`},
		{map[string]any{"colour": "red"}, "colour"},
		{map[string]any{"organization": 7}, "organization"},
	} {
		if text, isErr := callStatus(t, cs, c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: got %q, want a tool error naming %s", c.args, text, c.want)
		}
	}
}

// TestStatusSaysTheAdminsLimit: a limit the admin sets in
// connectors.<id>.limits.<service> is "set by the administrator" on the
// tool, /status.json and the page, naming the key, while the service the
// admin left alone keeps its manifest's origin; it was "as Rechtspraak
// declares it" or the manifest's words before.
func TestStatusSaysTheAdminsLimit(t *testing.T) {
	th := startTestHost(t, "[connectors.rechtspraak.limits.search]\nunits = 5\nper = \"1s\"\n")
	cs := mcpSession(t, th.url)
	text, isErr := callStatus(t, cs, map[string]any{"platform": "rechtspraak"})
	var ans loadstatus.ToolAnswer
	if err := json.Unmarshal([]byte(text), &ans); err != nil || isErr {
		t.Fatalf("%v: %s", err, text)
	}
	if want := "Limit at data.rechtspraak.nl: 5 units per 1s, for Rechtspraak; set by the administrator (connectors.rechtspraak.limits.search)."; !strings.Contains(strings.Join(ans.Summary, "\n"), want) {
		t.Errorf("summary lacks %q:\n%s", want, strings.Join(ans.Summary, "\n"))
	}
	if len(ans.Quotas) != 1 || ans.Quotas[0].LimitFrom != loadstatus.LimitAdmin || ans.Quotas[0].LimitNote != "" {
		t.Fatalf("quotas = %+v", ans.Quotas)
	}
	from := map[string]string{}
	for _, u := range ans.Quotas[0].Connectors {
		from[u.Service] = u.LimitFrom
	}
	if from["search"] != loadstatus.LimitAdmin || from["content"] != "polite" {
		t.Errorf("per service: %v, want search admin and content polite", from)
	}
	_, page := get(t, th.url+"/status")
	// The cell goes on with the quota's headroom (a line of its own).
	if !strings.Contains(page, `<td class="limit-admin">5 per seconde<br><small class="limit-from">ingesteld door de beheerder (connectors.rechtspraak.limits.search)</small><br><small class="limit-headroom">`) {
		t.Errorf("the page's row for data.rechtspraak.nl:\n%s", page)
	}
}
