package obv_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, obv.Plugin(), []string{"../../testdata/obv"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"begroting","organization":"soest"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"entity_id":"document:notubiz:gemeente:soest:12345"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"entity_id":"meeting:notubiz:gemeente:soest:830424"}`},
		sdktest.FuzzCall{Tool: "list_sources", Args: `{}`},
		sdktest.FuzzCall{Tool: "status", Args: `{}`},
	)
}
