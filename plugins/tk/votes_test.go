package tk_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func TestParseVotesID(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2024D41173", "2024D41173"},
		{" 2024d41173 ", "2024D41173"},
		{"2024Z17930", "2024Z17930"},
		{"0B9F3F4E-8A51-4D0C-9A55-0E3C1F1B2A77", "0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a77"},
		{"36600-VII-58", "36600-VII, nr. 58"},
		{"36600 VII, nr. 58", "36600-VII, nr. 58"},
		{"36600-VII nr. 58", "36600-VII, nr. 58"},
		{"kst-36600-vii-58", "36600-VII, nr. 58"},
		{"Kamerstukken II 2024/25, 36600-VII, nr. 58", "36600-VII, nr. 58"},
		{"21 501-32, nr. 1703", "21501-32, nr. 1703"},
		{"21501-32-1740", "21501-32, nr. 1740"},
		{"36410, nr. 5", "36410, nr. 5"},
		{"36410-5", "36410, nr. 5"},
	} {
		r, err := tk.ParseVotesID(c.in)
		if err != nil {
			t.Errorf("ParseVotesID(%q): %v", c.in, err)
			continue
		}
		if got := tk.VotesRefValue(r); got != c.want {
			t.Errorf("ParseVotesID(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{"", "   ", "motie", "2024X41173", "36600-VII", "nr. 5", strings.Repeat("1", 200), "36600-VII-58; DROP"} {
		if _, err := tk.ParseVotesID(in); err == nil || !strings.Contains(err.Error(), `argument "id"`) {
			t.Errorf("ParseVotesID(%q) err = %v, want one naming the argument", in, err)
		}
	}
}

func TestVotesURLs(t *testing.T) {
	r, _ := tk.ParseVotesID("36600-VII-58")
	got := tk.VotesDocumentURL(base, r)
	for _, want := range []string{"Volgnummer%20eq%2058", "Kamerstukdossier%2Fany%28k%3Ak%2FNummer%20eq%2036600%20and%20k%2FToevoeging%20eq%20%27VII%27%29", "$expand=Zaak%28%24select%3DId%2CNummer%2CSoort%2CTitel%2COnderwerp%29"} {
		if !strings.Contains(got, want) {
			t.Errorf("kamerstuk URL %s lacks %s", got, want)
		}
	}
	r, _ = tk.ParseVotesID("36410-5")
	if got := tk.VotesDocumentURL(base, r); !strings.Contains(got, "k%2FToevoeging%20eq%20null%20or%20k%2FToevoeging%20eq%20%27%27") {
		t.Errorf("kamerstuk without toevoeging: %s", got)
	}
	u := tk.BesluitURL(base, []string{"2024Z17930"}, false)
	for _, want := range []string{"/Besluit?$filter=Verwijderd%20eq%20false%20and%20Zaak%2Fany%28z%3Az%2FNummer%20eq%20%272024Z17930%27%29",
		"Agendapunt%28%24select%3DId%2COnderwerp%3B%24expand%3DActiviteit%28"} {
		if !strings.Contains(u, want) {
			t.Errorf("besluit URL %s lacks %s", u, want)
		}
	}
	if u := tk.BesluitURL(base, []string{"3e1a9c7d-5b2f-4e8a-9d1c-7f6e5d4c3b2a"}, true); !strings.Contains(u, "z%2FId%20eq%203e1a9c7d-5b2f-4e8a-9d1c-7f6e5d4c3b2a%29") {
		t.Errorf("besluit URL by Zaak Id %s", u)
	}
}

// TestGetVotesByDocument: from a motion's document number (what tk_search
// gives) to its decision and the votes per fractie, in two requests.
func TestGetVotesByDocument(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(base+"/Document?*", 200, td+"tk-votes-document.json").
		Handle(base+"/Besluit?*", 200, td+"tk-votes-besluit.json")
	res := sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2024D41173"}`)
	if res.IsError {
		t.Fatalf("error: %s", res.Text)
	}
	var v tk.VotesResult
	sdktest.Decode(t, res, &v)
	reqs := h.Requests()
	if len(reqs) != 2 || reqs[0].CacheClass != tk.ClassMetadata || reqs[1].CacheClass != connector.ClassSearch ||
		!strings.Contains(reqs[1].URL, "z%2FNummer%20eq%20%272024Z17930%27") {
		t.Fatalf("requests = %+v", reqs)
	}
	if v.Outcome != "aangenomen" || v.Date != "2024-11-05" || v.Document == nil || v.Document.Nummer != "2024D41173" ||
		len(v.Zaken) != 1 || v.Zaken[0].Nummer != "2024Z17930" || v.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2024Z17930" {
		t.Fatalf("result = %+v", v)
	}
	if len(v.Decisions) != 2 || v.Decisions[0].BesluitSoort != "Ingediend" || v.Decisions[0].Totals != nil {
		t.Fatalf("decisions, oldest first = %+v", v.Decisions)
	}
	d := v.Decisions[1]
	if diff := cmp.Diff(&tk.VoteTotals{Voor: 85, Tegen: 62, NietDeelgenomen: 3, Result: "voor"}, d.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	if d.Hoofdelijk || len(d.Leden) != 0 || len(d.Fracties) != 15 {
		t.Errorf("fracties = %+v", d.Fracties)
	}
	if diff := cmp.Diff(tk.FractieVote{Fractie: "BBB", FractieID: "f7ac0c1e-2023-4b0f-9a00-000000000006", Soort: "Voor", Zetels: 7, Voor: 7, Vergissing: true}, d.Fracties[5]); diff != "" {
		t.Errorf("BBB (-want +got):\n%s", diff)
	}
	if d.Fracties[0].Fractie != "PVV" || d.Fracties[0].Soort != "Tegen" || d.Fracties[0].Tegen != 37 {
		t.Errorf("PVV = %+v", d.Fracties[0])
	}
	if want := "Aangenomen. (2024-11-05), 85 voor – 62 tegen (seats): voor GL-PvdA, NSC, D66, BBB, CDA, SP, DENK, PvdD, SGP, CU, Volt; tegen PVV, VVD, JA21; niet deelgenomen FVD. Vergissing (declared to have voted by mistake; the vote counts as cast): BBB."; v.Summary != want {
		t.Errorf("summary = %q", v.Summary)
	}
	if d.MeetingURL == "" || d.Meeting != "Stemmingen: Stemmingen" && !strings.HasPrefix(d.Meeting, "Stemmingen") {
		t.Errorf("meeting = %q %q", d.Meeting, d.MeetingURL)
	}
	if len(v.Notes) != 1 || !strings.Contains(v.Notes[0], "1 vote records marked deleted") {
		t.Errorf("notes = %q", v.Notes)
	}
}

// TestGetVotesByZaakAndKamerstuk: a case number needs one request; a
// kamerstuk resolves through its dossier and number.
func TestGetVotesByZaakAndKamerstuk(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/Besluit?*", 200, td+"tk-votes-besluit.json")
	res := sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2024z17930"}`)
	var v tk.VotesResult
	sdktest.Decode(t, res, &v)
	if len(h.Requests()) != 1 || v.Outcome != "aangenomen" || v.Document != nil || len(v.Zaken) != 1 || v.Zaken[0].Soort != "Motie" {
		t.Fatalf("by case: %d requests, %+v", len(h.Requests()), v)
	}
	h = sdktest.NewHost(t).
		Handle(base+"/Document?*", 200, td+"tk-votes-document.json").
		Handle(base+"/Besluit?*", 200, td+"tk-votes-besluit.json")
	res = sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"36600 VII, nr. 58"}`)
	sdktest.Decode(t, res, &v)
	if len(h.Requests()) != 2 || v.Outcome != "aangenomen" || v.ID != "36600-VII, nr. 58" || v.Document == nil {
		t.Fatalf("by kamerstuk: %+v", v)
	}
}

// TestGetVotesRollCall: in a hoofdelijke stemming every row is a member;
// the fracties are counted from their members, split ones as verdeeld.
func TestGetVotesRollCall(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/Besluit?*", 200, td+"tk-votes-hoofdelijk.json")
	res := sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2024Z09001"}`)
	var v tk.VotesResult
	sdktest.Decode(t, res, &v)
	if len(v.Decisions) != 1 {
		t.Fatalf("decisions = %+v", v.Decisions)
	}
	d := v.Decisions[0]
	if !d.Hoofdelijk || len(d.Leden) != 10 || d.Leden[0] != (tk.LidVote{Naam: "G. Wilders", PersoonID: "9e750000-2023-4d00-8c00-000000000001", Fractie: "PVV", Soort: "Voor"}) {
		t.Fatalf("leden = %+v", d.Leden)
	}
	if diff := cmp.Diff(&tk.VoteTotals{Voor: 4, Tegen: 5, NietDeelgenomen: 1, Result: "tegen"}, d.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	var bbb tk.FractieVote
	for _, f := range d.Fracties {
		if f.Fractie == "BBB" {
			bbb = f
		}
	}
	if bbb != (tk.FractieVote{Fractie: "BBB", Soort: "verdeeld", Zetels: 2, Voor: 1, Tegen: 1}) {
		t.Errorf("BBB = %+v", bbb)
	}
	if v.Outcome != "verworpen" || len(v.Notes) != 0 {
		t.Errorf("outcome %q, notes = %q", v.Outcome, v.Notes)
	}
	if !strings.HasPrefix(v.Summary, "Verworpen. (2024-06-11), 4 voor – 5 tegen (members, roll call): voor PVV 1, VVD 1, NSC 1, BBB 1; tegen GL-PvdA 2, D66 1, BBB 1, SP 1; niet deelgenomen CDA 1.") {
		t.Errorf("summary = %q", v.Summary)
	}
}

