package host_test

// What an assistant meets when it asks the questions of issue 28 that
// come down to one call each, through MCP to a host running the real
// WebAssembly connectors against the platform simulator: the area of law
// as a judgement shows it, an unknown value answered with the closest
// accepted ones, the most recent judgements by decision date, one label
// for one municipality on both council platforms, and an OpenTK document
// with its title, date and counterparts.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/sdk"
)

func TestAnswersAsAnAssistantMeetsThem(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets; -race only makes it slow")
	}
	if testing.Short() {
		t.Skip("starts seven WebAssembly connectors")
	}
	_, simURL := proofSim(t)
	_, base, _ := proofHost(t, proofConfig(t, simURL, t.TempDir(), ""))
	c := newProofClient(t, base, "answers")
	defer c.close()
	ctx := context.Background()
	call := func(tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: protocol error: %v", tool, args, err)
		}
		return res
	}
	search := func(tool string, args map[string]any) sdk.SearchResult {
		t.Helper()
		res := call(tool, args)
		var sr sdk.SearchResult
		if res.IsError || json.Unmarshal([]byte(resultText(res)), &sr) != nil {
			t.Fatalf("%s %v: %s", tool, args, resultText(res))
		}
		return sr
	}

	t.Run("SubjectAsAJudgementShowsIt", func(t *testing.T) {
		for _, subject := range []string{"Civiel recht", "civiel recht; verbintenissenrecht"} {
			if sr := search("rechtspraak_search", map[string]any{"subject": subject}); len(sr.Results) == 0 {
				t.Errorf("subject %q: no decisions; the simulator holds civil ones", subject)
			}
		}
	})

	t.Run("UnknownValueNamesTheClosest", func(t *testing.T) {
		res := call("rechtspraak_search", map[string]any{"subject": "Civil law"})
		if got := resultText(res); !res.IsError || !strings.Contains(got, `closest accepted: "Civiel recht"`) || !strings.Contains(got, "rechtspraak_list_subjects") || len(got) > 600 {
			t.Errorf("got %q (error %v), want a short error naming \"Civiel recht\" first", got, res.IsError)
		}
	})

	t.Run("MostRecentByDecisionDate", func(t *testing.T) {
		sr := search("rechtspraak_search", map[string]any{"sort": "decision_desc", "limit": 3})
		if len(sr.Results) == 0 || len(sr.Notes) == 0 || !strings.Contains(sr.Notes[0], "Ordered by decision date") {
			t.Fatalf("result %+v", sr)
		}
		for i := 1; i < len(sr.Results); i++ {
			if sr.Results[i].Date > sr.Results[i-1].Date {
				t.Errorf("result %d dated %s after %s", i, sr.Results[i].Date, sr.Results[i-1].Date)
			}
		}
		// The oracle: the newest decision among all the simulator's
		// (the index's modification order is another).
		all := search("rechtspraak_search", map[string]any{"limit": 100})
		newest := ""
		for _, it := range all.Results {
			newest = max(newest, it.Date)
		}
		if sr.Results[0].Date != newest {
			t.Errorf("first decision dated %s, the newest is of %s", sr.Results[0].Date, newest)
		}
	})

	t.Run("OneLabelForOneMunicipality", func(t *testing.T) {
		for key, want := range map[string]string{"bergen": "Gemeente Bergen (Limburg)", "bergen_nh": "Gemeente Bergen (Noord-Holland)"} {
			for _, tool := range []string{"obv_search", "ori_search"} {
				sr := search(tool, map[string]any{"query": "woningbouw", "organization": key})
				if len(sr.Results) == 0 {
					t.Errorf("%s %s: no results", tool, key)
				}
				for _, it := range sr.Results {
					if it.Organization != want {
						t.Errorf("%s %s: %s labelled %q, want %q", tool, key, it.ID, it.Organization, want)
					}
				}
			}
		}
	})

	t.Run("OpenTKDocumentWithTitleDateAndCounterparts", func(t *testing.T) {
		res := call("opentk_get_document", map[string]any{"id": "2025D05511"})
		var d sdk.Document
		if res.IsError || json.Unmarshal([]byte(resultText(res)), &d) != nil {
			t.Fatalf("%s", resultText(res))
		}
		if d.Title == "" || strings.Contains(d.Title, "2025D05511") || d.Date != "2025-02-11" || d.Type != "Motie" {
			t.Errorf("title %q, date %q, type %q; want the subject, 2025-02-11 and Motie", d.Title, d.Date, d.Type)
		}
		if cp, _ := json.Marshal(d.Extra["opentk"]["counterparts"]); !strings.Contains(string(cp), `"tool":"tk_get_document"`) {
			t.Errorf("counterparts %s", cp)
		}
	})
}
