package obv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// Plugin returns the connector. It builds every URL on the manifest's
// BaseURL; when the admin overrides base_url, the host rewrites that prefix,
// so the connector never needs to know.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":       search,
			"get_document": getDocument,
			"list_sources": listSources,
			"status":       status,
		},
	}
}

// SearchArgs are the arguments of obv_search.
type SearchArgs struct {
	Query        string `json:"query"`
	Organization string `json:"organization"`
	EntityType   string `json:"entity_type"`
	DateFrom     string `json:"date_from"`
	DateTo       string `json:"date_to"`
	Sort         string `json:"sort"`
	Limit        int    `json:"limit"`
	Offset       int    `json:"offset"`
}

// SearchURL maps search arguments to the platform's request, with the
// defaults applied and the query parameters in a fixed order. The
// organisation is a source key here; search resolves a name to one
// before.
func SearchURL(base string, a SearchArgs) (string, float64, error) {
	if err := a.check(); err != nil {
		return "", 0, err
	}
	a.Limit = a.limit()
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("query", strings.TrimSpace(a.Query))
	set("organization", a.Organization)
	set("entityType", a.EntityType)
	set("dateFrom", a.DateFrom)
	set("dateTo", a.DateTo)
	set("sort", a.Sort)
	q.Set("limit", strconv.Itoa(a.Limit))
	if a.Offset > 0 {
		q.Set("offset", strconv.Itoa(a.Offset))
	}
	return strings.TrimRight(base, "/") + "/api/search?" + q.Encode(), SearchCost(a.Limit), nil
}

// searchRow is one search result with the fields the item shows.
type searchRow struct {
	EntityID        string `json:"entityId"`
	EntityType      string `json:"entityType"`
	EntityTypeLabel string `json:"entityTypeLabel"`
	Organization    string `json:"organization"`
	Date            string `json:"date"`
	SortDate        string `json:"sortDate"`
	Title           string `json:"title"`
	Summary         string `json:"summary"`
	DownloadURL     string `json:"downloadUrl"`
	// MatchedPage and PageCount are enrichments: unreadable, they are
	// left out with a note.
	MatchedPage soft[int] `json:"matchedPage"`
	PageCount   soft[int] `json:"pageCount"`
}

// searchResponse is a search answer. A result row of another shape is
// left out with a note rather than failing the search, and so are an
// unreadable total and has-more flag (has_more is then inferred).
type searchResponse struct {
	Results            []soft[searchRow] `json:"results"`
	TotalCount         soft[*int]        `json:"totalCount"`
	TotalIsApproximate soft[bool]        `json:"totalIsApproximate"`
	HasMore            soft[*bool]       `json:"hasMore"`
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	var orgNotes []string
	if a.Organization != "" {
		key, notes, err := resolveOrganization(ctx, h, a.Organization)
		if err != nil {
			return nil, err
		}
		a.Organization, orgNotes = key, notes
	}
	u, cost, err := SearchURL(BaseURL, a)
	if err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, u, Service, cost, connector.ClassSearch)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var sr searchResponse
	if err := sdk.DecodeJSON(resp, "search", &sr); err != nil {
		return nil, err
	}
	if sr.Results == nil {
		return nil, fmt.Errorf("search: the platform's response lacks results")
	}
	out := sdk.SearchResult{Platform: ID, Total: sr.TotalCount.V, TotalIsApproximate: sr.TotalIsApproximate.V, Offset: a.Offset, Results: []sdk.Item{}, Notes: orgNotes}
	skipped, firstSkipped := 0, ""
	var noPage error
	for i, row := range sr.Results {
		r := row.V
		if row.Err != nil || r.EntityID == "" {
			if skipped++; skipped == 1 {
				firstSkipped = fmt.Sprintf("result %d: no entityId", a.Offset+i+1)
				if row.Err != nil {
					firstSkipped = fmt.Sprintf("result %d: %v", a.Offset+i+1, row.Err)
				}
			}
			continue
		}
		date := sdk.ISODate(r.SortDate)
		if date == "" {
			date = sdk.ISODate(r.Date)
		}
		extra := map[string]any{"entity_type_label": r.EntityTypeLabel}
		if r.MatchedPage.V > 0 {
			extra["matched_page"] = r.MatchedPage.V
		}
		if r.PageCount.V > 0 {
			extra["page_count"] = r.PageCount.V
		}
		if err := cmpErr(r.MatchedPage.Err, r.PageCount.Err); err != nil {
			noPage = err
		}
		citeExtra(extra, r.EntityID, r.DownloadURL)
		out.Results = append(out.Results, sdk.Item{
			ID: r.EntityID, Type: r.EntityType, Title: r.Title, Date: date, Organization: orgLabel(r.Organization, r.EntityID),
			Snippet: sdk.StripTags(r.Summary), URL: PageURL(r.EntityID, r.Title),
			Keys:  sdk.DocKeys{SourceURL: r.DownloadURL}.Map(),
			Extra: map[string]map[string]any{ID: extra},
		})
	}
	if skipped > 0 && len(out.Results) == 0 {
		return nil, fmt.Errorf("search: none of the platform's %d results is readable (%s)", skipped, firstSkipped)
	}
	switch {
	case sr.HasMore.V != nil:
		out.HasMore = *sr.HasMore.V
	default:
		out.HasMore = len(sr.Results) >= a.limit()
		why := "gave no hasMore"
		if sr.HasMore.Err != nil {
			why = fmt.Sprintf("gave an unreadable hasMore (%v)", sr.HasMore.Err)
		}
		out.Notes = append(out.Notes, "OpenBesluitvorming "+why+"; has_more is inferred from a full page.")
	}
	if sr.TotalCount.Err != nil || sr.TotalIsApproximate.Err != nil {
		out.Total, out.TotalIsApproximate = nil, false
		out.Notes = append(out.Notes, fmt.Sprintf("OpenBesluitvorming's total is unreadable and left out: %v.", cmpErr(sr.TotalCount.Err, sr.TotalIsApproximate.Err)))
	}
	if skipped > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d result(s) the platform sent in an unreadable shape are left out (%s).", skipped, firstSkipped))
	}
	if noPage != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("The matched page or page count of some results is unreadable and left out: %v.", noPage))
	}
	if a.Query != "" && (a.DateFrom != "" || a.DateTo != "") {
		out.Notes = append(out.Notes, "With a query, OpenBesluitvorming filters dates only within a bounded relevance window: results for old date ranges may be incomplete.")
	}
	return out, nil
}