// TestGetVotesDisagree: an outcome its own vote records contradict is
// reported as the platform gives it, with a note, not silently chosen.
func TestGetVotesDisagree(t *testing.T) {
	body, err := os.ReadFile(td + "tk-votes-hoofdelijk.json")
	if err != nil {
		t.Fatal(err)
	}
	body = bytes.ReplaceAll(bytes.ReplaceAll(body, []byte("Stemmen - verworpen"), []byte("Stemmen - aangenomen")), []byte("Verworpen."), []byte("Aangenomen."))
	h := sdktest.NewHost(t).HandleBody(base+"/Besluit?*", 200, body)
	var v tk.VotesResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2024Z09001"}`), &v)
	if v.Outcome != "aangenomen" || !strings.Contains(strings.Join(v.Notes, " "), "the platform says aangenomen, but its vote records count 4 voor and 5 tegen") {
		t.Errorf("outcome %q, notes = %q", v.Outcome, v.Notes)
	}
}

// TestGetVotesNone: a case without decisions, a document without a case,
// and answers that say why.
func TestGetVotesNone(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/Besluit?*", 200, td+"tk-votes-none.json")
	res := sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2025Z01234"}`)
	var v tk.VotesResult
	sdktest.Decode(t, res, &v)
	if res.IsError || v.Outcome != "" || len(v.Decisions) != 0 || !strings.HasPrefix(v.Summary, "No decision recorded") {
		t.Fatalf("no decisions: %+v", v)
	}
	h = sdktest.NewHost(t).
		Handle(base+"/Document(*", 404, td+"tk-error-400-property.json").
		Handle(base+"/Besluit?*", 200, td+"tk-votes-none.json")
	res = sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a00"}`)
	if !res.IsError || !strings.Contains(res.Text, "neither a document's Id nor the Id of a case with decisions") {
		t.Errorf("unknown Id: %s", res.Text)
	}
	h = sdktest.NewHost(t).HandleBody(base+"/Document?*", 200, []byte(`{"value":[]}`))
	res = sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2025D99999"}`)
	if !res.IsError || !strings.Contains(res.Text, "no document with document number 2025D99999") {
		t.Errorf("unknown number: %s", res.Text)
	}
	h = sdktest.NewHost(t).HandleBody(base+"/Document?*", 200, []byte(`{"value":[{"Id":"0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a77","Soort":"Brief regering","DocumentNummer":"2025D00001","Zaak":[]}]}`))
	res = sdktest.Call(t, tk.Plugin(), h, "get_votes", `{"id":"2025D00001"}`)
	sdktest.Decode(t, res, &v)
	if res.IsError || len(h.Requests()) != 1 || !strings.Contains(v.Summary, "links this document to no case") {
		t.Errorf("document without case: %+v", v)
	}
	for _, args := range []string{`{}`, `{"id":"motie 12"}`, `{"id":"2024D41173","page":2}`} {
		res := sdktest.Call(t, tk.Plugin(), sdktest.NewHost(t), "get_votes", args)
		if !res.IsError {
			t.Errorf("%s: no error", args)
		}
	}
}

// TestVotesHint: a motion, an amendment and a bill's case point to the
// votes tool; a letter does not.
func TestVotesHint(t *testing.T) {
	for _, c := range []struct {
		soort, nr string
		zaak      bool
		want      string
	}{
		{"Motie", "2024D41173", false, `tk_get_votes {"id":"2024D41173"}`},
		{"Gewijzigde motie", "2024D41174", false, `tk_get_votes {"id":"2024D41174"}`},
		{"Amendement", "2025D08800", false, `tk_get_votes {"id":"2025D08800"}`},
		{"Wetgeving", "2024Z09001", true, `tk_get_votes {"id":"2024Z09001"}`},
		{"Wetgeving", "2024D09001", false, ""},
		{"Brief regering", "2025D06020", false, ""},
		{"Motie", "", false, ""},
	} {
		if got := tk.VotesHint(c.soort, c.nr, c.zaak); got != c.want {
			t.Errorf("VotesHint(%q, %q) = %q, want %q", c.soort, c.nr, got, c.want)
		}
	}
}
