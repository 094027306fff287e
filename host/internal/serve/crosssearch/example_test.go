package crosssearch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ExampleSearcher searches one platform through an invoker that answers
// for it (the host passes its MCP server's Invoke), and reads the answer
// as besluitbron_search's JSON.
func ExampleSearcher() {
	answer := func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) invoke.Answer {
		b, _ := json.Marshal(sdk.SearchResult{Platform: "tk", Results: []sdk.Item{{ID: "2025D05511", Title: "Motie over stikstof", URL: "https://www.tweedekamer.nl/x"}}})
		return invoke.Answer{Platform: "tk", Result: connector.CallResult{Text: string(b), Structured: b}}
	}
	s := crosssearch.New(crosssearch.Options{
		Platforms: []crosssearch.Platform{{ID: "tk", Title: "Tweede Kamer", Tools: []string{"search"}, Profile: tk.Plugin().Manifest.SearchProfile}},
		Invoke:    answer,
	})
	a := s.Handle(context.Background(), &callinfo.Info{Session: "example"}, json.RawMessage(`{"query":"stikstof"}`))
	if a.Err != nil {
		fmt.Println(a.Err)
		return
	}
	var res crosssearch.Result
	json.Unmarshal(a.JSON(), &res)
	for _, sec := range res.Sections {
		for _, r := range sec.Results {
			fmt.Println(sec.Platform, sec.Status, r.ID, r.Title)
		}
	}
	fmt.Println(res.ResultCount, "result,", res.DocumentCount, "document")
	// Output:
	// tk ok 2025D05511 Motie over stikstof
	// 1 result, 1 document
}