// check validates the arguments but the organisation, so a bad argument
// is refused before the organisation is looked up (or the user asked
// about it).
func (a SearchArgs) check() error {
	if strings.TrimSpace(a.Query) == "" && a.Organization == "" {
		return fmt.Errorf("arguments: give query or organization (or both)")
	}
	if l := a.limit(); l < 1 || l > MaxLimit {
		return fmt.Errorf("argument \"limit\": %d is outside 1…%d", l, MaxLimit)
	}
	if a.Offset < 0 {
		return fmt.Errorf("argument \"offset\": %d is negative", a.Offset)
	}
	if a.DateFrom != "" && sdk.ISODate(a.DateFrom) != a.DateFrom {
		return fmt.Errorf("argument \"date_from\": %q is not an ISO date (YYYY-MM-DD)", a.DateFrom)
	}
	if a.DateTo != "" && sdk.ISODate(a.DateTo) != a.DateTo {
		return fmt.Errorf("argument \"date_to\": %q is not an ISO date (YYYY-MM-DD)", a.DateTo)
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	return nil
}

// limit is the page size asked for, the default applied.
func (a SearchArgs) limit() int {
	if a.Limit == 0 {
		return 24
	}
	return a.Limit
}

// cmpErr is the first non-nil error.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// PageURL is the page a person opens for an entity: the platform's own
// reader, which opens an entity named in view= on top of a search. It
// needs a search to stand on (view alone shows the empty start page), so
// the link names the entity's source, which an entity id carries
// (type:supplier:organisation-type:source:native-id); an id of another
// shape gets a search for its title instead. The same link comes from
// search and get_document, so a citation does not depend on the tool.
func PageURL(id, title string) string {
	// The query as url.Values.Encode writes it (keys sorted), without
	// building the map, in one allocation.
	key, value := "query=", firstNonEmpty(strings.TrimSpace(title), id)
	if org, ok := idField(id, 3); ok && org != "" {
		key, value = "organization=", org
	}
	var b strings.Builder
	b.Grow(len(PageBase) + len("/?") + len(key) + 3*len(value) + len("&view=") + 3*len(id))
	b.WriteString(PageBase + "/?")
	b.WriteString(key)
	writeQueryEscape(&b, value, "+")
	b.WriteString("&view=")
	writeQueryEscape(&b, id, "+")
	return b.String()
}

// orgLabel is a result's organisation as every platform's results name
// it ([orgname.ResultLabel]): the platform's "Bergen" is "Gemeente Bergen
// (Limburg)". The entity id gives the kind and the source key
// (document:notubiz:gemeente:bergen:12345).
func orgLabel(name, entityID string) string {
	kind, _ := idField(entityID, 2)
	key, _ := idField(entityID, 3)
	if l := orgname.ResultLabel(name, kind, key); l != "" {
		return l
	}
	return name
}

// idField is field n (0-based) of id's fields separated by colons, when
// id has at least two more (as strings.Split(id, ":")[n] of five or more).
func idField(id string, n int) (string, bool) {
	for range n {
		i := strings.IndexByte(id, ':')
		if i < 0 {
			return "", false
		}
		id = id[i+1:]
	}
	i := strings.IndexByte(id, ':')
	if i < 0 {
		return "", false
	}
	return id[:i], true
}

// unreserved marks the bytes url.QueryEscape leaves as they are.
var unreserved = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
	}
	return t
}()

