package opentk_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, opentk.Plugin(), []string{"../../testdata/opentk"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"stikstof"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"nummer":"2024D41173"}`},
		sdktest.FuzzCall{Tool: "list_committees", Args: `{}`},
		sdktest.FuzzCall{Tool: "list_members", Args: `{"party":"CDA"}`},
	)
}
