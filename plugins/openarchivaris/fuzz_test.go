package openarchivaris_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, openarchivaris.Plugin(), []string{"../../testdata/openarchivaris"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"woo-besluit"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"id":"d-2024-soest-000123"}`},
		sdktest.FuzzCall{Tool: "list_governments", Args: `{"government_type":"provincie"}`},
	)
}
