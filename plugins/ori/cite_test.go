package ori_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestGetDocumentOtherPlatform: another platform's document names the
// tool and id to pass, without a request.
func TestGetDocumentOtherPlatform(t *testing.T) {
	for args, want := range map[string]string{
		`{"id":"Stcrt. 2025, 18220"}`: `Stcrt. 2025, 18220 is an Officiële Bekendmakingen publication: call obk_get_document with id=stcrt-2025-18220`,
		`{"id":"2025d05511"}`:         `2025d05511 is a Tweede Kamer document number: call tk_get_document (or opentk_get_document) with id=2025D05511`,
	} {
		h := sdktest.NewHost(t)
		if res := sdktest.Call(t, ori.Plugin(), h, "get_document", args); !res.IsError || res.Text != want || len(h.Requests()) != 0 {
			t.Errorf("%s: %v %q (%d requests), want error %q", args, res.IsError, res.Text, len(h.Requests()), want)
		}
	}
}
