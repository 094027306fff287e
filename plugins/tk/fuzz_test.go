package tk_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, tk.Plugin(), []string{"../../testdata/tk"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"stikstof"}`},
		sdktest.FuzzCall{Tool: "search", Args: `{"entity":"Activiteit","date_from":"2024-04-17","date_to":"2024-04-17"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"id":"2023D52517"}`},
		sdktest.FuzzCall{Tool: "get_votes", Args: `{"id":"2024D41173"}`},
		sdktest.FuzzCall{Tool: "get_votes", Args: `{"id":"2024Z09001"}`},
		sdktest.FuzzCall{Tool: "get_votes", Args: `{"id":"0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a77"}`},
		sdktest.FuzzCall{Tool: "list_fracties", Args: `{}`},
		sdktest.FuzzCall{Tool: "list_commissies", Args: `{}`},
		sdktest.FuzzCall{Tool: "list_kamerleden", Args: `{}`},
	)
}
