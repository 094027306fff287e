package ori

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Plugin returns the connector. URLs are built on the manifest's BaseURL;
// an admin's base_url override is applied by the host.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":             search,
			"get_document":       getDocument,
			"list_organizations": listOrganizations,
		},
	}
}

var keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,79}$`)

// IndexPattern is the index path for one organisation key, or ori_* for all.
//
// Index names are ori_<key>_<timestamp>, the timestamp starting with the
// year (ori_soest_20250629013104). The pattern ori_<key>_2* therefore
// matches one organisation even where another key extends it
// (ori_horst_* would also match ori_horst_aan_de_maas_…). The key is
// checked against a strict pattern, so the path needs no escaping; the
// wildcard stays a literal "*" as in the platform's own examples.
func IndexPattern(key string) (string, error) {
	if key == "" {
		return "ori_*", nil
	}
	if !keyPattern.MatchString(key) {
		return "", fmt.Errorf("argument \"organization\": %q is not an organisation key (lower-case letters, digits and _, e.g. \"den_helder\"); see ori_list_organizations", key)
	}
	return "ori_" + key + "_2*", nil
}

// SearchArgs are the arguments of ori_search.
type SearchArgs struct {
	Query        string `json:"query"`
	Organization string `json:"organization"`
	Type         string `json:"type"`
	DateFrom     string `json:"date_from"`
	DateTo       string `json:"date_to"`
	Sort         string `json:"sort"`
	Limit        int    `json:"limit"`
	Offset       int    `json:"offset"`
}

// types maps the type argument to ORI's @type values.
var types = map[string]string{"document": "MediaObject", "meeting": "Meeting", "agenda_item": "AgendaItem"}

// SearchRequest maps search arguments to the platform's request: the URL
// and the JSON body of a POST _search. Defaults are applied to a. The
// organisation is a key here; search resolves a name to one before.
func SearchRequest(base string, a *SearchArgs) (string, []byte, error) {
	if err := a.check(); err != nil {
		return "", nil, err
	}
	return a.request(base)
}

// check validates the arguments but the organisation's key, applying
// defaults, so a bad argument is refused before the organisation is
// looked up (or the user asked about it).
func (a *SearchArgs) check() error {
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" && a.Organization == "" {
		return fmt.Errorf("arguments: give query or organization (or both)")
	}
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	if a.Offset < 0 {
		return fmt.Errorf("argument \"offset\": %d is negative", a.Offset)
	}
	if a.Offset+a.Limit > MaxWindow {
		return fmt.Errorf("arguments: offset + limit = %d exceeds %d, the deepest ORI pages; narrow the search instead", a.Offset+a.Limit, MaxWindow)
	}
	if len(a.Query) > 500 {
		return fmt.Errorf("argument \"query\": longer than 500 characters")
	}
	for _, d := range []struct{ name, v string }{{"date_from", a.DateFrom}, {"date_to", a.DateTo}} {
		if d.v != "" && sdk.ISODate(d.v) != d.v {
			return fmt.Errorf("argument %q: %q is not an ISO date (YYYY-MM-DD)", d.name, d.v)
		}
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	if _, ok := types[a.Type]; a.Type != "" && !ok {
		return sdk.UnknownValue("type", a.Type, []string{"document", "meeting", "agenda_item"}, "")
	}
	if a.Sort == "" {
		a.Sort = "relevance"
		if a.Query == "" {
			a.Sort = "date_desc"
		}
	}
	if _, err := sortClause(a.Sort); err != nil {
		return err
	}
	return nil
}

// sortClause is Elasticsearch's sort for the sort argument.
func sortClause(s string) ([]any, error) {
	switch s {
	case "relevance":
		return []any{obj{"_score": obj{"order": "desc"}}}, nil
	case "date_desc", "date_asc":
		// unmapped_type keeps indexes without the field from failing the
		// whole search.
		order := strings.TrimPrefix(s, "date_")
		return []any{obj{"last_discussed_at": obj{"order": order, "unmapped_type": "date"}}, obj{"_score": obj{"order": "desc"}}}, nil
	}
	return nil, sdk.UnknownValue("sort", s, []string{"relevance", "date_desc", "date_asc"}, "")
}

// request builds the checked arguments' request.
func (a *SearchArgs) request(base string) (string, []byte, error) {
	typ := types[a.Type]
	sort, err := sortClause(a.Sort)
	if err != nil {
		return "", nil, err
	}
	index, err := IndexPattern(a.Organization)
	if err != nil {
		return "", nil, err
	}

	var must any = obj{"match_all": obj{}}
	if a.Query != "" {
		must = obj{"simple_query_string": obj{
			"query":            a.Query,
			"fields":           []string{"text", "title", "description", "name"},
			"default_operator": "and",
		}}
	}
	filter := []any{}
	if a.DateFrom != "" || a.DateTo != "" {
		r := obj{}
		if a.DateFrom != "" {
			r["gte"] = a.DateFrom
		}
		if a.DateTo != "" {
			r["lte"] = a.DateTo
		}
		filter = append(filter, obj{"range": obj{"last_discussed_at": r}})
	}
	if typ != "" {
		// @type is mapped dynamically: depending on the index it is a
		// keyword or a text field with a .keyword sub-field. A term on a
		// field that does not exist matches nothing, so asking both is safe.
		filter = append(filter, obj{"bool": obj{"should": []any{
			obj{"term": obj{"@type": typ}},
			obj{"term": obj{"@type.keyword": typ}},
		}, "minimum_should_match": 1}})
	}
	body := obj{
		"query":   obj{"bool": obj{"must": must, "filter": filter}},
		"_source": obj{"excludes": []string{"text", "md_text", "text_pages"}},
		"size":    a.Limit,
		"from":    a.Offset,
		"sort":    sort,
	}
	if a.Query != "" {
		body["highlight"] = obj{
			"pre_tags": []string{"<mark>"}, "post_tags": []string{"</mark>"},
			"fields":        obj{"text": obj{}, "title": obj{}, "name": obj{}, "description": obj{}},
			"fragment_size": 160, "number_of_fragments": 2,
		}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return "", nil, fmt.Errorf("search: encoding the request: %v", err)
	}
	return strings.TrimRight(base, "/") + "/" + index + "/_search", b, nil
}

// obj keeps request bodies readable; encoding/json sorts its keys, so the
// same arguments always give the same body (and the same cache key).
type obj = map[string]any

type searchResponse struct {
	// timed_out, _shards, _score and highlight are optional: their shape
	// changing costs a note or a snippet, never the search.
	TimedOut soft[bool]    `json:"timed_out"`
	Shards   soft[*shards] `json:"_shards"`
	Hits     *struct {
		Total json.RawMessage `json:"total"`
		Hits  []hit           `json:"hits"`
	} `json:"hits"`
}

type shards struct {
	Total  int `json:"total"`
	Failed int `json:"failed"`
}

type hit struct {
	Index     string                    `json:"_index"`
	ID        string                    `json:"_id"`
	Score     soft[*float64]            `json:"_score"`
	Source    map[string]any            `json:"_source"`
	Highlight soft[map[string][]string] `json:"highlight"`
}

// total reads hits.total in both ES 7 forms: {"value":n,"relation":"eq"}
// and a bare number.
func total(raw json.RawMessage) (*int, bool) {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return &n, false
	}
	var t struct {
		Value    *int   `json:"value"`
		Relation string `json:"relation"`
	}
	if json.Unmarshal(raw, &t) == nil && t.Value != nil {
		return t.Value, t.Relation == "gte"
	}
	return nil, false
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	// A name is resolved to a key, asking the user when it fits several
	// organisations; the list read for it also names the results.
	var names *orgNames
	var orgNotes []string
	if a.Organization != "" {
		keys, n, notes, err := resolveOrganization(ctx, h, a.Organization, true)
		if err != nil {
			return nil, err
		}
		a.Organization, names, orgNotes = keys[0], &n, notes
	}
	u, body, err := a.request(BaseURL)
	if err != nil {
		return nil, err
	}
	resp, err := h.Fetch(ctx, connector.FetchRequest{
		Method: "POST", URL: u, Body: body, Header: map[string]string{"Content-Type": "application/json"},
		Service: Service, Cost: 1, CacheClass: connector.ClassSearch,
	})
	if err != nil {
		return nil, fetchErr("search", err)
	}
	var sr searchResponse
	if err := decode("search", resp, &sr); err != nil {
		return nil, err
	}
	if sr.Hits == nil || sr.Hits.Hits == nil {
		return nil, fmt.Errorf("search: the platform's response lacks hits.hits")
	}
	sh := sr.Shards.V
	if a.Organization != "" && sh != nil && sh.Total == 0 {
		return nil, fmt.Errorf("search: organization %q matches no ORI index; take a key from ori_list_organizations", a.Organization)
	}
	out := sdk.SearchResult{Platform: ID, Offset: a.Offset, Results: []sdk.Item{}, Notes: orgNotes}
	out.Total, out.TotalIsApproximate = total(sr.Hits.Total)
	var noID, noSnippet, noScore int
	var snippetErr, scoreErr error
	if names == nil && len(sr.Hits.Hits) > 0 {
		n := lookupNames(ctx, h)
		names = &n
	}
	if names == nil {
		names = &orgNames{}
	}
	for _, h := range sr.Hits.Hits {
		if h.ID == "" {
			noID++
			continue
		}
		if h.Highlight.Err != nil {
			noSnippet, snippetErr = noSnippet+1, h.Highlight.Err
		}
		if h.Score.Err != nil {
			noScore, scoreErr = noScore+1, h.Score.Err
		}
		out.Results = append(out.Results, hitItem(h, *names))
	}
	if noID > 0 && len(out.Results) == 0 {
		return nil, fmt.Errorf("search: every hit of the platform is without _id (%d of %d)", noID, len(sr.Hits.Hits))
	}
	if seen := a.Offset + len(sr.Hits.Hits); out.Total != nil {
		out.HasMore = seen < *out.Total && seen < MaxWindow
	} else {
		out.HasMore = len(sr.Hits.Hits) == a.Limit
	}
	switch {
	case sr.TimedOut.Err != nil || sr.Shards.Err != nil:
		out.Notes = append(out.Notes, "Elasticsearch's report of timeouts and failed shards is unreadable: these results may be incomplete.")
	case sr.TimedOut.V || (sh != nil && sh.Failed > 0):
		out.Notes = append(out.Notes, "Elasticsearch reports a timeout or failed shards: these results may be incomplete.")
	}
	if noID > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d hit(s) without an ORI id (_id) are left out.", noID))
	}
	if noSnippet > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("The snippets of %d hit(s) are left out: Elasticsearch's highlight is unreadable (%v).", noSnippet, snippetErr))
	}
	if noScore > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("The scores of %d hit(s) are left out: Elasticsearch's _score is unreadable (%v).", noScore, scoreErr))
	}
	if note := names.note(); note != "" && len(out.Results) > 0 {
		out.Notes = append(out.Notes, note)
	}
	if note := sunsetNote(resp); note != "" {
		out.Notes = append(out.Notes, note)
	}
	return out, nil
}

// hitItem normalises one hit, which has an _id. Source fields vary by
// @type, so _source is read as a map. The organisation is named as people
// name it, its key (what the organization argument takes) kept in extra.
func hitItem(h hit, names orgNames) sdk.Item {
	s := h.Source
	key := IndexKey(h.Index)
	extra := map[string]any{"index": h.Index, "organization_key": key}
	if h.Score.V != nil {
		extra["score"] = *h.Score.V
	}
	for _, k := range []string{"content_type", "file_name", "size_in_bytes", "is_referenced_by", "has_organization_name", "classification"} {
		if v, ok := s[k]; ok && v != nil && v != "" {
			extra[k] = v
		}
	}
	citeExtra(extra, s, h.ID)
	var frags []string
	for _, f := range []string{"text", "description", "name", "title"} {
		for _, fr := range h.Highlight.V[f] {
			frags = append(frags, strings.Join(strings.Fields(sdk.StripTags(fr)), " "))
		}
	}
	return sdk.Item{
		ID: h.ID, Type: str(s, "@type"), Title: title(s, h.ID), Date: date(s), Organization: names.name(key),
		Snippet: clip(strings.Join(frags, " … "), 600), URL: citeURL(s), Extra: map[string]map[string]any{ID: extra},
		Keys: sdk.DocKeys{SourceURL: str(s, "original_url")}.Map(),
	}
}

var indexName = regexp.MustCompile(`^ori_(.+?)_[0-9]{8,}$`)

// IndexKey is the organisation key of a concrete index name:
// ori_den_helder_20190507105200 → den_helder.
func IndexKey(index string) string {
	if m := indexName.FindStringSubmatch(index); m != nil {
		return m[1]
	}
	return strings.TrimPrefix(index, "ori_")
}

func str(s map[string]any, k string) string {
	v, _ := s[k].(string)
	return strings.TrimSpace(v)
}

func title(s map[string]any, id string) string {
	for _, k := range []string{"name", "title", "file_name"} {
		if v := str(s, k); v != "" {
			return v
		}
	}
	return "ORI item " + id
}

func date(s map[string]any) string {
	for _, k := range []string{"last_discussed_at", "start_date", "date_modified"} {
		if d := sdk.ISODate(str(s, k)); d != "" {
			return d
		}
	}
	return ""
}

// citeURL is the link for citation: the supplier's original, on https.
// ORI has no page of its own for an item (its id URI answers RDF, its
// resolver and API are for programs) and no human page of the platform
// will outlive its switch-off; the supplier's page or file (iBabs, Notubiz,
// …) does. Without an https original the url stays empty and the links
// there are in extra.ori ([citeExtra]). search and get_document read
// the same fields, so they cite the same link.
func citeURL(s map[string]any) string {
	if u := str(s, "original_url"); strings.HasPrefix(u, "https://") {
		return u
	}
	return ""
}

// citeExtra adds the links that are not the citation: an original on
// http, ORI's cached copy (the resolver) and the item's id URI.
func citeExtra(extra, s map[string]any, id string) {
	if u := str(s, "original_url"); strings.HasPrefix(u, "http://") {
		extra["original_url"] = u
	}
	if u := str(s, "url"); u != "" {
		extra["resolver_url"] = u
	}
	extra["id_uri"] = "https://id.openraadsinformatie.nl/" + id
}

// sunsetNote passes on a deprecation announcement the platform sends in
// its response headers (the migration guide promised one).
func sunsetNote(r connector.FetchResponse) string {
	for _, name := range []string{"Sunset", "Deprecation"} {
		for k, v := range r.Header {
			if strings.EqualFold(k, name) {
				return "The platform announces its end (" + name + ": " + clip(v, 100) + "); prefer the obv connector."
			}
		}
	}
	return ""
}
