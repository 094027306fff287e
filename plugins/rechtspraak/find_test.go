package rechtspraak_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1 of a judgement of more than 1 MB of text, a find
// answers from the kept text (no request, no XML parse) and names the
// last page for the closing phrase, found folded.
func TestFind(t *testing.T) {
	h := sdktest.NewHost(t).HandleBody(content+"ECLI%3ANL%3AGHAMS%3A2020%3A3025", 200, longJudgement(t))
	first, found := sdktest.FindAfterRead(t, rechtspraak.Plugin(), h, "get_document", `{"id":"ECLI:NL:GHAMS:2020:3025"}`,
		`{"id":"ECLI:NL:GHAMS:2020:3025","find":"\"een reunie met zoe, naief\""}`)
	if f := found.Find; f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages {
		t.Fatalf("find: %+v", f)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (page 1's)", n)
	}
}
