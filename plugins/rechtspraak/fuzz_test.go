package rechtspraak_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// FuzzResponses feeds random platform answers (status, body, failed
// exchanges; seeded with the recorded responses) through every tool: the
// connector answers a tool error or a valid result, and never panics.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, rechtspraak.Plugin(), []string{"../../testdata/rechtspraak"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"huur"}`},
		// The walk by decision date reads every answer as a window: it
		// must stay within its requests whatever the index says.
		sdktest.FuzzCall{Tool: "search", Args: `{"sort":"decision_desc","limit":5}`},
		sdktest.FuzzCall{Tool: "search", Args: `{"subject":"Civiel recht; Arbeidsrecht","court":"HR"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"ecli":"ECLI:NL:GHAMS:2020:3025"}`},
		sdktest.FuzzCall{Tool: "list_courts", Args: `{}`},
		sdktest.FuzzCall{Tool: "list_subjects", Args: `{}`},
		sdktest.FuzzCall{Tool: "list_procedure_types", Args: `{}`},
	)
}
