package opentk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/url"
	"slices"
	"sort"
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
			"search":          search,
			"get_document":    getDocument,
			"list_committees": listCommittees,
			"list_members":    listMembers,
		},
	}
}

// SearchArgs are the arguments of opentk_search.
type SearchArgs struct {
	Query         string `json:"query"`
	Kind          string `json:"kind"`
	LastTwoMonths bool   `json:"last_two_months"`
	Category      string `json:"category"`
	DateFrom      string `json:"date_from"`
	DateTo        string `json:"date_to"`
	Sort          string `json:"sort"`
	Limit         int    `json:"limit"`
	Offset        int    `json:"offset"`
}

// soorten maps the kind argument to OpenTK's soorten form field.
var soorten = map[string]string{"all": "alles", "motions": "moties", "questions": "vragenantwoorden", "activities": "activiteiten"}

var categories = map[string]bool{"Document": true, "Activiteit": true, "Verslag": true, "Toezegging": true, "PersoonGeschenk": true, "OODocument": true}

// Boundary is the fixed multipart boundary: equal searches must be equal
// requests, byte for byte, so the host's cache recognises them.
const Boundary = "besluitbron-opentk-form"

// check validates the arguments and applies the defaults.
func (a *SearchArgs) check() error {
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return fmt.Errorf("argument \"query\": empty; OpenTK cannot list without a query")
	}
	if len(a.Query) > 500 {
		return fmt.Errorf("argument \"query\": longer than 500 characters")
	}
	if a.Kind == "" {
		a.Kind = "all"
	}
	if soorten[a.Kind] == "" {
		return sdk.UnknownValue("kind", a.Kind, []string{"all", "motions", "questions", "activities"}, "")
	}
	if a.Category != "" && !categories[a.Category] {
		return sdk.UnknownValue("category", a.Category, []string{"Document", "Activiteit", "Verslag", "Toezegging", "PersoonGeschenk", "OODocument"}, "")
	}
	for _, d := range []struct{ name, v string }{{"date_from", a.DateFrom}, {"date_to", a.DateTo}} {
		if d.v != "" && sdk.ISODate(d.v) != d.v {
			return fmt.Errorf("argument %q: %q is not an ISO date (YYYY-MM-DD)", d.name, d.v)
		}
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	if a.Sort == "" {
		a.Sort = "date_desc"
	}
	switch a.Sort {
	case "date_desc", "date_asc", "relevance", "indexed":
	default:
		return sdk.UnknownValue("sort", a.Sort, []string{"date_desc", "date_asc", "relevance", "indexed"}, "")
	}
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	if a.Offset < 0 || a.Offset >= MaxRows {
		return fmt.Errorf("argument \"offset\": %d is outside 0…%d; OpenTK returns at most %d rows", a.Offset, MaxRows-1, MaxRows)
	}
	return nil
}

// SearchForm is the platform's request for a search: the URL, the
// multipart body and its Content-Type. Defaults are applied to a. Only
// query, kind and last_two_months reach OpenTK; the rest is applied by
// [Slice].
func SearchForm(base string, a *SearchArgs) (string, []byte, string, error) {
	if err := a.check(); err != nil {
		return "", nil, "", err
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(Boundary); err != nil {
		return "", nil, "", fmt.Errorf("search: %v", err)
	}
	two := "false"
	if a.LastTwoMonths {
		two = "true"
	}
	for _, f := range [][2]string{{"q", a.Query}, {"twomonths", two}, {"soorten", soorten[a.Kind]}} {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return "", nil, "", fmt.Errorf("search: encoding the form: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		return "", nil, "", fmt.Errorf("search: encoding the form: %v", err)
	}
	return strings.TrimRight(base, "/") + "/search", buf.Bytes(), w.FormDataContentType(), nil
}

// Row is one row of OpenTK's search answer.
type Row struct {
	Nummer            string   `json:"nummer"`
	Datum             string   `json:"datum"`
	Score             *float64 `json:"score"`
	Category          string   `json:"category"`
	Onderwerp         string   `json:"onderwerp"`
	Titel             string   `json:"titel"`
	Soort             string   `json:"soort"`
	Snip              string   `json:"snip"`
	RelURL            string   `json:"relurl"`
	Bijgewerkt        string   `json:"bijgewerkt"`
	PersoonNummer     *int64   `json:"persoonnummer"`
	Verantwoordelijke string   `json:"verantwoordelijke"`
}

// searchResponse is OpenTK's search answer; rows and the timing are read
// one by one, so that one changed field fails neither the search nor its
// other rows.
type searchResponse struct {
	Results      []json.RawMessage `json:"results"`
	Milliseconds json.RawMessage   `json:"milliseconds"`
}

// Slice applies the connector-side filters, sort and window to the rows
// OpenTK returned, and reports how many rows matched the filters.
func Slice(rows []Row, a SearchArgs) ([]Row, int) {
	var kept []Row
	for _, r := range rows {
		if a.Category != "" && r.Category != a.Category {
			continue
		}
		d := sdk.ISODate(r.Datum)
		if (a.DateFrom != "" || a.DateTo != "") && d == "" {
			continue
		}
		if a.DateFrom != "" && d < a.DateFrom || a.DateTo != "" && d > a.DateTo {
			continue
		}
		kept = append(kept, r)
	}
	switch a.Sort {
	case "date_desc":
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].Datum > kept[j].Datum })
	case "date_asc":
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].Datum < kept[j].Datum })
	case "relevance":
		// bm25 scores are negative; more negative is better.
		sort.SliceStable(kept, func(i, j int) bool { return score(kept[i]) < score(kept[j]) })
	}
	n := len(kept)
	if a.Offset >= n {
		return []Row{}, n
	}
	return kept[a.Offset:min(n, a.Offset+a.Limit)], n
}

