package rechtspraak

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Plugin returns the connector. It builds every URL on the manifest's
// BaseURL; when the admin overrides base_url, the host rewrites that prefix.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":               search,
			"get_document":         getDocument,
			"list_courts":          listCourts,
			"list_subjects":        listSubjects,
			"list_procedure_types": listProcedureTypes,
		},
	}
}

// SearchArgs are the arguments of rechtspraak_search. Court and Subject
// reach [SearchURL] as identifiers; search resolves names first.
type SearchArgs struct {
	Court        string `json:"court"`
	Subject      string `json:"subject"`
	Type         string `json:"type"`
	DateFrom     string `json:"date_from"`
	DateTo       string `json:"date_to"`
	ModifiedFrom string `json:"modified_from"`
	ModifiedTo   string `json:"modified_to"`
	WithText     *bool  `json:"with_text"`
	Sort         string `json:"sort"`
	Limit        int    `json:"limit"`
	Offset       int    `json:"offset"`
}

// freeTextKeys are argument names an assistant might try for words. The
// platform would silently ignore them and answer the whole corpus, so the
// connector refuses them with the reason rather than a bare "unknown field".
var freeTextKeys = []string{"query", "q", "text", "keyword", "keywords", "search"}

func (a *SearchArgs) validate() error {
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	if a.Offset < 0 || a.Offset > 10_000_000 {
		return fmt.Errorf("argument \"offset\": %d is outside 0…10000000", a.Offset)
	}
	var err error
	if a.Type, err = sdk.EnumValue("type", a.Type, []string{"Uitspraak", "Conclusie"}); err != nil {
		return err
	}
	if a.Sort, err = sdk.EnumValue("sort", a.Sort, sortOrders); err != nil {
		return err
	}
	for _, d := range []struct{ name, v string }{{"date_from", a.DateFrom}, {"date_to", a.DateTo}} {
		// An impossible date (2022-02-30) makes the platform answer non-XML.
		if d.v != "" && sdk.ISODate(d.v) != d.v {
			return fmt.Errorf("argument %q: %q is not a valid ISO date (YYYY-MM-DD)", d.name, d.v)
		}
	}
	if (a.DateFrom == "") != (a.DateTo == "") {
		missing := "date_to"
		if a.DateFrom == "" {
			missing = "date_from"
		}
		return fmt.Errorf("argument %q: give date_from and date_to together (for one day, the same date twice)", missing)
	}
	if a.DateFrom > a.DateTo {
		return fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	if a.ModifiedFrom, err = modifiedTime("modified_from", a.ModifiedFrom); err != nil {
		return err
	}
	if a.ModifiedTo, err = modifiedTime("modified_to", a.ModifiedTo); err != nil {
		return err
	}
	if a.ModifiedTo != "" && a.ModifiedFrom == "" {
		return fmt.Errorf("argument \"modified_from\": needed with modified_to")
	}
	if a.ModifiedTo != "" && a.ModifiedFrom > a.ModifiedTo {
		return fmt.Errorf("arguments: modified_from %s is after modified_to %s", a.ModifiedFrom, a.ModifiedTo)
	}
	return nil
}

// sortOrders are the orders search takes: the index's own by
// modification, and decision_desc, which [searchByDecision] builds.
var sortOrders = []string{"modified_desc", "modified_asc", "decision_desc"}

// modifiedTime normalises a modified bound to the platform's
// yyyy-mm-ddThh:mm:ss, a bare date meaning its midnight.
func modifiedTime(name, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if len(v) == 10 {
		v += "T00:00:00"
	}
	if _, err := time.Parse("2006-01-02T15:04:05", v); err != nil {
		return "", fmt.Errorf("argument %q: %q is not YYYY-MM-DD or YYYY-MM-DDThh:mm:ss", name, v)
	}
	return v, nil
}

// SearchURL validates the arguments (applying defaults to a) and maps them
// to the index request. Court and Subject must be identifiers by now.
func SearchURL(base string, a *SearchArgs) (string, error) {
	if err := a.validate(); err != nil {
		return "", err
	}
	q := url.Values{}
	if a.Court != "" {
		q.Set("creator", a.Court)
	}
	if a.Subject != "" {
		q.Set("subject", a.Subject)
	}
	if a.Type != "" {
		q.Set("type", a.Type)
	}
	// date once means that day, twice a range.
	if a.DateFrom != "" {
		q.Add("date", a.DateFrom)
		if a.DateTo != a.DateFrom {
			q.Add("date", a.DateTo)
		}
	}
	// modified once means since then, twice a range.
	if a.ModifiedFrom != "" {
		q.Add("modified", a.ModifiedFrom)
		if a.ModifiedTo != "" {
			q.Add("modified", a.ModifiedTo)
		}
	}
	if a.WithText == nil || *a.WithText {
		q.Set("return", "DOC")
	}
	if a.Sort == "modified_asc" {
		q.Set("sort", "ASC")
	} else {
		q.Set("sort", "DESC")
	}
	q.Set("max", strconv.Itoa(a.Limit))
	if a.Offset > 0 {
		q.Set("from", strconv.Itoa(a.Offset))
	}
	return strings.TrimRight(base, "/") + "/uitspraken/zoeken?" + q.Encode(), nil
}

type atomFeed struct {
	XMLName  xml.Name
	Subtitle *string `xml:"subtitle"`
	Entries  []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Summary string `xml:"summary"`
		Updated string `xml:"updated"`
	} `xml:"entry"`
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) == nil {
		for _, k := range freeTextKeys {
			if _, ok := keys[k]; ok {
				return nil, fmt.Errorf("argument %q: Rechtspraak open data has no free-text search; filter by court, subject, type and dates instead and judge the summaries", k)
			}
		}
	}
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := a.validate(); err != nil { // before any request, value lists included
		return nil, err
	}
	var err error
	if a.Court, err = resolve(ctx, h, courtsList, "court", a.Court); err != nil {
		return nil, err
	}
	if a.Subject, err = resolve(ctx, h, subjectsList, "subject", a.Subject); err != nil {
		return nil, err
	}
	if a.Sort == "decision_desc" {
		return searchByDecision(ctx, h, a)
	}
	f, err := fetchFeed(ctx, h, a)
	if err != nil {
		return nil, err
	}
	return normaliseFeed(f, a)
}

