package opentk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var (
	nummerPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{3,63}$`)
	uuidPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	datumRE       = regexp.MustCompile(`Datum ([0-9]{4}-[0-9]{2}-[0-9]{2})`)
)

// GetDocumentArgs are the arguments of opentk_get_document.
type GetDocumentArgs struct {
	Nummer   string `json:"nummer"`
	Category string `json:"category"`
	Page     int    `json:"page"`
}

// DocumentURL is the request for a text and the page to cite: the HTML
// rendition of a document (/getdoc/{nummer}, which takes a number or a
// document id) or the page of a plenary report by meeting id. Defaults
// are applied to a.
func DocumentURL(base string, a *GetDocumentArgs) (fetch, cite string, err error) {
	base = strings.TrimRight(base, "/")
	if !nummerPattern.MatchString(a.Nummer) {
		return "", "", fmt.Errorf("argument \"nummer\": %q is not an OpenTK number or id (like 2024D41173)", a.Nummer)
	}
	if a.Category == "" {
		a.Category = "Document"
	}
	switch a.Category {
	case "Document":
		return base + "/getdoc/" + url.PathEscape(a.Nummer), base + "/document.html?nummer=" + url.QueryEscape(a.Nummer), nil
	case "Verslag":
		if !uuidPattern.MatchString(a.Nummer) {
			return "", "", fmt.Errorf("argument \"nummer\": a Verslag is read by its meeting id (a lower-case UUID from opentk_search), not %q", a.Nummer)
		}
		u := base + "/verslag.html?vergaderingid=" + url.QueryEscape(a.Nummer)
		return u, u, nil
	case "Activiteit", "Toezegging", "PersoonGeschenk", "OODocument":
		return "", "", fmt.Errorf("argument \"category\": OpenTK has no full text for a %s; cite the url from opentk_search instead", a.Category)
	default:
		return "", "", fmt.Errorf("argument \"category\": %q is not Document or Verslag", a.Category)
	}
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
	fetch, cite, err := DocumentURL(BaseURL, &a)
	if err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, fetch, ServicePages, 1, connector.ClassDocument)
	if err != nil {
		return nil, fmt.Errorf("get_document: %w", err)
	}
	body := string(resp.Body)
	if resp.Status == 404 || strings.TrimSpace(body) == "Found nothing!!" {
		return nil, fmt.Errorf("get_document: OpenTK has no %s %q (HTTP %d: %s)", strings.ToLower(a.Category), a.Nummer, resp.Status, clip(strings.TrimSpace(HTMLText(body)), 100))
	}
	if err := checkStatus("get_document", resp); err != nil {
		return nil, err
	}
	if strings.TrimSpace(body) == "" {
		return nil, fmt.Errorf("get_document: OpenTK returned an empty rendition of %q", a.Nummer)
	}
	if ct := header(resp, "Content-Type"); ct != "" && !strings.Contains(ct, "html") && !strings.HasPrefix(ct, "text/") {
		return nil, fmt.Errorf("get_document: OpenTK answered with %s, not an HTML rendition", ct)
	}
	doc := sdk.Document{Platform: ID, ID: a.Nummer, Type: a.Category, URL: cite, Format: "text", Page: a.Page}
	var text string
	if a.Category == "Verslag" {
		text = HTMLText(mainPart(body))
		doc.Title = htmlTitle(body)
		if m := datumRE.FindStringSubmatch(HTMLText(body)); m != nil {
			doc.Date = m[1]
		}
		doc.Organization = "Tweede Kamer"
	} else {
		text = HTMLText(body)
		doc.Title = htmlTitle(body)
		doc.Organization = "Tweede Kamer"
		doc.Extra = map[string]map[string]any{ID: {"original_url": strings.TrimRight(BaseURL, "/") + "/getraw/" + url.PathEscape(a.Nummer)}}
	}
	if doc.Title == "" {
		doc.Title = a.Category + " " + a.Nummer
	}
	if strings.TrimSpace(text) == "" {
		text = "(OpenTK's rendition holds no text; the original may be a scan. Open the url or the original file.)"
	}
	page, pages, err := sdk.Page(text, sdk.TextPageSize, a.Page)
	if err != nil {
		return nil, err
	}
	doc.Text, doc.Pages = page, pages
	return doc, nil
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
