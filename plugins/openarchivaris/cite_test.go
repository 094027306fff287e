package openarchivaris_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestGetDocumentOtherPlatform: another platform's document names the
// tool and id to pass, without a request.
func TestGetDocumentOtherPlatform(t *testing.T) {
	for args, want := range map[string]string{
		`{"id":"Stcrt. 2025, 18220"}`:   `Stcrt. 2025, 18220 is an Officiële Bekendmakingen publication: call obk_get_document with id=stcrt-2025-18220`,
		`{"id":"ecli:nl:rbams:2024:9"}`: `ecli:nl:rbams:2024:9 is a court decision (ECLI): call rechtspraak_get_document with id=ECLI:NL:RBAMS:2024:9`,
	} {
		h := sdktest.NewHost(t)
		if res := sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", args); !res.IsError || res.Text != want || len(h.Requests()) != 0 {
			t.Errorf("%s: %v %q (%d requests), want error %q", args, res.IsError, res.Text, len(h.Requests()), want)
		}
	}
}