// fetchFeed asks the index for one page of a.
func fetchFeed(ctx context.Context, h connector.Host, a SearchArgs) (*atomFeed, error) {
	u, err := SearchURL(BaseURL, &a)
	if err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, u, ServiceSearch, 1, connector.ClassSearch)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if err := statusError(resp); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var f atomFeed
	if err := xml.Unmarshal(resp.Body, &f); err != nil {
		return nil, fmt.Errorf("search: the platform's response is not the expected Atom XML (an impossible date or filter value gives this too): %v", err)
	}
	if f.XMLName.Local != "feed" {
		return nil, fmt.Errorf("search: the platform answered <%s> where an Atom feed was expected", f.XMLName.Local)
	}
	return &f, nil
}

var (
	countRE = regexp.MustCompile(`([0-9][0-9.]*)\s*$`)
	// An entry title reads "ECLI, court, dd-mm-yyyy, case numbers".
	titleRE = regexp.MustCompile(`^\s*([^,]+),\s*(.*?),\s*([0-9]{2})-([0-9]{2})-([0-9]{4})(?:,\s*(.*?))?\s*$`)
)

func normaliseFeed(f *atomFeed, a SearchArgs) (sdk.SearchResult, error) {
	out := sdk.SearchResult{Platform: ID, Offset: a.Offset, Results: []sdk.Item{}}
	if f.Subtitle != nil {
		if m := countRE.FindStringSubmatch(*f.Subtitle); m != nil {
			if n, err := strconv.Atoi(strings.ReplaceAll(m[1], ".", "")); err == nil {
				out.Total = &n
			}
		}
	}
	var noID []string
	for i, e := range f.Entries {
		ecli := strings.TrimSpace(e.ID)
		if ecli == "" {
			// One odd entry costs that entry, named in a note.
			noID = append(noID, strconv.Itoa(a.Offset+i+1))
			continue
		}
		// The citation is built from the ECLI, not taken from the entry's
		// link: older entries link http://…/inziendocument, and
		// get_document must give the same page.
		item := sdk.Item{ID: ecli, Type: a.Type, Title: strings.TrimSpace(e.Title), URL: CitationURL(ecli), Keys: sdk.DocKeys{ECLI: ecli}.Map()}
		extra := map[string]any{}
		if m := titleRE.FindStringSubmatch(e.Title); m != nil {
			item.Organization = m[2]
			item.Date = sdk.ISODate(m[5] + "-" + m[4] + "-" + m[3])
			if m[6] != "" {
				extra["case_numbers"] = m[6]
			}
		}
		if s := strings.TrimSpace(e.Summary); s != "-" {
			item.Snippet = sdk.StripTags(s)
		}
		if d := sdk.ISODate(e.Updated); d != "" {
			extra["modified"] = d
		}
		if len(extra) > 0 {
			item.Extra = map[string]map[string]any{ID: extra}
		}
		out.Results = append(out.Results, item)
	}
	if len(noID) > 0 && len(out.Results) == 0 {
		return sdk.SearchResult{}, fmt.Errorf("search: none of the feed's %d entries has an id (ECLI)", len(noID))
	}
	next := a.Offset + len(f.Entries)
	if out.Total != nil {
		out.HasMore = len(f.Entries) > 0 && next < *out.Total
	} else {
		out.HasMore = len(f.Entries) == a.Limit
		out.Notes = append(out.Notes, "The platform did not report a total; has_more is a guess from a full page.")
	}
	if len(noID) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("Entries without an id (ECLI) are left out: entry %s.", strings.Join(noID, ", ")))
	}
	out.Notes = append(out.Notes, "Matched on metadata filters only: Rechtspraak open data has no free-text search. Ordered by last modification of the record, not by decision date (sort=decision_desc gives the newest decisions first).")
	return out, nil
}