func score(r Row) float64 {
	if r.Score == nil {
		return 0
	}
	return *r.Score
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	u, body, ctype, err := SearchForm(BaseURL, &a)
	if err != nil {
		return nil, err
	}
	resp, err := h.Fetch(ctx, connector.FetchRequest{
		Method: "POST", URL: u, Body: body, Header: map[string]string{"Content-Type": ctype},
		Service: ServiceSearch, Cost: 1, CacheClass: connector.ClassSearch,
	})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if err := checkStatus("search", resp); err != nil {
		if resp.Status == 500 && strings.Contains(strings.ToLower(string(resp.Body)), "syntax") {
			return nil, fmt.Errorf("%w (check the query syntax: balanced quotes, AND/OR/NOT between words, NEAR(a b))", err)
		}
		return nil, err
	}
	var sr searchResponse
	if err := json.Unmarshal(resp.Body, &sr); err != nil {
		return nil, fmt.Errorf("search: OpenTK's answer is not the expected JSON (%v): %s", err, clip(strings.TrimSpace(string(resp.Body)), 120))
	}
	if sr.Results == nil {
		return nil, fmt.Errorf("search: OpenTK's answer lacks results")
	}
	rows, notes, err := readRows(sr.Results)
	if err != nil {
		return nil, err
	}
	returned := len(sr.Results)
	page, matched := Slice(rows, a)
	total := matched
	out := sdk.SearchResult{
		Platform: ID, Total: &total, HasMore: a.Offset+len(page) < matched, Offset: a.Offset, Results: []sdk.Item{},
		TotalIsApproximate: returned >= MaxRows,
	}
	for _, r := range page {
		out.Results = append(out.Results, rowItem(r))
	}
	out.Notes = append(out.Notes, fmt.Sprintf("OpenTK has no paging: it returned %d row(s) (at most %d); offset, limit and sort were applied by this connector to those rows.", returned, MaxRows))
	out.Notes = append(out.Notes, notes...)
	if returned >= MaxRows {
		out.Notes = append(out.Notes, "The search hit OpenTK's cap of 280 rows: older matches are missing and total counts only what was returned. Narrow the query (a \"phrase\", more words, kind, last_two_months) to reach them.")
	}
	if a.Category != "" || a.DateFrom != "" || a.DateTo != "" {
		out.Notes = append(out.Notes, fmt.Sprintf("category and date filters were applied by this connector to the %d returned rows; %d matched.", len(rows), matched))
	}
	var ms float64
	switch err := json.Unmarshal(sr.Milliseconds, &ms); {
	case len(sr.Milliseconds) == 0 || string(sr.Milliseconds) == "null":
	case err != nil:
		out.Notes = append(out.Notes, "OpenTK's answer gave its search time in an unexpected form, so whether it cut the search short under load is unknown.")
	case ms >= 950 && returned < MaxRows:
		out.Notes = append(out.Notes, fmt.Sprintf("The search took %.0f ms; OpenTK cuts searches short (to 1 or 2 s) when it is busy, so these results may be incomplete. Retrying later may give more.", ms))
	}
	return out, nil
}

