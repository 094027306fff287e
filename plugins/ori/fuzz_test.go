package ori_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, ori.Plugin(), []string{"../../testdata/ori"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"notulen","organization":"soest"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"id":"6074541"}`},
		sdktest.FuzzCall{Tool: "list_organizations", Args: `{}`},
	)
}
