package obk_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, obk.Plugin(), []string{"../../testdata/obk"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"parkeren"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"id":"stcrt-2015-47076"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"id":"kst-33328-AI","page":2}`},
		sdktest.FuzzCall{Tool: "list_values", Args: `{"list":"courts"}`},
	)
}
