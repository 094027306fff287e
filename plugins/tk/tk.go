package tk

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Plugin returns the connector. It builds every URL on the manifest's
// BaseURL; when the admin overrides base_url, the host rewrites that prefix,
// so the connector never needs to know.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":          search,
			"get_document":    getDocument,
			"get_votes":       getVotes,
			"list_fracties":   listFracties,
			"list_commissies": listCommissies,
			"list_kamerleden": listKamerleden,
		},
	}
}

// entitySpec says how one searchable entity set is filtered and read.
type entitySpec struct {
	textFields []string // what query words are matched against
	dateField  string   // what date_from/date_to bound
	selects    string
	expand     string // navigation read along ("" for none)
	// lesser is the expand asked for when the platform refuses expand
	// with HTTP 400 (a renamed navigation): the results then lack what
	// only the refused navigation gives, and a search still answers.
	lesser string
}

var entities = map[string]entitySpec{
	"Document": {
		textFields: []string{"Titel", "Onderwerp"}, dateField: "Datum",
		selects: "Id,Soort,DocumentNummer,Titel,Onderwerp,Datum,Vergaderjaar,Kamer,Organisatie,ContentType,ContentLength,Volgnummer",
		// A Kamerstuk's dossier and its Volgnummer in it are its key
		// "36800-VII-14", the one obk's publication kst-36800-VII-14 has.
		// The current version's ExterneIdentifier is the publication id
		// itself (ah-tk-20242025-1888): an answer to written questions
		// has no Kamerstuk number, and only this key joins it to its
		// copy on obk.
		expand: "Kamerstukdossier($select=Nummer,Toevoeging),HuidigeDocumentVersie($select=ExterneIdentifier)",
		lesser: "Kamerstukdossier($select=Nummer,Toevoeging)",
	},
	"Zaak": {
		textFields: []string{"Titel", "Onderwerp"}, dateField: "GestartOp",
		selects: "Id,Nummer,Soort,Titel,Onderwerp,Status,GestartOp,Afgedaan,Vergaderjaar,Organisatie",
	},
	"Activiteit": {
		textFields: []string{"Onderwerp"}, dateField: "Datum",
		selects: "Id,Nummer,Soort,Onderwerp,Datum,Status,Vergaderjaar,Voortouwnaam,Voortouwafkorting",
	},
}

// SearchArgs are the arguments of tk_search.
type SearchArgs struct {
	Query    string `json:"query"`
	Entity   string `json:"entity"`
	Soort    string `json:"soort"`
	Zaak     string `json:"zaak"`
	DateFrom string `json:"date_from"`
	DateTo   string `json:"date_to"`
	Sort     string `json:"sort"`
	Limit    int    `json:"limit"`
	Offset   int    `json:"offset"`
}

// SearchURL maps search arguments to the platform's request, with the
// defaults applied. It returns the entity set searched.
func SearchURL(base string, a SearchArgs) (string, string, error) {
	return searchURL(base, a, false)
}

// LesserSearchURL is the request asked again when the platform refuses
// SearchURL's with HTTP 400: the same search with the lesser expand, so
// that a renamed navigation costs the results a key, not the search.
// It is "" when the entity set has no lesser request.
func LesserSearchURL(base string, a SearchArgs) (string, error) {
	if e := a.Entity; e != "" && entities[e].lesser == "" {
		return "", nil
	}
	u, _, err := searchURL(base, a, true)
	return u, err
}

