package tk_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	fractieSel   = "Id,Nummer,Afkorting,NaamNL,NaamEN,AantalZetels,AantalStemmen,DatumActief,DatumInactief"
	commissieSel = "Id,Nummer,Soort,Afkorting,NaamNL,NaamEN,NaamWebNL,DatumActief,DatumInactief"
	persoonSel   = "Id,Nummer,Titels,Initialen,Tussenvoegsel,Achternaam,Voornamen,Roepnaam,Geslacht,Functie,Woonplaats,Fractielabel"
)

func TestListFracties(t *testing.T) {
	current := tk.ListURL(base, "Fractie", "Verwijderd eq false and DatumInactief eq null", fractieSel, "NaamNL,Id", 0)
	if want := base + "/Fractie?$filter=Verwijderd%20eq%20false%20and%20DatumInactief%20eq%20null&$select=Id%2CNummer%2CAfkorting%2CNaamNL%2CNaamEN%2CAantalZetels%2CAantalStemmen%2CDatumActief%2CDatumInactief&$orderby=NaamNL%2CId&$top=250&$count=true"; current != want {
		t.Errorf("URL = %s\nwant %s", current, want)
	}
	all := tk.ListURL(base, "Fractie", "Verwijderd eq false", fractieSel, "NaamNL,Id", 0)
	h := sdktest.NewHost(t).Handle(current, 200, td+"tk-odata-fractie.json").Handle(all, 200, td+"tk-odata-fractie.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_fracties", `{}`), &l)
	want := sdk.ListResult{Platform: "tk", List: "fracties", Count: 1, Items: []sdk.Item{{
		ID: "e133cd98-1b5c-47e0-ac4d-031f34199767", Type: "Fractie", Title: "Brinkman", Snippet: "BRINK", Organization: tk.Organization,
		Extra: map[string]map[string]any{"tk": {"api_url": base + "/Fractie(e133cd98-1b5c-47e0-ac4d-031f34199767)", "afkorting": "BRINK", "naam_en": "Brinkman", "nummer": float64(2783),
			"datum_actief": "2012-03-20", "datum_inactief": "2012-09-19"}},
	}}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_fracties", `{"include_inactive":true}`), &l)
	reqs := h.Requests()
	if len(reqs) != 2 || reqs[1].URL != all {
		t.Fatalf("requests = %+v", reqs)
	}
	for _, r := range reqs {
		if r.Service != tk.ServiceOData || r.CacheClass != connector.ClassList || r.Cost != 1 {
			t.Errorf("request = %+v", r)
		}
	}
}

func TestListCommissies(t *testing.T) {
	u := tk.ListURL(base, "Commissie", "Verwijderd eq false and DatumInactief eq null", commissieSel, "NaamNL,Id", 0)
	h := sdktest.NewHost(t).Handle(u, 200, td+"tk-commissie.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_commissies", `{}`), &l)
	if l.Count != 2 || l.List != "commissies" || l.Items[0].Title != "vaste commissie voor Binnenlandse Zaken" || l.Items[0].Type != "Vaste commissie" ||
		l.Items[0].Extra["tk"]["naam_web"] != "Binnenlandse Zaken" || l.Items[1].Snippet != "EZK" {
		t.Errorf("list = %+v", l)
	}
}

func TestListKamerleden(t *testing.T) {
	u := tk.ListURL(base, "Persoon", "Verwijderd eq false and Functie eq 'Tweede Kamerlid'", persoonSel, "Achternaam,Id", 0)
	if !strings.Contains(u, "Functie%20eq%20%27Tweede%20Kamerlid%27") {
		t.Errorf("URL = %s", u)
	}
	h := sdktest.NewHost(t).Handle(u, 200, td+"tk-odata-persoon.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_kamerleden", `{}`), &l)
	if l.Count != 1 {
		t.Fatalf("list = %+v", l)
	}
	p := l.Items[0]
	if p.Title != "Fleur Agema" || p.Snippet != "Tweede Kamerlid" || p.Organization != tk.Organization ||
		p.Extra["tk"]["woonplaats"] != "'s-Gravenhage" || p.Extra["tk"]["initialen"] != "M." || p.Extra["tk"]["fractie"] != nil {
		t.Errorf("member = %+v", p)
	}
	res := sdktest.Call(t, tk.Plugin(), sdktest.NewHost(t), "list_kamerleden", `{"fractie":"PVV"}`)
	if !res.IsError || !strings.Contains(res.Text, `"fractie"`) {
		t.Errorf("unknown argument: %+v", res)
	}
}