// writeQueryEscape writes s as url.QueryEscape does, with space for a
// space (QueryEscape's "+", or "%20"). It is written out, as are the
// URLs built with it, because net/url's escaping and the concatenations
// around it took 8 µs of a get_document call in WebAssembly (0.3 µs
// natively).
func writeQueryEscape(b *strings.Builder, s, space string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case unreserved[c]:
			b.WriteByte(c)
		case c == ' ':
			b.WriteString(space)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}

// citeExtra adds the links that are not the citation: the original file
// at the council's supplier (it outlives the platform; http links are
// kept as they come, since the supplier decides) and the API record.
func citeExtra(extra map[string]any, id, download string) {
	citeDownload(extra, download)
	extra["api_url"] = EntityURL(PageBase, id)
}

// citeDownload is citeExtra's link to the original file.
func citeDownload(extra map[string]any, download string) {
	if (strings.HasPrefix(download, "https://") || strings.HasPrefix(download, "http://")) && !strings.Contains(download, "...") {
		extra["download_url"] = download
	}
}

// entity is an /api/entities answer with the fields get_document shows.
// entityId and markdownText are its core; the rest is optional: a part
// of another shape (an agenda, the recordings, a title) is left out with
// a note instead of failing the document.
type entity struct {
	EntityID        string             `json:"entityId"`
	MarkdownText    string             `json:"markdownText"`
	EntityType      soft[string]       `json:"entityType"`
	EntityTypeLabel soft[string]       `json:"entityTypeLabel"`
	Title           soft[string]       `json:"title"`
	Organization    soft[string]       `json:"organization"`
	Date            soft[string]       `json:"date"`
	SortDate        soft[string]       `json:"sortDate"`
	DownloadURL     soft[string]       `json:"downloadUrl"`
	ContentType     soft[string]       `json:"contentType"`
	MeetingID       soft[string]       `json:"meetingId"`
	Agenda          soft[[]agendaItem] `json:"agenda"`
	Motions         soft[[]motion]     `json:"motions"`
	Recordings      soft[[]recording]  `json:"recordings"`
	Motion          soft[*motion]      `json:"motion"`
}

// notes are the entity's unreadable optional parts.
func (e *entity) notes() []string {
	return unreadable([]softErr{
		{"entityType", e.EntityType.Err}, {"entityTypeLabel", e.EntityTypeLabel.Err}, {"title", e.Title.Err},
		{"organization", e.Organization.Err}, {"date", e.Date.Err}, {"sortDate", e.SortDate.Err},
		{"downloadUrl", e.DownloadURL.Err}, {"contentType", e.ContentType.Err}, {"meetingId", e.MeetingID.Err},
		{"agenda", e.Agenda.Err}, {"motions", e.Motions.Err}, {"recordings", e.Recordings.Err}, {"motion", e.Motion.Err},
	}, "entity")
}

type recording struct {
	ID              string  `json:"id"`
	MediaType       string  `json:"media_type"`
	DurationSeconds float64 `json:"duration_seconds"`
	Chapters        []struct {
		Title        string  `json:"title"`
		StartSeconds float64 `json:"start_seconds"`
	} `json:"chapters"`
	Segments []struct {
		StartSeconds float64 `json:"start_seconds"`
		Text         string  `json:"text"`
	} `json:"segments"`
}

