package openarchivaris

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// Plugin returns the connector. The request/response mapping is in
// mapping.go; this file checks arguments, fetches and normalises.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":           search,
			"get_document":     getDocument,
			"list_governments": listGovernments,
		},
	}
}

var (
	typePattern = regexp.MustCompile(`^[a-z][a-z_ -]{1,39}$`)
	idPattern   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)
)

// SearchArgs are the arguments of openarchivaris_search.
type SearchArgs struct {
	Query          string `json:"query"`
	GovernmentType string `json:"government_type"`
	Government     string `json:"government"`
	DateFrom       string `json:"date_from"`
	DateTo         string `json:"date_to"`
	MinPages       int    `json:"min_pages"`
	MaxPages       int    `json:"max_pages"`
	Limit          int    `json:"limit"`
	Offset         int    `json:"offset"`
}

// Check validates the arguments and applies the defaults.
func (a *SearchArgs) Check() error {
	a.Query = strings.TrimSpace(a.Query)
	a.Government = strings.TrimSpace(a.Government)
	switch {
	case a.Query == "":
		return fmt.Errorf("argument \"query\": empty")
	case len(a.Query) > 500:
		return fmt.Errorf("argument \"query\": longer than 500 characters")
	case a.GovernmentType != "" && !typePattern.MatchString(a.GovernmentType):
		return fmt.Errorf("argument \"government_type\": %q is not a type of government like gemeente or waterschap", a.GovernmentType)
	case len(a.Government) > 120:
		return fmt.Errorf("argument \"government\": longer than 120 characters")
	case a.MinPages < 0:
		return fmt.Errorf("argument \"min_pages\": %d is negative", a.MinPages)
	case a.MaxPages < 0:
		return fmt.Errorf("argument \"max_pages\": %d is negative", a.MaxPages)
	case a.MinPages > 0 && a.MaxPages > 0 && a.MinPages > a.MaxPages:
		return fmt.Errorf("arguments: min_pages %d is above max_pages %d", a.MinPages, a.MaxPages)
	case a.Offset < 0 || a.Offset > 10000:
		return fmt.Errorf("argument \"offset\": %d is outside 0…10000", a.Offset)
	}
	for _, d := range []struct{ name, v string }{{"date_from", a.DateFrom}, {"date_to", a.DateTo}} {
		if d.v != "" && sdk.ISODate(d.v) != d.v {
			return fmt.Errorf("argument %q: %q is not an ISO date (YYYY-MM-DD)", d.name, d.v)
		}
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	return nil
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := a.Check(); err != nil {
		return nil, err
	}
	body, err := fetch(ctx, h, "search", SearchURL(BaseURL, a), connector.ClassSearch)
	if err != nil {
		return nil, err
	}
	p, err := decodeSearch(body)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := sdk.SearchResult{Platform: ID, Total: p.Total, Offset: a.Offset, Results: []sdk.Item{}}
	words := queryWords(a.Query)
	dropped, lacking := 0, map[string]bool{}
	for _, r := range p.Records {
		if miss := missingWords(words, r); len(miss) > 0 {
			dropped++
			for _, w := range miss {
				lacking[w] = true
			}
			continue
		}
		out.Results = append(out.Results, item(r))
	}
	sent := len(out.Results) + dropped + p.Skipped
	switch {
	case p.HasMore != nil:
		out.HasMore = *p.HasMore
	case p.Total != nil:
		out.HasMore = a.Offset+sent < *p.Total
	default:
		out.HasMore = sent == a.Limit
		out.Notes = append(out.Notes, "Open Archivaris gave no total; has_more is inferred from a full page.")
	}
	if dropped > 0 {
		ws := make([]string, 0, len(lacking))
		for _, w := range words {
			if lacking[w] {
				ws = append(ws, w)
				delete(lacking, w)
			}
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%d of the %d results Open Archivaris sent are left out: their title, author and snippet lack %s, and every word of the query must occur (the platform ranks by how many words a document holds, so it also sends documents with only some). Fewer words find more.", dropped, dropped+len(out.Results), strings.Join(ws, ", ")))
	}
	if p.Skipped > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d result(s) Open Archivaris sent in an unreadable shape are left out (%v).", p.Skipped, p.FirstSkipped))
	}
	if sent > a.Limit {
		out.Notes = append(out.Notes, fmt.Sprintf("Open Archivaris returned %d results for limit %d: it may not support the limit parameter this connector assumes.", sent, a.Limit))
	}
	out.Notes = append(out.Notes, "This connector's mapping of the Open Archivaris API is unverified; check results against the linked documents.")
	return out, nil
}

// Open Archivaris ranks a document by how many of the query's words it
// holds, and sends documents that hold only some ("Fietsstrategie Zwolle
// 2025" for "parlementaire enquête uitvoering en herstel"), while every
// search here promises that all words occur. The connector keeps that
// promise on what a result shows: a result whose title, author,
// organisation, snippet and text (folded: case, diacritics) lack a word
// is left out, and the result says how many and which words. A
// one-word query is left alone: the platform matched that word, or what
// it takes for a synonym of it.

// queryWords are the folded words of a query of two words or more, each
// once, in order; nil for one word.
func queryWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(sdk.Folded(q)) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// missingWords are the words r shows nowhere. A word may be part of a
// longer one ("enquête" in "enquêtecommissie"), as Dutch compounds are.
func missingWords(words []string, r record) []string {
	if len(words) == 0 {
		return nil
	}
	hay := " " + sdk.Folded(strings.Join([]string{r.Title, r.Author, r.Organization, sdk.StripTags(r.Snippet), r.Text}, " ")) + " "
	var miss []string
	for _, w := range words {
		if !strings.Contains(hay, w) {
			miss = append(miss, w)
		}
	}
	return miss
}

// item normalises a record.
func item(r record) sdk.Item {
	extra := map[string]any{}
	if r.Author != "" {
		extra["author"] = r.Author
	}
	if r.Pages > 0 {
		extra["pages"] = r.Pages
	}
	if r.OrgType != "" {
		extra["government_type"] = r.OrgType
	}
	citeExtra(extra, r)
	it := sdk.Item{
		ID: r.ID, Type: "document", Title: r.Title, Date: r.Date, Organization: orgLabel(r.Organization, r.OrgType),
		Snippet: strings.Join(strings.Fields(sdk.StripTags(r.Snippet)), " "), URL: citeURL(r),
		Keys: sdk.DocKeys{SourceURL: r.URL}.Map(),
	}
	if it.Title == "" {
		it.Title = "Document " + r.ID
	}
	it.Extra = map[string]map[string]any{ID: extra}
	return it
}

// docHead is what get_document keeps with a document's text: everything
// the result shows besides the page.
type docHead struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Title        string         `json:"title"`
	Date         string         `json:"date,omitempty"`
	Organization string         `json:"organization,omitempty"`
	URL          string         `json:"url,omitempty"`
	Extra        map[string]any `json:"extra,omitempty"`
}

