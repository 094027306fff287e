package openarchivaris

// This file is the whole request/response mapping of the connector, and
// none of it is verified: Open Archivaris publishes no API documentation
// and none was found in public code. Paths, parameter names and field
// names below are the best available guess (a conventional JSON search
// API, field names in English or Dutch); readers accept several spellings
// so a close guess still works, and anything else is reported as
// [ErrUnverifiedMapping]. When the live API is observed, change this file
// and its tests only.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
)

// BaseURL is the platform's site (verified); the API is assumed to live
// under it.
const BaseURL = "https://openarchivaris.nl"

// Assumed endpoints (UNVERIFIED).
const (
	searchPath      = "/api/search"
	documentPath    = "/api/documents/"
	governmentsPath = "/api/governments"
)

// Assumed query parameter names (UNVERIFIED).
const (
	paramQuery          = "q"
	paramGovernmentType = "type"
	paramGovernment     = "government"
	paramDateFrom       = "date_from"
	paramDateTo         = "date_to"
	paramMinPages       = "min_pages"
	paramMaxPages       = "max_pages"
	paramOffset         = "offset"
	paramLimit          = "limit"
)

// Field names read from answers, most likely first (UNVERIFIED).
var (
	listKeys    = []string{"results", "items", "documents", "hits", "data"}
	totalKeys   = []string{"total", "totalCount", "total_count", "count", "aantal"}
	hasMoreKeys = []string{"hasMore", "has_more"}
	idKeys      = []string{"id", "documentId", "document_id", "uuid", "key"}
	titleKeys   = []string{"title", "titel", "name", "naam"}
	dateKeys    = []string{"date", "datum", "documentDate", "document_date", "created", "published"}
	orgKeys     = []string{"government", "overheid", "organization", "organisation", "organisatie", "source", "bron"}
	orgTypeKeys = []string{"governmentType", "government_type", "type", "soort", "organizationType"}
	snippetKeys = []string{"snippet", "highlight", "summary", "samenvatting", "excerpt"}
	urlKeys     = []string{"url", "sourceUrl", "source_url", "originalUrl", "original_url", "link"}
	authorKeys  = []string{"author", "auteur"}
	pagesKeys   = []string{"pages", "pageCount", "page_count", "paginas"}
	textKeys    = []string{"text", "content", "markdown", "tekst", "inhoud", "fullText", "full_text"}
	errorKeys   = []string{"error", "message", "detail", "fout"}
	// A government's name may be under a title-like or an
	// organisation-like key.
	govNameKeys = []string{"name", "naam", "title", "titel", "label", "government", "overheid"}
)

// ErrUnverifiedMapping marks an answer whose shape differs from what this
// connector assumes; the message names what was missing.
var ErrUnverifiedMapping = errors.New("Open Archivaris answered in a shape this connector does not know (its API mapping is unverified: plugins/openarchivaris/mapping.go)")

// SearchURL maps checked search arguments to the assumed search request.
func SearchURL(base string, a SearchArgs) string {
	q := url.Values{}
	q.Set(paramQuery, a.Query)
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set(paramGovernmentType, a.GovernmentType)
	set(paramGovernment, a.Government)
	set(paramDateFrom, a.DateFrom)
	set(paramDateTo, a.DateTo)
	if a.MinPages > 0 {
		q.Set(paramMinPages, strconv.Itoa(a.MinPages))
	}
	if a.MaxPages > 0 {
		q.Set(paramMaxPages, strconv.Itoa(a.MaxPages))
	}
	q.Set(paramLimit, strconv.Itoa(a.Limit))
	if a.Offset > 0 {
		q.Set(paramOffset, strconv.Itoa(a.Offset))
	}
	return strings.TrimRight(base, "/") + searchPath + "?" + q.Encode()
}

// DocumentURL is the assumed request for one document's metadata and text.
func DocumentURL(base, id string) string {
	return strings.TrimRight(base, "/") + documentPath + url.PathEscape(id)
}

