package tk

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// maxListPages bounds how many server pages of 250 a list may take; the
// lists are far shorter (about 150 members, a few hundred groups ever).
const maxListPages = 8

// ListURL is the request for page n (0-based) of a list of an entity set.
func ListURL(base, set, filter, selects, orderby string, n int) string {
	skip := ""
	if n > 0 {
		skip = strconv.Itoa(n * MaxLimit)
	}
	return odataURL(base, set,
		param{"$filter", filter}, param{"$select", selects}, param{"$orderby", orderby},
		param{"$top", strconv.Itoa(MaxLimit)}, param{"$skip", skip}, param{"$count", "true"})
}

// fetchAll reads every page of a list. It pages with $skip on its own URL
// rather than following @odata.nextLink, so that every request stays on
// the configured base URL.
func fetchAll(ctx context.Context, h connector.Host, tool, set, filter, selects, orderby string) ([]json.RawMessage, error) {
	base := BaseURL
	var all []json.RawMessage
	for n := 0; ; n++ {
		resp, err := sdk.Get(ctx, h, ListURL(base, set, filter, selects, orderby, n), ServiceOData, 1, connector.ClassList)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		var c collection
		if err := sdk.DecodeJSON(resp, tool, &c); err != nil {
			return nil, err
		}
		if c.Value == nil {
			return nil, fmt.Errorf("%s: the platform's response lacks value", tool)
		}
		all = append(all, c.Value...)
		if !c.hasMore(len(all)) || len(c.Value) == 0 {
			return all, nil
		}
		if n+1 >= maxListPages {
			return nil, fmt.Errorf("%s: the platform reports more than %d entries, more than this list expects", tool, maxListPages*MaxLimit)
		}
	}
}

type listArgs struct {
	IncludeInactive bool `json:"include_inactive"`
}

// group is a Fractie or Commissie.
type group struct {
	ID            string `json:"Id"`
	Nummer        *int64 `json:"Nummer"`
	Soort         string `json:"Soort"`
	Afkorting     string `json:"Afkorting"`
	NaamNL        string `json:"NaamNL"`
	NaamEN        string `json:"NaamEN"`
	NaamWebNL     string `json:"NaamWebNL"`
	AantalZetels  *int   `json:"AantalZetels"`
	AantalStemmen *int64 `json:"AantalStemmen"`
	DatumActief   string `json:"DatumActief"`
	DatumInactief string `json:"DatumInactief"`
}

func listGroups(ctx context.Context, h connector.Host, raw json.RawMessage, tool, set, list, selects string) (any, error) {
	var a listArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	filter := "Verwijderd eq false"
	if !a.IncludeInactive {
		filter += " and DatumInactief eq null"
	}
	recs, err := fetchAll(ctx, h, tool, set, filter, selects, "NaamNL,Id")
	if err != nil {
		return nil, err
	}
	base := BaseURL
	out := sdk.ListResult{Platform: ID, List: list, Items: []sdk.Item{}}
	for i, r := range recs {
		var g group
		dropped, err := sdk.DecodeLenient(r, &g, "Id")
		if err != nil {
			return nil, fmt.Errorf("%s: entry %d is not the expected %s: %v", tool, i+1, set, err)
		}
		if g.ID == "" {
			return nil, fmt.Errorf("%s: entry %d lacks Id", tool, i+1)
		}
		extra := map[string]any{}
		for k, v := range map[string]string{"afkorting": g.Afkorting, "naam_en": g.NaamEN, "naam_web": g.NaamWebNL,
			"datum_actief": sdk.ISODate(g.DatumActief), "datum_inactief": sdk.ISODate(g.DatumInactief)} {
			if v != "" {
				extra[k] = v
			}
		}
		if g.Nummer != nil {
			extra["nummer"] = *g.Nummer
		}
		if g.AantalZetels != nil {
			extra["zetels"] = *g.AantalZetels
		}
		if g.AantalStemmen != nil {
			extra["stemmen"] = *g.AantalStemmen
		}
		if len(dropped) > 0 {
			extra["notes"] = []string{sdk.DroppedNote("The platform", "this entry", dropped)}
		}
		// No url: the site's pages of party groups and committees go by
		// names whose form is not known; the OData record is extra.tk.api_url.
		extra["api_url"] = entityURL(base, set, g.ID)
		out.Items = append(out.Items, sdk.Item{
			ID: g.ID, Type: firstNonEmpty(g.Soort, set), Title: firstNonEmpty(g.NaamNL, g.Afkorting, g.ID),
			Snippet: g.Afkorting, Organization: Organization,
			Extra: map[string]map[string]any{ID: extra},
		})
	}
	out.Count = len(out.Items)
	return out, nil
}