// readRows decodes OpenTK's rows. A row without nummer or category cannot
// be read or cited and is left out, and a field of another type is left
// out of its row, each with a note; only when no row is readable is the
// answer an error.
func readRows(raws []json.RawMessage) ([]Row, []string, error) {
	rows := make([]Row, 0, len(raws))
	var bad error
	skipped := 0
	var dropped []string
	for i, raw := range raws {
		var r Row
		d, err := sdk.DecodeLenient(raw, &r, "nummer", "category")
		switch {
		case err != nil:
			err = fmt.Errorf("search: row %d of OpenTK's answer is not the expected object: %v", i+1, err)
		case r.Nummer == "" || r.Category == "":
			err = fmt.Errorf("search: row %d of OpenTK's answer lacks nummer or category", i+1)
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
		rows = append(rows, r)
	}
	if bad != nil && len(rows) == 0 {
		return nil, nil, bad
	}
	var notes []string
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d of the %d rows could not be read and were left out (%s).", skipped, len(raws), strings.TrimPrefix(bad.Error(), "search: ")))
	}
	if len(dropped) > 0 {
		notes = append(notes, sdk.DroppedNote("OpenTK", "rows", dropped))
	}
	return rows, notes, nil
}

// rowItem normalises one row.
func rowItem(r Row) sdk.Item {
	extra := map[string]any{}
	if r.Score != nil {
		extra["score"] = *r.Score
	}
	for k, v := range map[string]string{"titel": r.Titel, "soort": r.Soort, "bijgewerkt": r.Bijgewerkt, "verantwoordelijke": r.Verantwoordelijke} {
		if v != "" {
			extra[k] = v
		}
	}
	if r.PersoonNummer != nil && *r.PersoonNummer >= 0 {
		extra["persoonnummer"] = *r.PersoonNummer
	}
	extra["full_text"] = r.Category == "Document" || r.Category == "Verslag"
	org := "Tweede Kamer"
	if r.Category == "OODocument" {
		org = r.Verantwoordelijke
	}
	title := r.Onderwerp
	if title == "" {
		title = r.Titel
	}
	if title == "" {
		title = r.Category + " " + r.Nummer
	}
	return sdk.Item{
		ID: r.Nummer, Type: r.Category, Title: title, Date: sdk.ISODate(r.Datum), Organization: org,
		Snippet: strings.Join(strings.Fields(sdk.StripTags(r.Snip)), " "), URL: citeURL(BaseURL, r),
		Keys: rowKeys(r), Extra: map[string]map[string]any{ID: extra},
	}
}

// rowKeys are a row's document keys: a Document's number is the Tweede
// Kamer's (the platform mirrors its API), which tk_search gives too.
func rowKeys(r Row) map[string]string {
	if r.Category != "Document" {
		return nil
	}
	return sdk.DocKeys{TKDocument: r.Nummer}.Map()
}

// citeURL is the page a person opens for a row, the same page
// opentk_get_document cites for what it can read: a Document's
// document.html?nummer= (not the row's relurl, get/<nummer>, a second
// address for it: one document, one citation) and a Verslag's
// verslag.html?vergaderingid= ([PageURL]). Other rows have their own
// pages, named by relurl relative to the base; a missing or foreign
// relurl falls back to the document page.
func citeURL(base string, r Row) string {
	if u := PageURL(base, r.Category, r.Nummer); u != "" {
		return u
	}
	b, err := url.Parse(strings.TrimRight(base, "/") + "/")
	if err == nil && r.RelURL != "" && !strings.HasPrefix(r.RelURL, "get/") {
		if rel, err := url.Parse(r.RelURL); err == nil && rel.Host == "" && rel.Scheme == "" {
			return b.ResolveReference(rel).String()
		}
	}
	return strings.TrimRight(base, "/") + "/document.html?nummer=" + url.QueryEscape(r.Nummer)
}

// PageURL is OpenTK's page of a Document or a Verslag by its number (a
// Verslag's is its meeting id), the citation of opentk_search and
// opentk_get_document alike; "" for other categories.
func PageURL(base, category, nummer string) string {
	if nummer == "" {
		return ""
	}
	base = strings.TrimRight(base, "/")
	switch category {
	case "Document":
		return base + "/document.html?nummer=" + url.QueryEscape(nummer)
	case "Verslag":
		return base + "/verslag.html?vergaderingid=" + url.QueryEscape(nummer)
	}
	return ""
}

// checkStatus names OpenTK's own message for a non-2xx answer: its errors
// are small HTML ("<h1>Error 500</h1><p>…</p>") or plain text ("Found
// nothing!!").
func checkStatus(what string, r connector.FetchResponse) error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	return statusError(what, r.Status, string(r.Body[:min(len(r.Body), 2000)]))
}

// statusError is the error of a non-2xx answer with body.
func statusError(what string, status int, body string) error {
	detail := clip(strings.Join(strings.Fields(HTMLText(body[:min(len(body), 2000)])), " "), 300)
	if detail == "" {
		return fmt.Errorf("%s: OpenTK answered HTTP %d", what, status)
	}
	return fmt.Errorf("%s: OpenTK answered HTTP %d: %s", what, status, detail)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
