package example

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Plugin returns the connector: its manifest and a function per declared
// tool (the sdk refuses a tool without a function, and the reverse).
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":       search,
			"get_document": getDocument,
			"list_sources": listSources,
			"stats":        stats,
		},
	}
}

type searchArgs struct {
	Query        string `json:"query"`
	Organization string `json:"organization"`
	DateFrom     string `json:"date_from"`
	DateTo       string `json:"date_to"`
	Limit        int    `json:"limit"`
	Offset       int    `json:"offset"`
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	a := searchArgs{Limit: 24} // the schema's default; an absent argument keeps it
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	// The host has checked the schema already; these checks are the
	// connector's own line, so a bad argument never costs a request.
	a.Query = strings.TrimSpace(a.Query)
	switch {
	case a.Query == "" && a.Organization == "":
		return nil, errors.New("arguments: give query or organization (or both)")
	case a.Limit < 1 || a.Limit > MaxLimit:
		return nil, fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	case a.Offset < 0:
		return nil, fmt.Errorf("argument \"offset\": %d is negative", a.Offset)
	case a.DateFrom != "" && sdk.ISODate(a.DateFrom) != a.DateFrom:
		return nil, fmt.Errorf("argument \"date_from\": %q is not an ISO date (YYYY-MM-DD)", a.DateFrom)
	case a.DateTo != "" && sdk.ISODate(a.DateTo) != a.DateTo:
		return nil, fmt.Errorf("argument \"date_to\": %q is not an ISO date (YYYY-MM-DD)", a.DateTo)
	case a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo:
		return nil, fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	// url.Values encodes its keys sorted: one search, one URL, one cache
	// entry.
	q := url.Values{"limit": {strconv.Itoa(a.Limit)}}
	for k, v := range map[string]string{"query": a.Query, "organization": a.Organization, "dateFrom": a.DateFrom, "dateTo": a.DateTo} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if a.Offset > 0 {
		q.Set("offset", strconv.Itoa(a.Offset))
	}
	resp, err := sdk.Get(ctx, h, BaseURL+"/api/search?"+q.Encode(), Service, searchCost(a.Limit), connector.ClassSearch)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var body struct {
		Results []struct {
			EntityID        string `json:"entityId"`
			EntityType      string `json:"entityType"`
			EntityTypeLabel string `json:"entityTypeLabel"`
			Organization    string `json:"organization"`
			Date            string `json:"date"`     // "7 november 2024"
			SortDate        string `json:"sortDate"` // "2024-11-07 00:00:00", not always present
			Title           string `json:"title"`
			Summary         string `json:"summary"`
			DownloadURL     string `json:"downloadUrl"`
		} `json:"results"`
		TotalCount         *int  `json:"totalCount"`
		TotalIsApproximate bool  `json:"totalIsApproximate"`
		HasMore            *bool `json:"hasMore"`
	}
	if err := sdk.DecodeJSON(resp, "search", &body); err != nil {
		return nil, err
	}
	if body.Results == nil {
		// Valid JSON of another shape must not read as "nothing found".
		return nil, errors.New("search: the platform's response lacks results")
	}
	out := sdk.SearchResult{Platform: ID, Total: body.TotalCount, TotalIsApproximate: body.TotalIsApproximate,
		Offset: a.Offset, HasMore: len(body.Results) >= a.Limit, Results: []sdk.Item{}}
	if body.HasMore != nil {
		out.HasMore = *body.HasMore
	}
	skipped := 0
	for _, r := range body.Results {
		if r.EntityID == "" { // nothing to read it by: leave it out, say so
			skipped++
			continue
		}
		out.Results = append(out.Results, sdk.Item{
			ID: r.EntityID, Type: r.EntityType, Title: r.Title, Date: isoDate(r.SortDate, r.Date), Organization: r.Organization,
			Snippet: sdk.StripTags(r.Summary), URL: citeURL(r.EntityID, r.DownloadURL),
			// Platform-specific fields go under the connector id.
			Extra: map[string]map[string]any{ID: {"entity_type_label": r.EntityTypeLabel}},
		})
	}
	if skipped > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d result(s) without an entity id were left out.", skipped))
	}
	if a.Query != "" && (a.DateFrom != "" || a.DateTo != "") {
		out.Notes = append(out.Notes, "With a query, OpenBesluitvorming filters dates within a bounded relevance window: results for old date ranges may be incomplete.")
	}
	return out, nil
}

// docHead is what get_document keeps beside a document's text: everything
// its result shows but the page.
type docHead struct {
	ID, Type, Title, Date, Organization, URL string
}