func listFracties(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	return listGroups(ctx, h, raw, "list_fracties", "Fractie", "fracties",
		"Id,Nummer,Afkorting,NaamNL,NaamEN,AantalZetels,AantalStemmen,DatumActief,DatumInactief")
}

func listCommissies(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	return listGroups(ctx, h, raw, "list_commissies", "Commissie", "commissies",
		"Id,Nummer,Soort,Afkorting,NaamNL,NaamEN,NaamWebNL,DatumActief,DatumInactief")
}

// persoon is a member of the Kamer.
type persoon struct {
	ID            string `json:"Id"`
	Nummer        *int64 `json:"Nummer"`
	Titels        string `json:"Titels"`
	Initialen     string `json:"Initialen"`
	Tussenvoegsel string `json:"Tussenvoegsel"`
	Achternaam    string `json:"Achternaam"`
	Voornamen     string `json:"Voornamen"`
	Roepnaam      string `json:"Roepnaam"`
	Geslacht      string `json:"Geslacht"`
	Functie       string `json:"Functie"`
	Woonplaats    string `json:"Woonplaats"`
	Fractielabel  string `json:"Fractielabel"`
}

func listKamerleden(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct{}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	recs, err := fetchAll(ctx, h, "list_kamerleden", "Persoon",
		"Verwijderd eq false and Functie eq 'Tweede Kamerlid'",
		"Id,Nummer,Titels,Initialen,Tussenvoegsel,Achternaam,Voornamen,Roepnaam,Geslacht,Functie,Woonplaats,Fractielabel",
		"Achternaam,Id")
	if err != nil {
		return nil, err
	}
	base := BaseURL
	out := sdk.ListResult{Platform: ID, List: "kamerleden", Items: []sdk.Item{}}
	for i, r := range recs {
		var p persoon
		dropped, err := sdk.DecodeLenient(r, &p, "Id", "Achternaam")
		if err != nil {
			return nil, fmt.Errorf("list_kamerleden: entry %d is not the expected Persoon: %v", i+1, err)
		}
		if p.ID == "" || p.Achternaam == "" {
			return nil, fmt.Errorf("list_kamerleden: entry %d lacks Id or Achternaam", i+1)
		}
		extra := map[string]any{}
		for k, v := range map[string]string{"initialen": p.Initialen, "voornamen": p.Voornamen, "titels": p.Titels,
			"geslacht": p.Geslacht, "woonplaats": p.Woonplaats, "fractie": p.Fractielabel} {
			if v != "" {
				extra[k] = v
			}
		}
		if p.Nummer != nil {
			extra["nummer"] = *p.Nummer
		}
		if len(dropped) > 0 {
			extra["notes"] = []string{sdk.DroppedNote("The platform", "this entry", dropped)}
		}
		name := strings.Join(nonEmpty(firstNonEmpty(p.Roepnaam, p.Initialen), p.Tussenvoegsel, p.Achternaam), " ")
		// No url, as for party groups: the OData record is extra.tk.api_url.
		extra["api_url"] = entityURL(base, "Persoon", p.ID)
		out.Items = append(out.Items, sdk.Item{
			ID: p.ID, Type: "Persoon", Title: name, Snippet: p.Functie, Organization: firstNonEmpty(p.Fractielabel, Organization),
			Extra: map[string]map[string]any{ID: extra},
		})
	}
	out.Count = len(out.Items)
	return out, nil
}