type agendaItem struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Number    string `json:"number"`
	Documents []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"documents"`
	AgendaItems []agendaItem `json:"agenda_items"`
}

type motion struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Result string `json:"result"`
	Tally  *struct {
		InFavour int `json:"in_favour"`
		Against  int `json:"against"`
	} `json:"tally"`
	Votes []struct {
		Option    string `json:"option"`
		VoterName string `json:"voter_name"`
		GroupName string `json:"group_name"`
	} `json:"votes"`
}

// GetDocumentArgs are the arguments of obv_get_document.
type GetDocumentArgs struct {
	ID string `json:"id"`
	// EntityID is id's former name, which keeps working.
	EntityID string `json:"entity_id"`
	Page     int    `json:"page"`
	Find     string `json:"find"`
}

// EntityURL is the platform's detail request for an entity id.
func EntityURL(base, id string) string {
	base = strings.TrimRight(base, "/")
	var b strings.Builder
	b.Grow(len(base) + len("/api/entities/") + 3*len(id))
	b.WriteString(base)
	b.WriteString("/api/entities/")
	writeQueryEscape(&b, id, "%20") // as encodeURIComponent, colons included
	return b.String()
}

// docHead is what get_document keeps with an entity's text: everything
// the result shows besides the page.
type docHead struct {
	ID           string         `json:"id"`
	Type         string         `json:"type,omitempty"`
	Title        string         `json:"title"`
	Date         string         `json:"date,omitempty"`
	Organization string         `json:"organization,omitempty"`
	URL          string         `json:"url"`
	Extra        map[string]any `json:"extra"`
}

func getDocument(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a GetDocumentArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	var err error
	if a.Page, err = sdk.PageArg(a.Page); err != nil {
		return nil, err
	}
	if a.EntityID, err = cite.Arg(a.ID, "entity_id", a.EntityID); err != nil {
		return nil, err
	}
	if c, ok := cite.Parse(a.EntityID); ok {
		return nil, c.Elsewhere(a.EntityID)
	}
	if !strings.Contains(a.EntityID, ":") {
		return nil, fmt.Errorf("argument \"id\": %q is not an OpenBesluitvorming entity id (like document:notubiz:gemeente:soest:12345)", a.EntityID)
	}
	// The entity's URL is all that shapes its text, so it is the text's
	// key: the answer is decoded once, and later pages come from the host.
	u := EntityURL(BaseURL, a.EntityID)
	extract := func(ctx context.Context) (docHead, string, error) { return extractEntity(ctx, h, u, a.EntityID) }
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
	return sdk.Document{
		Platform: ID, ID: hd.ID, Type: hd.Type, Title: hd.Title, Date: hd.Date, Organization: hd.Organization,
		URL: hd.URL, Format: "markdown", Page: doc.Page, Pages: doc.Pages, Text: doc.Text,
		Find: doc.Found, Extra: map[string]map[string]any{ID: hd.Extra},
	}, nil
}

// extractEntity fetches an entity and renders its text. A document's
// markdownText can be megabytes; it is decoded once, into the one string
// the text's pages share.
func extractEntity(ctx context.Context, h connector.Host, u, id string) (docHead, string, error) {
	var hd docHead
	resp, err := sdk.Get(ctx, h, u, Service, 1, connector.ClassDocument)
	if err != nil {
		return hd, "", fmt.Errorf("get_document: %w", err)
	}
	if resp.Status == 404 {
		return hd, "", fmt.Errorf("get_document: no entity %q", id)
	}
	var e entity
	if err := sdk.DecodeJSON(resp, "get_document", &e); err != nil {
		return hd, "", err
	}
	if e.EntityID == "" {
		return hd, "", fmt.Errorf("get_document: the platform's response lacks entityId")
	}
	date := sdk.ISODate(e.SortDate.V)
	if date == "" {
		date = sdk.ISODate(e.Date.V)
	}
	title := firstNonEmpty(e.Title.V, motionName(e.Motion.V))
	hd = docHead{
		ID: e.EntityID, Type: e.EntityType.V, Title: title, Date: date,
		Organization: orgLabel(e.Organization.V, e.EntityID), URL: PageURL(e.EntityID, title),
		Extra: map[string]any{"entity_type_label": e.EntityTypeLabel.V},
	}
	if e.EntityID == id && PageBase == BaseURL {
		// citeExtra's api_url is u: not built again (a microsecond in
		// WebAssembly).
		hd.Extra["api_url"] = u
		citeDownload(hd.Extra, e.DownloadURL.V)
	} else {
		citeExtra(hd.Extra, e.EntityID, e.DownloadURL.V)
	}
	if e.MeetingID.V != "" {
		hd.Extra["meeting_id"] = e.MeetingID.V
	}
	if e.ContentType.V != "" {
		hd.Extra["content_type"] = e.ContentType.V
	}
	if notes := e.notes(); len(notes) > 0 {
		hd.Extra["notes"] = notes
	}
	return hd, RenderText(&e), nil
}

func motionName(m *motion) string {
	if m == nil {
		return ""
	}
	return m.Name
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// RenderText is the readable text of an entity: its markdown when it has
// one, else its agenda, motions and recordings rendered as markdown.
func RenderText(e *entity) string {
	if e.MarkdownText != "" && len(e.Agenda.V) == 0 && e.Motion.V == nil && len(e.Motions.V) == 0 && len(e.Recordings.V) == 0 {
		// A document: its markdown as it came, not a copy of it.
		return strings.TrimLeft(e.MarkdownText, "\n")
	}
	var b strings.Builder
	if e.MarkdownText != "" {
		b.WriteString(e.MarkdownText)
	}
	if len(e.Agenda.V) > 0 {
		b.WriteString("\n## Agenda\n")
		writeAgenda(&b, e.Agenda.V, 0)
	}
	if e.Motion.V != nil {
		b.WriteString("\n## Motie\n")
		writeMotion(&b, e.Motion.V)
	}
	if len(e.Motions.V) > 0 {
		b.WriteString("\n## Moties\n")
		for i := range e.Motions.V {
			writeMotion(&b, &e.Motions.V[i])
		}
	}
	for _, r := range e.Recordings.V {
		fmt.Fprintf(&b, "\n## Opname (%s, %d min)\n", r.MediaType, int(r.DurationSeconds/60))
		for _, c := range r.Chapters {
			fmt.Fprintf(&b, "- %s (vanaf %s)\n", c.Title, clock(c.StartSeconds))
		}
		if len(r.Segments) > 0 {
			b.WriteString("\n### Transcript\n")
			for _, s := range r.Segments {
				fmt.Fprintf(&b, "[%s] %s\n", clock(s.StartSeconds), s.Text)
			}
		}
	}
	if b.Len() == 0 {
		return "(this entity has no text)"
	}
	return strings.TrimLeft(b.String(), "\n")
}

func writeAgenda(b *strings.Builder, items []agendaItem, depth int) {
	for _, it := range items {
		fmt.Fprintf(b, "%s- %s %s\n", strings.Repeat("  ", depth), it.Number, it.Title)
		for _, d := range it.Documents {
			fmt.Fprintf(b, "%s  - document: %s (%s)\n", strings.Repeat("  ", depth), d.Name, d.ID)
		}
		writeAgenda(b, it.AgendaItems, depth+1)
	}
}

func writeMotion(b *strings.Builder, m *motion) {
	fmt.Fprintf(b, "- %s", m.Name)
	if m.Result != "" {
		fmt.Fprintf(b, ": %s", m.Result)
	} else if m.Status != "" {
		fmt.Fprintf(b, ": %s", m.Status)
	}
	if m.Tally != nil {
		fmt.Fprintf(b, " (voor %d, tegen %d)", m.Tally.InFavour, m.Tally.Against)
	}
	b.WriteString("\n")
	for _, v := range m.Votes {
		fmt.Fprintf(b, "  - %s (%s): %s\n", v.VoterName, v.GroupName, v.Option)
	}
}

func clock(sec float64) string {
	s := int(sec)
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

type sourcesResponse struct {
	Sources []struct {
		Key              string `json:"key"`
		Label            string `json:"label"`
		Supplier         string `json:"supplier"`
		OrganizationType string `json:"organizationType"`
		Implemented      bool   `json:"implemented"`
		Discontinued     bool   `json:"discontinued"`
		CBSID            string `json:"cbsId"`
	} `json:"sources"`
}

func listSources(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		ImplementedOnly *bool `json:"implemented_only"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	u := strings.TrimRight(BaseURL, "/") + "/api/sources"
	if a.ImplementedOnly == nil || *a.ImplementedOnly {
		u += "?implemented=true"
	}
	resp, err := sdk.Get(ctx, h, u, Service, 1, connector.ClassList)
	if err != nil {
		return nil, fmt.Errorf("list_sources: %w", err)
	}
	var sr sourcesResponse
	if err := sdk.DecodeJSON(resp, "list_sources", &sr); err != nil {
		return nil, err
	}
	if sr.Sources == nil {
		return nil, fmt.Errorf("list_sources: the platform's response lacks sources")
	}
	out := sdk.ListResult{Platform: ID, List: "sources", Items: []sdk.Item{}}
	for _, s := range sr.Sources {
		extra := map[string]any{"supplier": s.Supplier, "implemented": s.Implemented}
		if s.Discontinued {
			extra["discontinued"] = true
		}
		if s.CBSID != "" {
			extra["cbs_id"] = s.CBSID
		}
		out.Items = append(out.Items, sdk.Item{ID: s.Key, Type: s.OrganizationType, Title: s.Label, Organization: orgname.ResultLabel(s.Label, s.OrganizationType, s.Key), Extra: map[string]map[string]any{ID: extra}})
	}
	out.Count = len(out.Items)
	return out, nil
}