func TestListPaging(t *testing.T) {
	filter := "Verwijderd eq false and Functie eq 'Tweede Kamerlid'"
	page := func(n, from, count int) []byte {
		var b strings.Builder
		b.WriteString(`{"@odata.count":` + strconv.Itoa(count) + `,"value":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"Id":"id-` + strconv.Itoa(from+i) + `","Achternaam":"Lid ` + strconv.Itoa(from+i) + `","Roepnaam":"Jüri"}`)
		}
		b.WriteString("]}")
		return []byte(b.String())
	}
	h := sdktest.NewHost(t).
		HandleBody(tk.ListURL(base, "Persoon", filter, persoonSel, "Achternaam,Id", 0), 200, page(250, 0, 260)).
		HandleBody(tk.ListURL(base, "Persoon", filter, persoonSel, "Achternaam,Id", 1), 200, page(10, 250, 260))
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_kamerleden", `{}`), &l)
	if l.Count != 260 || l.Items[259].Title != "Jüri Lid 259" {
		t.Errorf("count %d, last %+v", l.Count, l.Items[len(l.Items)-1])
	}
	if u := h.Requests()[1].URL; !strings.Contains(u, "&$top=250&$skip=250&$count=true") {
		t.Errorf("second page URL = %s", u)
	}
}

func TestListPlatformErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"400", 400, `{"error":{"code":"","message":"Could not find a property named 'DatumInactief' on type 'TK.DA.GGM.OData.Fractie'."}}`, "list_fracties: upstream answered HTTP 400: Could not find a property"},
		{"malformed", 200, `[`, "list_fracties: the platform's response is not the expected JSON"},
		{"no value", 200, `{"@odata.count":3}`, "lacks value"},
		{"no Id", 200, `{"value":[{"NaamNL":"X"}]}`, "entry 1 lacks Id"},
		{"Id of another type", 200, `{"value":[{"Id":7,"NaamNL":"X"}]}`, "entry 1 is not the expected Fractie"},
		{"not an object", 200, `{"value":["x"]}`, "entry 1 is not the expected Fractie"},
		{"endless", 200, `{"@odata.count":99999,"value":[{"Id":"x"}],"@odata.nextLink":"https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/Fractie?$skip=250"}`, "more than 2000 entries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(base+"/Fractie?*", c.status, []byte(c.body))
			res := sdktest.Call(t, tk.Plugin(), h, "list_fracties", `{}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want %q", res, c.want)
			}
		})
	}
	res := sdktest.Call(t, tk.Plugin(), sdktest.NewHost(t), "list_commissies", `{"include_inactive":"yes"}`)
	if !res.IsError || !strings.Contains(res.Text, `"include_inactive"`) {
		t.Errorf("bad argument: %+v", res)
	}
	h := sdktest.NewHost(t).HandleBody(base+"/Persoon?*", 200, []byte(`{"value":[{"Id":"x","Roepnaam":"Fleur"}]}`))
	res = sdktest.Call(t, tk.Plugin(), h, "list_kamerleden", `{}`)
	if !res.IsError || !strings.Contains(res.Text, "lacks Id or Achternaam") {
		t.Errorf("member without surname: %+v", res)
	}
}

// TestListFieldOfAnotherType: a field the platform starts sending in
// another form is left out of its entry, with a note there, instead of
// failing the whole list.
func TestListFieldOfAnotherType(t *testing.T) {
	h := sdktest.NewHost(t).HandleBody(base+"/Fractie?*", 200,
		[]byte(`{"value":[{"Id":"x","NaamNL":"Partij X","AantalZetels":"veel","DatumActief":"2023-12-06T00:00:00+01:00"},{"Id":"y","NaamNL":"Partij Y","AantalZetels":3}]}`))
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_fracties", `{}`), &l)
	if l.Count != 2 {
		t.Fatalf("list = %+v", l)
	}
	x, y := l.Items[0].Extra["tk"], l.Items[1].Extra["tk"]
	notes, _ := x["notes"].([]any)
	if x["zetels"] != nil || x["datum_actief"] != "2023-12-06" || len(notes) != 1 || !strings.Contains(notes[0].(string), "AantalZetels in an unexpected form") {
		t.Errorf("entry with a changed field: %v", x)
	}
	if y["zetels"] != float64(3) || y["notes"] != nil {
		t.Errorf("intact entry: %v", y)
	}
	h = sdktest.NewHost(t).HandleBody(base+"/Persoon?*", 200, []byte(`{"value":[{"Id":"x","Achternaam":"Jansen","Nummer":"12a"}]}`))
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "list_kamerleden", `{}`), &l)
	if l.Count != 1 || l.Items[0].Title != "Jansen" || l.Items[0].Extra["tk"]["notes"] == nil || l.Items[0].Extra["tk"]["nummer"] != nil {
		t.Errorf("member with a changed field: %+v", l.Items)
	}
}