func searchURL(base string, a SearchArgs, lesser bool) (string, string, error) {
	if a.Entity == "" {
		a.Entity = "Document"
	}
	spec, ok := entities[a.Entity]
	if !ok {
		return "", "", sdk.UnknownValue("entity", a.Entity, []string{"Document", "Zaak", "Activiteit"}, "")
	}
	if a.Limit == 0 {
		a.Limit = 25
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return "", "", fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	if a.Offset < 0 {
		return "", "", fmt.Errorf("argument \"offset\": %d is negative", a.Offset)
	}
	for _, c := range []struct {
		arg, v string
		max    int
	}{{"query", a.Query, 300}, {"soort", a.Soort, 200}} {
		if err := CheckText(c.arg, c.v); err != nil {
			return "", "", err
		}
		if len(c.v) > c.max {
			return "", "", fmt.Errorf("argument %q: %d bytes, more than %d", c.arg, len(c.v), c.max)
		}
	}
	terms := Terms(a.Query)
	if strings.TrimSpace(a.Query) != "" && len(terms) == 0 {
		return "", "", fmt.Errorf("argument \"query\": %q holds no letters or digits to search for", a.Query)
	}
	for _, t := range terms {
		if len(t) > 100 {
			return "", "", fmt.Errorf("argument \"query\": the term %q is longer than 100 bytes", clip(t, 30))
		}
	}
	soort := strings.TrimSpace(a.Soort)
	if a.Soort != "" && soort == "" {
		return "", "", fmt.Errorf("argument \"soort\": empty")
	}
	zaak := strings.ToUpper(a.Zaak)
	if zaak != "" {
		if a.Entity != "Document" {
			return "", "", fmt.Errorf("argument \"zaak\": only works with entity Document, not %s", a.Entity)
		}
		if !zaakNummer.MatchString(zaak) {
			return "", "", fmt.Errorf("argument \"zaak\": %q is not a case number like 2025Z12846", a.Zaak)
		}
	}
	var parts []string
	dates := 0
	if a.DateFrom != "" {
		d, err := parseDay("date_from", a.DateFrom)
		if err != nil {
			return "", "", err
		}
		parts = append(parts, spec.dateField+" ge "+AmsterdamMidnight(d))
		dates++
	}
	if a.DateTo != "" {
		d, err := parseDay("date_to", a.DateTo)
		if err != nil {
			return "", "", err
		}
		parts = append(parts, spec.dateField+" lt "+AmsterdamMidnight(d.AddDate(0, 0, 1)))
		dates++
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return "", "", fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	if n := FilterNodes(len(terms), len(spec.textFields), soort != "", zaak != "", dates); n > nodeLimit {
		most := 0
		for FilterNodes(most+1, len(spec.textFields), soort != "", zaak != "", dates) <= nodeLimit {
			most++
		}
		return "", "", fmt.Errorf("argument \"query\": %d terms are too many for the platform, whose filters may hold at most 100 nodes; with these filters use at most %d", len(terms), most)
	}
	// Most selective first: the platform stops evaluating an AND early.
	filter := []string{"Verwijderd eq false"}
	if soort != "" {
		filter = append(filter, "Soort eq "+Literal(soort))
	}
	if zaak != "" {
		filter = append(filter, "Zaak/any(z:z/Nummer eq "+Literal(zaak)+")")
	}
	filter = append(filter, parts...)
	for _, t := range terms {
		var or []string
		for _, f := range spec.textFields {
			or = append(or, "contains("+f+","+Literal(t)+")")
		}
		if len(or) == 1 {
			filter = append(filter, or[0])
		} else {
			filter = append(filter, "("+strings.Join(or, " or ")+")")
		}
	}
	dir := "desc"
	switch a.Sort {
	case "", "date_desc":
	case "date_asc":
		dir = "asc"
	default:
		return "", "", sdk.UnknownValue("sort", a.Sort, []string{"date_desc", "date_asc"}, "")
	}
	skip := ""
	if a.Offset > 0 {
		skip = strconv.Itoa(a.Offset)
	}
	expand := spec.expand
	if lesser {
		expand = spec.lesser
	}
	// Id breaks ties between equal dates so that pages do not overlap.
	u := odataURL(base, a.Entity,
		param{"$filter", strings.Join(filter, " and ")},
		param{"$select", spec.selects},
		param{"$expand", expand},
		param{"$orderby", spec.dateField + " " + dir + ",Id " + dir},
		param{"$top", strconv.Itoa(a.Limit)},
		param{"$skip", skip},
		param{"$count", "true"},
	)
	return u, a.Entity, nil
}

// collection is an OData collection response; entities stay raw until the
// caller knows their shape.
type collection struct {
	Count    *int              `json:"@odata.count"`
	NextLink string            `json:"@odata.nextLink"`
	Value    []json.RawMessage `json:"value"`
}

// hasMore says whether entities follow the first seen ones: by the exact
// count when the platform gives one, else by its next link.
func (c *collection) hasMore(seen int) bool {
	if c.Count != nil {
		return seen < *c.Count
	}
	return c.NextLink != ""
}

// record holds the fields of Document, Zaak and Activiteit that results use;
// absent ones stay zero.
type record struct {
	ID                string    `json:"Id"`
	Soort             string    `json:"Soort"`
	Nummer            string    `json:"Nummer"`
	DocumentNummer    string    `json:"DocumentNummer"`
	Titel             string    `json:"Titel"`
	Onderwerp         string    `json:"Onderwerp"`
	Datum             string    `json:"Datum"`
	GestartOp         string    `json:"GestartOp"`
	Vergaderjaar      string    `json:"Vergaderjaar"`
	Organisatie       string    `json:"Organisatie"`
	Status            string    `json:"Status"`
	Afgedaan          *bool     `json:"Afgedaan"`
	ContentType       string    `json:"ContentType"`
	ContentLength     *int64    `json:"ContentLength"`
	Kamer             *int      `json:"Kamer"`
	Voortouwnaam      string    `json:"Voortouwnaam"`
	Voortouwafkorting string    `json:"Voortouwafkorting"`
	Verwijderd        *bool     `json:"Verwijderd"`
	Version           *versie   `json:"HuidigeDocumentVersie"`
	Volgnummer        *int      `json:"Volgnummer"`
	Dossiers          []dossier `json:"Kamerstukdossier"`
}

// dossier is an expanded Kamerstukdossier of a Document.
type dossier struct {
	Nummer     *int    `json:"Nummer"`
	Toevoeging *string `json:"Toevoeging"`
}

// kamerstukKey is a Document's Kamerstuk key: its one dossier's number
// and addition and its Volgnummer in it, or "" (no dossier, several, or
// no number).
func (r *record) kamerstukKey() string {
	if len(r.Dossiers) != 1 || r.Dossiers[0].Nummer == nil || r.Volgnummer == nil {
		return ""
	}
	toev := ""
	if t := r.Dossiers[0].Toevoeging; t != nil {
		toev = *t
	}
	return sdk.KamerstukOf(*r.Dossiers[0].Nummer, toev, *r.Volgnummer)
}

// publicationKey is a Document's Officiële Bekendmakingen publication id,
// the key obk's copy of it carries (ah-tk-20242025-1888, kst-36800-VII-14),
// from its current version's ExterneIdentifier; "" when that names no
// publication (a letter without one, an internal identifier).
func (r *record) publicationKey() string {
	if r.Version == nil {
		return ""
	}
	c, ok := cite.PublicationCounterpart(r.Version.ExterneIdentifier)
	if !ok {
		return ""
	}
	return c.ID
}

// versie is the expanded HuidigeDocumentVersie of a Document.
type versie struct {
	ID                string `json:"Id"`
	ExterneIdentifier string `json:"ExterneIdentifier"`
	Extensie          string `json:"Extensie"`
	Bestandsgrootte   *int64 `json:"Bestandsgrootte"`
	Versienummer      *int   `json:"Versienummer"`
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	base := BaseURL
	u, entity, err := SearchURL(base, a)
	if err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, u, ServiceOData, 1, connector.ClassSearch)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var refused string
	// Only a refusal that names the navigation is asked again: another
	// 400 (a filter the platform will not run) would be refused twice.
	if resp.Status == 400 && strings.Contains(string(resp.Body), "HuidigeDocumentVersie") {
		if lu, lerr := LesserSearchURL(base, a); lerr == nil && lu != "" {
			refused = sdk.CheckStatus(resp).Error()
			if resp, err = sdk.Get(ctx, h, lu, ServiceOData, 1, connector.ClassSearch); err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
		}
	}
	var c collection
	if err := sdk.DecodeJSON(resp, "search", &c); err != nil {
		return nil, err
	}
	if c.Value == nil {
		return nil, fmt.Errorf("search: the platform's response lacks value")
	}
	out := sdk.SearchResult{Platform: ID, Total: c.Count, Offset: a.Offset, Results: []sdk.Item{}}
	// A result the connector cannot read is left out with a note, and a
	// field of an unexpected type is left out of its result: one changed
	// field must not fail every search. Only when no result is readable
	// is the answer an error.
	var bad error
	skipped := 0
	var dropped []string
	for i, rawRec := range c.Value {
		var r record
		d, err := sdk.DecodeLenient(rawRec, &r, "Id")
		switch {
		case err != nil:
			err = fmt.Errorf("search: result %d is not the expected entity: %v", i+1, err)
		case r.ID == "":
			err = fmt.Errorf("search: result %d lacks Id", i+1)
		}
		if err != nil {
			if bad == nil {
				bad = err
			}
			skipped++
			continue
		}
		for _, f := range d {
			if !slices.Contains(dropped, f) {
				dropped = append(dropped, f)
			}
		}
		out.Results = append(out.Results, item(base, entity, &r))
	}
	if bad != nil && len(out.Results) == 0 {
		return nil, bad
	}
	if skipped > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d of the %d results the platform sent could not be read and were left out (%v).", skipped, len(c.Value), strings.TrimPrefix(bad.Error(), "search: ")))
	}
	if len(dropped) > 0 {
		out.Notes = append(out.Notes, sdk.DroppedNote("The platform", "results", dropped))
	}
	if refused != "" {
		out.Notes = append(out.Notes, "The platform refused to expand the documents' current version (HuidigeDocumentVersie; "+refused+"): the results carry no publication id, so a copy of one on Officiële Bekendmakingen may be listed as another document.")
	}
	out.HasMore = c.hasMore(a.Offset + len(c.Value))
	if a.Query != "" {
		out.Notes = append(out.Notes, "Words were matched in titles and subjects only: the Tweede Kamer API has no full-text search.")
	}
	return out, nil
}

