package opentk_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func TestListCommittees(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/commissies.html", 200, td+"opentk-commissies.html")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "list_committees", `{}`), &l)
	r := h.Requests()[0]
	if r.Service != opentk.ServicePages || r.CacheClass != connector.ClassList || r.Method != "GET" {
		t.Errorf("request = %+v", r)
	}
	item := func(id, name, afk, date, latest string, active bool) sdk.Item {
		return sdk.Item{
			ID: id, Type: "commissie", Title: name, Date: date, Organization: "Tweede Kamer", URL: base + "/commissie.html?id=" + id,
			Extra: map[string]map[string]any{"opentk": {"afkorting": afk, "active": active, "latest_activity": latest}},
		}
	}
	want := sdk.ListResult{Platform: "opentk", List: "committees", Count: 3, Items: []sdk.Item{
		item("5f8c7e1a-aaaa-4bbb-8ccc-111111111111", "vaste commissie voor Infrastructuur en Waterstaat", "IenW", "2025-01-14", "14 januari 2025", true),
		item("5f8c7e1a-aaaa-4bbb-8ccc-222222222222", "vaste commissie voor Economische Zaken & Klimaat", "EZK", "2024-12-02", "2 december 2024", true),
		item("5f8c7e1a-aaaa-4bbb-8ccc-333333333333", "tijdelijke commissie Fraudebeleid en Dienstverlening", "TCFD", "2022-02-23", "2022-02-23", false),
	}}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("committees (-want +got):\n%s", d)
	}
}

func TestListMembers(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/kamerleden.html", 200, td+"opentk-kamerleden.html")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "list_members", `{}`), &l)
	want := sdk.ListResult{Platform: "opentk", List: "members", Count: 3, Items: []sdk.Item{
		{ID: "4567", Type: "Tweede Kamerlid", Title: "Henri Bontenbal", Organization: "CDA", URL: base + "/persoon.html?nummer=4567",
			Extra: map[string]map[string]any{"opentk": {"fractie": "CDA", "seat": "1", "titels": "mr."}}},
		{ID: "4590", Type: "Tweede Kamerlid", Title: "Esmah Lahlah", Organization: "GL-PvdA", URL: base + "/persoon.html?nummer=4590",
			Extra: map[string]map[string]any{"opentk": {"fractie": "GL-PvdA", "seat": "2"}}},
		{ID: "4711", Type: "Tweede Kamerlid", Title: "Jan Paternotte van ’t Veld", Organization: "D66", URL: base + "/persoon.html?nummer=4711",
			Extra: map[string]map[string]any{"opentk": {"fractie": "D66", "seat": "3", "titels": "dr."}}},
	}}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
}

func TestListErrors(t *testing.T) {
	for _, c := range []struct {
		tool, page, body string
		status           int
		want             string
	}{
		{"list_committees", "commissies.html", "<html><body><main><p>Onderhoud</p></main></body></html>", 200, "layout may have changed"},
		{"list_committees", "commissies.html", "<main><table><tr><td>alleen</td></tr></table></main>", 200, "row 1 has 1 cells"},
		{"list_committees", "commissies.html", "<main><table><tr><td>naam</td><td>A</td><td>2024-01-01</td></tr></table></main>", 200, "no committee link"},
		{"list_members", "kamerleden.html", "<main><table><tr><td>CDA</td><td>1</td><td></td><td>Geen link</td></tr></table></main>", 200, "no member link"},
		{"list_members", "kamerleden.html", "<main><table><tr><td>PVV</td><td>Vacature</td><td></td><td>Vacature</td></tr></table></main>", 200, "no member rows"},
		{"list_members", "kamerleden.html", "<h1>Error 500</h1><p>database is locked</p>", 500, "HTTP 500: Error 500 database is locked"},
	} {
		t.Run(c.tool+" "+c.want, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(base+"/"+c.page, c.status, []byte(c.body))
			res := sdktest.Call(t, opentk.Plugin(), h, c.tool, `{}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t)
	res := sdktest.Call(t, opentk.Plugin(), h, "list_members", `{"party":"CDA"}`)
	if !res.IsError || !strings.Contains(res.Text, "party") || len(h.Requests()) != 0 {
		t.Errorf("unknown argument: %+v", res)
	}
}