func getDocument(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		EntityID string `json:"entity_id"`
		Page     int    `json:"page"`
		Find     string `json:"find"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	page, err := sdk.PageArg(a.Page)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(a.EntityID, ":") {
		return nil, fmt.Errorf("argument \"entity_id\": %q is not an OpenBesluitvorming entity id (like document:notubiz:gemeente:soest:12345)", a.EntityID)
	}
	// The URL is all that shapes the text, so it is the text's key: the
	// entity is fetched and decoded once, later pages come from the host.
	u := BaseURL + "/api/entities/" + escapeID(a.EntityID)
	// A find reads the same kept text, so it costs the platform nothing
	// after a page was read.
	extract := func(ctx context.Context) (docHead, string, error) { return fetchEntity(ctx, h, u, a.EntityID) }
	var doc sdk.TextOf[docHead]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, u, connector.ClassDocument, a.Find, nil, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, u, connector.ClassDocument, page, extract)
	}
	if err != nil {
		return nil, err
	}
	hd := doc.Head
	return sdk.Document{Platform: ID, ID: hd.ID, Type: hd.Type, Title: hd.Title, Date: hd.Date, Organization: hd.Organization,
		URL: hd.URL, Format: "markdown", Page: doc.Page, Pages: doc.Pages, Text: doc.Text, Find: doc.Found}, nil
}

// fetchEntity is get_document's expensive step: one request, one decode.
func fetchEntity(ctx context.Context, h connector.Host, u, id string) (docHead, string, error) {
	resp, err := sdk.Get(ctx, h, u, Service, 1, connector.ClassDocument)
	if err != nil {
		return docHead{}, "", fmt.Errorf("get_document: %w", err)
	}
	if resp.Status == 404 {
		return docHead{}, "", fmt.Errorf("get_document: no entity %q", id)
	}
	var e struct {
		EntityID     string `json:"entityId"`
		EntityType   string `json:"entityType"`
		Title        string `json:"title"`
		Organization string `json:"organization"`
		Date         string `json:"date"`
		SortDate     string `json:"sortDate"`
		MarkdownText string `json:"markdownText"`
		DownloadURL  string `json:"downloadUrl"`
	}
	if err := sdk.DecodeJSON(resp, "get_document", &e); err != nil {
		return docHead{}, "", err
	}
	if e.EntityID == "" {
		return docHead{}, "", errors.New("get_document: the platform's response lacks entityId")
	}
	text := e.MarkdownText
	if text == "" {
		// Meetings and motions carry agendas, votes and transcripts
		// instead; plugins/obv renders those as markdown.
		text = "(No text of its own: this connector does not render agendas, motions or recordings.)"
	}
	return docHead{ID: e.EntityID, Type: e.EntityType, Title: e.Title, Date: isoDate(e.SortDate, e.Date),
		Organization: e.Organization, URL: citeURL(e.EntityID, e.DownloadURL)}, text, nil
}

func listSources(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var none struct{}
	if err := sdk.DecodeArgs(raw, &none); err != nil {
		return nil, err
	}
	// Only sources with data: a source without any cannot be searched.
	resp, err := sdk.Get(ctx, h, BaseURL+"/api/sources?implemented=true", Service, 1, connector.ClassList)
	if err != nil {
		return nil, fmt.Errorf("list_sources: %w", err)
	}
	var body struct {
		Sources []struct {
			Key              string `json:"key"`
			Label            string `json:"label"`
			Supplier         string `json:"supplier"`
			OrganizationType string `json:"organizationType"`
		} `json:"sources"`
	}
	if err := sdk.DecodeJSON(resp, "list_sources", &body); err != nil {
		return nil, err
	}
	if body.Sources == nil {
		return nil, errors.New("list_sources: the platform's response lacks sources")
	}
	// The item's id is what search takes as organization; besluitbron_search
	// and the search page match a name against id and title.
	out := sdk.ListResult{Platform: ID, List: "sources", Items: []sdk.Item{}}
	for _, s := range body.Sources {
		out.Items = append(out.Items, sdk.Item{ID: s.Key, Type: s.OrganizationType, Title: s.Label, Organization: s.Label,
			Extra: map[string]map[string]any{ID: {"supplier": s.Supplier}}})
	}
	out.Count = len(out.Items)
	return out, nil
}

// Stats is the stats tool's result: not every answer fits the sdk's
// normalised types, and a tool may return its own.
type Stats struct {
	Platform      string `json:"platform"`
	Documents     int    `json:"documents"`
	Organizations int    `json:"organizations"`
}

func stats(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
	var none struct{}
	if err := sdk.DecodeArgs(args, &none); err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, BaseURL+"/api/stats", Service, 1, "stats")
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	var body struct {
		DocumentCount     *int `json:"documentCount"`
		OrganizationCount *int `json:"organizationCount"`
	}
	if err := sdk.DecodeJSON(resp, "stats", &body); err != nil {
		return nil, err
	}
	if body.DocumentCount == nil || body.OrganizationCount == nil {
		return nil, errors.New("stats: the platform's response lacks documentCount or organizationCount")
	}
	return Stats{Platform: ID, Documents: *body.DocumentCount, Organizations: *body.OrganizationCount}, nil
}

// isoDate is the first of the platform's dates that reads as a date.
func isoDate(sortDate, date string) string {
	if d := sdk.ISODate(sortDate); d != "" {
		return d
	}
	return sdk.ISODate(date)
}

// citeURL is a page a person can open: the original file when the
// platform gives a real https link (it sometimes sends a "https://..." dummy
// value), else the platform's own record of the entity. It is
// always on the public platform, never on an admin's base_url override.
func citeURL(id, download string) string {
	if strings.HasPrefix(download, "https://") && !strings.Contains(download, "...") {
		return download
	}
	return BaseURL + "/api/entities/" + escapeID(id)
}

// escapeID encodes an entity id for a path segment, colons included, as
// the platform's own front end does (encodeURIComponent).
func escapeID(id string) string {
	return strings.ReplaceAll(url.QueryEscape(id), "+", "%20")
}
