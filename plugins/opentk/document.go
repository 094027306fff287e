package opentk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var (
	nummerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{3,63}$`)
	uuidPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	datumRE       = regexp.MustCompile(`Datum ([0-9]{4}-[0-9]{2}-[0-9]{2})`)
	// The document page (tkconv's partials/getorig.html): the subject in
	// <h2>, the kind in the first <p><em>, "datum: <b>…</b>" and the
	// official publication's link with its external identifier.
	metaTitleRE = regexp.MustCompile(`(?is)<h2[^>]*>(.*?)</h2>`)
	metaSoortRE = regexp.MustCompile(`(?is)<p[^>]*>\s*<em>(.*?)</em>`)
	metaDatumRE = regexp.MustCompile(`(?i)datum:\s*<b>\s*([0-9]{4}-[0-9]{2}-[0-9]{2})`)
	metaExtRE   = regexp.MustCompile(`(?i)officielebekendmakingen\.nl/([a-z][a-z0-9.-]*[a-z0-9])\.html`)
)

// GetDocumentArgs are the arguments of opentk_get_document.
type GetDocumentArgs struct {
	ID string `json:"id"`
	// Nummer is id's former name, which keeps working.
	Nummer   string `json:"nummer"`
	Category string `json:"category"`
	Page     int    `json:"page"`
	Find     string `json:"find"`
}

// DocumentURL is the request for a text and the page to cite: the HTML
// rendition of a document (/getdoc/{nummer}, which takes a number or a
// document id) or the page of a plenary report by meeting id. Defaults
// are applied to a.
func DocumentURL(base string, a *GetDocumentArgs) (fetch, cite string, err error) {
	base = strings.TrimRight(base, "/")
	if !nummerPattern.MatchString(a.Nummer) {
		return "", "", fmt.Errorf("argument \"id\": %q is not an OpenTK number or id (like 2024D41173)", a.Nummer)
	}
	if a.Category == "" {
		a.Category = "Document"
	}
	switch a.Category {
	case "Document":
		return base + "/getdoc/" + url.PathEscape(a.Nummer), PageURL(base, a.Category, a.Nummer), nil
	case "Verslag":
		if !uuidPattern.MatchString(a.Nummer) {
			return "", "", fmt.Errorf("argument \"id\": a Verslag is read by its meeting id (a lower-case UUID from opentk_search), not %q", a.Nummer)
		}
		u := PageURL(base, a.Category, a.Nummer)
		return u, u, nil
	case "Activiteit", "Toezegging", "PersoonGeschenk", "OODocument":
		return "", "", fmt.Errorf("argument \"category\": OpenTK has no full text for a %s; cite the url from opentk_search instead", a.Category)
	default:
		return "", "", fmt.Errorf("argument \"category\": %q is not Document or Verslag", a.Category)
	}
}

// documentID is the document asked for: id or its old name nummer; a
// Tweede Kamer document number in any case and spacing is the platform's
// (upper case), another platform's document gets the tool that reads it.
func documentID(a GetDocumentArgs) (string, error) {
	id, err := cite.Arg(a.ID, "nummer", a.Nummer)
	if err != nil {
		return "", err
	}
	if c, ok := cite.Parse(id); ok {
		if c.Kind != cite.TKDocument {
			return "", c.Elsewhere(id)
		}
		return c.ID, nil
	}
	return id, nil
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
	if a.Nummer, err = documentID(a); err != nil {
		return nil, err
	}
	fetch, cite, err := DocumentURL(BaseURL, &a)
	if err != nil {
		return nil, err
	}
	// The rendition is fetched and turned into text once; the host keeps
	// the pages with the title and date, so a later page neither fetches
	// nor parses the HTML again. The URL names the rendition: it holds the
	// number and, by its path, the category.
	extract := func(ctx context.Context) (*docHead, string, error) { return readDocument(ctx, h, fetch, &a) }
	var doc sdk.TextOf[*docHead]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, fetch, connector.ClassDocument, a.Find, nil, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, fetch, connector.ClassDocument, a.Page, extract)
	}
	if err != nil {
		return nil, err
	}
	d := doc.Head
	out := sdk.Document{
		Platform: ID, ID: a.Nummer, Type: firstNonEmpty(d.Soort, a.Category), Title: firstNonEmpty(d.Title, a.Category+" "+a.Nummer), Date: d.Date,
		Organization: "Tweede Kamer", URL: cite, Format: "text", Page: doc.Page, Pages: doc.Pages, Text: doc.Text,
		Find: doc.Found,
	}
	extra := map[string]any{}
	if a.Category == "Document" {
		extra["original_url"] = strings.TrimRight(BaseURL, "/") + "/getraw/" + url.PathEscape(a.Nummer)
	}
	if len(d.Notes) > 0 {
		extra["notes"] = d.Notes
	}
	if c := counterparts(a, d); len(c) > 0 {
		extra["counterparts"] = c
	}
	if len(extra) > 0 {
		out.Extra = map[string]map[string]any{ID: extra}
	}
	return out, nil
}

// docHead is what a document's result needs besides its text, kept with
// the text so that a later page needs neither the HTML nor its parse.
type docHead struct {
	Title string `json:"title,omitempty"`
	Date  string `json:"date,omitempty"`
	// Soort and ExternalID come from the document's page: its kind
	// (Motie, Brief regering) and its official publication's id.
	Soort      string   `json:"soort,omitempty"`
	ExternalID string   `json:"external_id,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// MetadataURL is a document's page on OpenTK (document.html?nummer=),
// which names its subject, kind, date and official publication; the
// rendition /getdoc serves has only the number for a title.
func MetadataURL(base, nummer string) string {
	return strings.TrimRight(base, "/") + "/document.html?nummer=" + url.QueryEscape(nummer)
}

// readMetadata reads a document's page into head: title, kind, date and
// external identifier. A page that fails or says none of these costs
// only them, with a note; the text is still served.
func readMetadata(ctx context.Context, h connector.Host, nummer string, head *docHead) {
	resp, err := sdk.Get(ctx, h, MetadataURL(BaseURL, nummer), ServicePages, 1, connector.ClassDocument)
	why := ""
	switch {
	case err != nil:
		why = err.Error()
	case resp.Status < 200 || resp.Status >= 300:
		why = fmt.Sprintf("HTTP %d", resp.Status)
	}
	if why != "" {
		head.Notes = append(head.Notes, fmt.Sprintf("OpenTK's page of this document could not be read (%s), so the result has no title or date beyond the rendition's.", clip(why, 200)))
		return
	}
	page := string(resp.Body)
	text := func(re *regexp.Regexp) string {
		if m := re.FindStringSubmatch(page); m != nil {
			return clip(strings.Join(strings.Fields(HTMLText(m[1])), " "), 500)
		}
		return ""
	}
	if t := text(metaTitleRE); t != "" {
		head.Title = t
	}
	head.Soort = text(metaSoortRE)
	if m := metaDatumRE.FindStringSubmatch(page); m != nil && sdk.ISODate(m[1]) == m[1] {
		head.Date = m[1]
	}
	if m := metaExtRE.FindStringSubmatch(page); m != nil {
		head.ExternalID = m[1]
	}
	if head.Date == "" {
		head.Notes = append(head.Notes, "OpenTK's page of this document gives no date (no \"datum: YYYY-MM-DD\"), so the result has none.")
	}
}

// counterparts are the document on the other platforms that carry it:
// the Tweede Kamer's own by number and, where OpenTK names it, the
// official publication on Officiële Bekendmakingen.
func counterparts(a GetDocumentArgs, d *docHead) []cite.Counterpart {
	if a.Category != "Document" {
		return nil
	}
	var out []cite.Counterpart
	if c, ok := cite.Parse(a.Nummer); ok && c.Kind == cite.TKDocument {
		out = append(out, cite.Counterpart{Platform: "tk", Tool: "tk_get_document", ID: c.ID})
	}
	if c, ok := cite.PublicationCounterpart(d.ExternalID); ok {
		out = append(out, c)
	}
	return out
}

// readDocument fetches a rendition (or a plenary report's page) and turns
// it into text and head.
func readDocument(ctx context.Context, h connector.Host, fetch string, a *GetDocumentArgs) (*docHead, string, error) {
	resp, err := sdk.Get(ctx, h, fetch, ServicePages, 1, connector.ClassDocument)
	if err != nil {
		return nil, "", fmt.Errorf("get_document: %w", err)
	}
	body := string(resp.Body)
	resp.Body = nil // one copy of a multi-MB page is enough
	if resp.Status == 404 || strings.TrimSpace(body) == "Found nothing!!" {
		return nil, "", fmt.Errorf("get_document: OpenTK has no %s %q (HTTP %d: %s)", strings.ToLower(a.Category), a.Nummer, resp.Status, clip(strings.TrimSpace(HTMLText(body)), 100))
	}
	if resp.Status < 200 || resp.Status >= 300 {
		return nil, "", statusError("get_document", resp.Status, body)
	}
	if strings.TrimSpace(body) == "" {
		return nil, "", fmt.Errorf("get_document: OpenTK returned an empty rendition of %q", a.Nummer)
	}
	head := &docHead{Title: htmlTitle(body)}
	if ct := header(resp, "Content-Type"); ct != "" && !strings.Contains(ct, "html") && !strings.HasPrefix(ct, "text/") {
		if !looksLikeHTML(body) {
			return nil, "", fmt.Errorf("get_document: OpenTK answered with %s, not an HTML rendition", ct)
		}
		head.Notes = append(head.Notes, fmt.Sprintf("OpenTK labelled this rendition %q, yet it is HTML and was read as such.", ct))
	}
	var text string
	if a.Category == "Verslag" {
		// The sitting's date is in the page's header, outside <main>.
		before, main, after := mainParts(body)
		text = HTMLText(main)
		for _, part := range []string{HTMLText(before), text, HTMLText(after)} {
			if m := datumRE.FindStringSubmatch(part); m != nil {
				head.Date = m[1]
				break
			}
		}
		if head.Date == "" {
			head.Notes = append(head.Notes, "OpenTK's page of this sitting gives no date (no \"Datum YYYY-MM-DD\"), so the result has none.")
		}
	} else {
		text = HTMLText(body)
		readMetadata(ctx, h, a.Nummer, head)
	}
	if strings.TrimSpace(text) == "" {
		text = "(OpenTK's rendition holds no text; the original may be a scan. Open the url or the original file.)"
	}
	return head, text, nil
}

// looksLikeHTML tells markup from another format behind a wrong label.
func looksLikeHTML(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(s, "\uFEFF"), " \t\r\n")
	return strings.HasPrefix(s, "<") && isTagStart(s[1:])
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// header looks a response header up case-insensitively.
func header(r connector.FetchResponse, name string) string {
	for k, v := range r.Header {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