// CitationURL is the page a person opens for a decision: its page on
// uitspraken.rechtspraak.nl, on https, the same from search and
// get_document.
func CitationURL(ecli string) string {
	// Colons are legal in a query and keep the link readable.
	return "https://uitspraken.rechtspraak.nl/details?id=" + strings.ReplaceAll(url.QueryEscape(ecli), "%3A", ":")
}

// DeeplinkURL is the platform's persistent identifier of a decision
// (http, as the platform publishes it); results carry it under
// extra.rechtspraak.deeplink, while url is CitationURL.
func DeeplinkURL(ecli string) string {
	// Colons are legal in a query and keep the link readable.
	return "http://deeplink.rechtspraak.nl/uitspraak?id=" + strings.ReplaceAll(url.QueryEscape(ecli), "%3A", ":")
}

// statusError is sdk.CheckStatus quoting an HTML error page's title rather
// than its first line, and saying when to come back.
func statusError(resp connector.FetchResponse) error {
	err := sdk.CheckStatus(resp)
	if err == nil {
		return nil
	}
	if t := htmlTitle(resp.Body); t != "" {
		err = &sdk.StatusError{Status: resp.Status, Detail: t}
	}
	if resp.Status == 429 || resp.Status == 503 {
		return fmt.Errorf("%w (the platform is busy or rate-limiting; try again later)", err)
	}
	return err
}

var htmlTitleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(body []byte) string {
	m := htmlTitleRE.FindSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(sdk.StripTags(string(m[1]))), " ")
}