func getDocument(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		ID   string `json:"id"`
		Page int    `json:"page"`
		Find string `json:"find"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	a.ID = strings.TrimSpace(a.ID)
	if c, ok := cite.Parse(a.ID); ok {
		return nil, c.Elsewhere(a.ID)
	}
	if !idPattern.MatchString(a.ID) {
		return nil, fmt.Errorf("argument \"id\": %q is not a document id from openarchivaris_search", a.ID)
	}
	var err error
	if a.Page, err = sdk.PageArg(a.Page); err != nil {
		return nil, err
	}
	// The document's URL is all that shapes its text, so it is the text's
	// key: the answer is decoded once, and later pages come from the host.
	u := DocumentURL(BaseURL, a.ID)
	extract := func(ctx context.Context) (docHead, string, error) { return extractDocument(ctx, h, u) }
	var doc sdk.TextOf[docHead]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, u, connector.ClassDocument, a.Find, nil, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, u, connector.ClassDocument, a.Page, extract)
	}
	if err != nil {
		return nil, err
	}
	hd := doc.Head
	d := sdk.Document{
		Platform: ID, ID: hd.ID, Type: hd.Type, Title: hd.Title, Date: hd.Date, Organization: hd.Organization, URL: hd.URL,
		Format: "text", Page: doc.Page, Pages: doc.Pages, Text: doc.Text, Find: doc.Found,
	}
	if len(hd.Extra) > 0 {
		d.Extra = map[string]map[string]any{ID: hd.Extra}
	}
	return d, nil
}

// extractDocument fetches a document and reads its head and text.
func extractDocument(ctx context.Context, h connector.Host, u string) (docHead, string, error) {
	body, err := fetch(ctx, h, "get_document", u, connector.ClassDocument)
	if err != nil {
		return docHead{}, "", err
	}
	r, err := decodeDocument(body)
	if err != nil {
		return docHead{}, "", fmt.Errorf("get_document: %w", err)
	}
	text := r.Text
	if strings.Contains(text, "<") && strings.Contains(text, ">") {
		text = strings.TrimSpace(sdk.StripTags(text))
	}
	if strings.TrimSpace(text) == "" {
		text = "(Open Archivaris gave no text for this document through the assumed API; open its url, where it has one, to read it.)"
	}
	it := item(r)
	return docHead{ID: r.ID, Type: it.Type, Title: it.Title, Date: it.Date, Organization: it.Organization, URL: it.URL, Extra: it.Extra[ID]}, text, nil
}

// orgLabel is a result's organisation as every council platform's
// results name it ([orgname.ResultLabel]): "Gemeente Bergen (L.)" is
// "Gemeente Bergen (Limburg)".
func orgLabel(name, govType string) string {
	if l := orgname.ResultLabel(name, govType, ""); l != "" {
		return l
	}
	return name
}

func listGovernments(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		GovernmentType string `json:"government_type"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.GovernmentType != "" && !typePattern.MatchString(a.GovernmentType) {
		return nil, fmt.Errorf("argument \"government_type\": %q is not a type of government like gemeente or waterschap", a.GovernmentType)
	}
	body, err := fetch(ctx, h, "list_governments", GovernmentsURL(BaseURL, a.GovernmentType), connector.ClassList)
	if err != nil {
		return nil, err
	}
	recs, err := decodeGovernments(body)
	if err != nil {
		return nil, fmt.Errorf("list_governments: %w", err)
	}
	out := sdk.ListResult{Platform: ID, List: "governments", Items: []sdk.Item{}}
	for _, r := range recs {
		out.Items = append(out.Items, sdk.Item{ID: r.ID, Type: r.OrgType, Title: r.Title, Organization: r.Title})
	}
	out.Count = len(out.Items)
	return out, nil
}