// item normalises one search hit. Its url is the record's page on
// tweedekamer.nl (the same page tk_get_document cites for a document); the
// API's record or file is extra.tk.api_url or extra.tk.resource_url.
func item(base, entity string, r *record) sdk.Item {
	extra := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			extra[k] = v
		}
	}
	it := sdk.Item{ID: r.ID, Type: r.Soort, Organization: firstNonEmpty(r.Organisatie, Organization)}
	switch entity {
	case "Document":
		it.Title, it.Snippet = titleAndContext(r.Onderwerp, r.Titel)
		it.Title = firstNonEmpty(it.Title, r.Soort+" "+r.DocumentNummer, r.ID)
		it.Date = sdk.ISODate(r.Datum)
		it.URL = DocumentPageURL(r.DocumentNummer)
		extra["resource_url"] = ResourceURL(base, r.ID)
		set("document_nummer", r.DocumentNummer)
		it.Keys = sdk.DocKeys{TKDocument: r.DocumentNummer, Kamerstuk: r.kamerstukKey(), Publication: r.publicationKey()}.Map()
		set("votes", VotesHint(r.Soort, r.DocumentNummer, false))
		set("content_type", r.ContentType)
		if r.ContentLength != nil {
			extra["content_length"] = *r.ContentLength
		}
		if r.Kamer != nil {
			extra["kamer"] = *r.Kamer
		}
	case "Zaak":
		it.Title, it.Snippet = titleAndContext(r.Onderwerp, r.Titel)
		it.Title = firstNonEmpty(it.Title, r.Soort+" "+r.Nummer, r.ID)
		it.Date = sdk.ISODate(r.GestartOp)
		it.URL = ZaakPageURL(r.Nummer)
		extra["api_url"] = entityURL(base, "Zaak", r.ID)
		set("nummer", r.Nummer)
		set("votes", VotesHint(r.Soort, r.Nummer, true))
		set("status", r.Status)
		if r.Afgedaan != nil {
			extra["afgedaan"] = *r.Afgedaan
		}
	case "Activiteit":
		it.Title = firstNonEmpty(r.Onderwerp, r.Soort+" "+r.Nummer, r.ID)
		it.Date = sdk.ISODate(r.Datum)
		it.URL = ActivityPageURL(r.Nummer, r.Soort)
		extra["api_url"] = entityURL(base, "Activiteit", r.ID)
		it.Snippet = strings.Join(nonEmpty(r.Soort, r.Voortouwnaam, r.Status), " · ")
		set("nummer", r.Nummer)
		set("status", r.Status)
		set("voortouw", r.Voortouwnaam)
		set("voortouw_afkorting", r.Voortouwafkorting)
	}
	set("vergaderjaar", r.Vergaderjaar)
	it.Extra = map[string]map[string]any{ID: extra}
	return it
}

// titleAndContext picks Onderwerp as the title, since a document's Titel is
// mostly its dossier's title shared by hundreds of documents, and gives the
// Titel as context when it says something more.
func titleAndContext(onderwerp, titel string) (string, string) {
	onderwerp, titel = strings.TrimSpace(onderwerp), strings.TrimSpace(titel)
	if onderwerp == "" {
		return titel, ""
	}
	if titel == "" || strings.Contains(strings.ToLower(onderwerp), strings.ToLower(titel)) {
		return onderwerp, ""
	}
	return onderwerp, sdk.StripTags(titel)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}