// GovernmentsURL is the assumed request for the list of governments,
// optionally of one type.
func GovernmentsURL(base, governmentType string) string {
	u := strings.TrimRight(base, "/") + governmentsPath
	if governmentType != "" {
		u += "?" + url.Values{paramGovernmentType: {governmentType}}.Encode()
	}
	return u
}

// record is one document or government as read from an answer.
type record struct {
	ID, Title, Date, Organization, OrgType, Snippet, URL, Author, Text string
	Pages                                                              int
}

// searchPage is a decoded search answer.
type searchPage struct {
	Records []record
	Total   *int
	HasMore *bool
	// Skipped counts results that are not readable records (not an
	// object, or without an id); FirstSkipped says why the first is not.
	Skipped      int
	FirstSkipped error
}

// decodeSearch reads a search answer: an object holding a list of records
// (or a bare list), with an optional total and has-more flag.
func decodeSearch(body []byte) (searchPage, error) {
	obj, list, err := topLevel(body)
	if err != nil {
		return searchPage{}, err
	}
	var p searchPage
	if obj != nil {
		if n, ok := pickNumber(obj, totalKeys); ok {
			p.Total = &n
		}
		if b, ok := pick(obj, hasMoreKeys).(bool); ok {
			p.HasMore = &b
		}
	}
	for i, v := range list {
		var r record
		m, ok := v.(map[string]any)
		if !ok {
			err = fmt.Errorf("%w: result %d is not an object", ErrUnverifiedMapping, i+1)
		} else if r, err = readRecord(m); err != nil {
			err = fmt.Errorf("result %d: %w", i+1, err)
		}
		if err != nil {
			if p.Skipped++; p.FirstSkipped == nil {
				p.FirstSkipped = err
			}
			continue
		}
		p.Records = append(p.Records, r)
	}
	if len(p.Records) == 0 && p.FirstSkipped != nil {
		// Not one readable record: the mapping, not a record, is wrong.
		return searchPage{}, p.FirstSkipped
	}
	return p, nil
}

// decodeDocument reads a document answer: the record itself, or the record
// under "document"/"data". Only the keys above are decoded (decode.go).
func decodeDocument(body []byte) (record, error) {
	m, wrapper, err := decodeRecordFields(body)
	if err != nil {
		return record{}, fmt.Errorf("%w: not a JSON object (%v)", ErrUnverifiedMapping, err)
	}
	return readRecordOf(m, func() string { return answerKeys(body, wrapper) })
}

// decodeGovernments reads the list of governments; a government needs a
// name, its id defaults to the name.
func decodeGovernments(body []byte) ([]record, error) {
	_, list, err := topLevel(body)
	if err != nil {
		return nil, err
	}
	var out []record
	for i, v := range list {
		var r record
		switch t := v.(type) {
		case string: // a bare list of names
			r = record{ID: t, Title: t}
		case map[string]any:
			r = record{ID: pickString(t, idKeys), Title: pickString(t, govNameKeys), OrgType: pickString(t, orgTypeKeys)}
		}
		if r.Title == "" {
			return nil, fmt.Errorf("%w: government %d has no name (looked for %s)", ErrUnverifiedMapping, i+1, strings.Join(govNameKeys, ", "))
		}
		if r.ID == "" {
			r.ID = r.Title
		}
		out = append(out, r)
	}
	return out, nil
}

// citeURL is the page a person opens for a record: the record's own link
// when it is on https, absolute or relative to the site (the site's
// pages; an /api/ path is not one). Open Archivaris's page format for a
// document is unknown (no public page, code or issue shows one; the site
// is a single-page app), so a record without such a link has no url
// rather than a guessed one: the assumed API address, and a link on
// http, are in extra.openarchivaris ([citeExtra]).
func citeURL(r record) string {
	u := r.URL
	if strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//") {
		if strings.HasPrefix(u, "/api/") {
			return ""
		}
		u = strings.TrimRight(BaseURL, "/") + u
	}
	if strings.HasPrefix(u, "https://") {
		return u
	}
	return ""
}