// fetch performs a GET and returns a JSON body, or an error that names the
// step and, for an answer that is not the assumed API, says so.
func fetch(ctx context.Context, h connector.Host, what, u, class string) ([]byte, error) {
	resp, err := sdk.Get(ctx, h, u, Service, 1, class)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	body := resp.Body
	htmlPage := strings.HasPrefix(strings.TrimSpace(string(body[:min(len(body), 100)])), "<")
	switch {
	case resp.Status == 404 && (htmlPage || len(body) == 0):
		return nil, fmt.Errorf("%s: %w: HTTP 404 for %s, so the assumed endpoint may not exist", what, ErrUnverifiedMapping, u)
	case resp.Status == 404:
		return nil, fmt.Errorf("%s: not found (HTTP 404): %s", what, errorDetail(body))
	case resp.Status == 429:
		return nil, fmt.Errorf("%s: Open Archivaris refused the call as too many (HTTP 429): %s", what, errorDetail(body))
	case resp.Status < 200 || resp.Status > 299:
		return nil, fmt.Errorf("%s: Open Archivaris answered HTTP %d: %s", what, resp.Status, errorDetail(body))
	case htmlPage:
		return nil, fmt.Errorf("%s: %w: an HTML page came back where JSON was expected (%s)", what, ErrUnverifiedMapping, errorDetail(body))
	}
	return body, nil
}

// IsUnverifiedMapping reports whether err says the platform's answer did
// not fit the assumed API.
func IsUnverifiedMapping(err error) bool { return errors.Is(err, ErrUnverifiedMapping) }
