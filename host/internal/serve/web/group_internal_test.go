package web

import (
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestGroupCopiesOnThePage: a copy on a later section leaves it and is
// linked under the result shown; a key the platform's manifest does not
// declare joins nothing; a section still answering is left alone (it is
// rendered later on its own).
func TestGroupCopiesOnThePage(t *testing.T) {
	src := map[string]string{connector.KeySourceURL: "https://api1.ibabs.eu/publicdownload.aspx?id=7&site=soest"}
	obv := &Platform{ID: "obv", Keys: []string{connector.KeySourceURL}}
	ori := &Platform{ID: "ori", Keys: []string{connector.KeySourceURL}}
	tk := &Platform{ID: "tk"} // declares no keys
	oa := &Platform{ID: "openarchivaris", Keys: []string{connector.KeySourceURL}}
	secs := []*section{
		{Platform: obv, Kind: kindOK, Results: []connector.Item{{ID: "a", URL: "https://openbesluitvorming.nl/a", Keys: src}, {ID: "b"}}},
		{Platform: ori, Kind: kindOK, Results: []connector.Item{{ID: "c"}, {ID: "d", URL: "https://x", Keys: src}}},
		{Platform: tk, Kind: kindOK, Results: []connector.Item{{ID: "e", Keys: src}}},
		{Platform: oa, Kind: kindSlow},
	}
	groupCopies(secs)
	if len(secs[0].Results) != 2 || len(secs[1].Results) != 1 || secs[1].Results[0].ID != "c" || secs[1].Elsewhere != 1 {
		t.Fatalf("obv %v, ori %v (elsewhere %d)", secs[0].Results, secs[1].Results, secs[1].Elsewhere)
	}
	also := secs[0].AlsoOf(0)
	if len(also) != 1 || also[0].Platform != ori || also[0].Item.ID != "d" || also[0].Item.URL != "https://x" {
		t.Errorf("copies of obv's a: %+v", also)
	}
	if len(secs[0].AlsoOf(1)) != 0 || len(secs[2].Results) != 1 || secs[2].Elsewhere != 0 {
		t.Errorf("an undeclared key joined tk's result: %+v", secs[2])
	}
}