// citeExtra adds the links that are not the citation: the document's
// assumed API address (what get_document reads) and a link on http.
func citeExtra(extra map[string]any, r record) {
	extra["api_url"] = DocumentURL(BaseURL, r.ID)
	if strings.HasPrefix(r.URL, "http://") {
		extra["source_url"] = r.URL
	}
}

// errorDetail is the platform's own message from an error answer.
func errorDetail(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		switch v := pick(m, errorKeys).(type) {
		case string:
			return v
		case map[string]any:
			if s := pickString(v, errorKeys); s != "" {
				return s
			}
		}
	}
	s := strings.Join(strings.Fields(sdk.StripTags(string(body[:min(len(body), 600)]))), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// topLevel finds the list of an answer: the answer itself when it is an
// array, else the first list under listKeys.
func topLevel(body []byte) (map[string]any, []any, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, nil, fmt.Errorf("%w: not JSON (%v)", ErrUnverifiedMapping, err)
	}
	switch t := v.(type) {
	case []any:
		return nil, t, nil
	case map[string]any:
		for _, k := range listKeys {
			if l, ok := t[k].([]any); ok {
				return t, l, nil
			}
		}
		return nil, nil, fmt.Errorf("%w: no list under %s (the answer has %s)", ErrUnverifiedMapping, strings.Join(listKeys, ", "), keysOf(t))
	default:
		return nil, nil, fmt.Errorf("%w: the answer is a JSON %T, not an object or list", ErrUnverifiedMapping, v)
	}
}

func readRecord(m map[string]any) (record, error) {
	return readRecordOf(m, func() string { return keysOf(m) })
}

// readRecordOf is readRecord, the answer's keys listed by has when the
// record is unreadable.
func readRecordOf(m map[string]any, has func() string) (record, error) {
	r := record{
		ID: pickString(m, idKeys), Title: pickString(m, titleKeys), Date: sdk.ISODate(pickString(m, dateKeys)),
		Organization: pickString(m, orgKeys), OrgType: pickString(m, orgTypeKeys), Snippet: pickString(m, snippetKeys),
		URL: pickString(m, urlKeys), Author: pickString(m, authorKeys), Text: pickString(m, textKeys),
	}
	r.Pages, _ = pickNumber(m, pagesKeys)
	if r.ID == "" {
		return record{}, fmt.Errorf("%w: a document without an id (looked for %s; it has %s)", ErrUnverifiedMapping, strings.Join(idKeys, ", "), has())
	}
	return r, nil
}

func pick(m map[string]any, keys []string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

// pickString reads a text field; a list of strings (highlight fragments)
// is joined, an object with a name (a nested government) gives its name.
func pickString(m map[string]any, keys []string) string {
	switch v := pick(m, keys).(type) {
	case string:
		return strings.TrimSpace(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		var parts []string
		for _, p := range v {
			if s, ok := p.(string); ok {
				parts = append(parts, strings.TrimSpace(s))
			}
		}
		return strings.Join(parts, " … ")
	case map[string]any:
		return pickString(v, titleKeys)
	}
	return ""
}

func pickNumber(m map[string]any, keys []string) (int, bool) {
	switch v := pick(m, keys).(type) {
	case float64:
		return int(v), true
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	case map[string]any: // {"value": n} as Elasticsearch writes totals
		if f, ok := v["value"].(float64); ok {
			return int(f), true
		}
	}
	return 0, false
}

func keysOf(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return "no fields"
	}
	sort.Strings(ks)
	if len(ks) > 12 {
		ks = append(ks[:12], "…")
	}
	return "fields " + strings.Join(ks, ", ")
}
