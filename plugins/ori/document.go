package ori

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var idPattern = regexp.MustCompile(`^[0-9]{1,20}$`)

// GetDocumentArgs are the arguments of ori_get_document.
type GetDocumentArgs struct {
	ID           string `json:"id"`
	Organization string `json:"organization"`
	Page         int    `json:"page"`
}

// DocumentURL is the lookup of one item by id, the platform's documented
// "get resource" request (GET _search?q=_id:…). A GET keeps the request
// cacheable by URL. text_pages repeats text page by page, so it is left out.
func DocumentURL(base, id, organization string) (string, error) {
	if !idPattern.MatchString(id) {
		return "", fmt.Errorf("argument \"id\": %q is not an ORI id (digits, e.g. \"6074541\")", id)
	}
	index, err := IndexPattern(organization)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	q.Set("q", "_id:"+id)
	q.Set("size", "2")
	q.Set("_source_excludes", "text_pages")
	return strings.TrimRight(base, "/") + "/" + index + "/_search?" + q.Encode(), nil
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
	u, err := DocumentURL(BaseURL, a.ID, a.Organization)
	if err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, u, Service, 1, connector.ClassDocument)
	if err != nil {
		return nil, fetchErr("get_document", err)
	}
	var sr searchResponse
	if err := decode("get_document", resp, &sr); err != nil {
		return nil, err
	}
	if sr.Hits == nil || sr.Hits.Hits == nil {
		return nil, fmt.Errorf("get_document: the platform's response lacks hits.hits")
	}
	if len(sr.Hits.Hits) == 0 {
		return nil, fmt.Errorf("get_document: no ORI item with id %q (ids change when ORI re-indexes; search again)", a.ID)
	}
	hit := sr.Hits.Hits[0]
	if hit.Source == nil {
		return nil, fmt.Errorf("get_document: the hit for %q lacks _source", a.ID)
	}
	text, format, err := RenderText(hit.Source)
	if err != nil {
		return nil, fmt.Errorf("get_document: %v", err)
	}
	page, pages, err := sdk.Page(text, sdk.TextPageSize, a.Page)
	if err != nil {
		return nil, err
	}
	extra := map[string]any{"index": hit.Index}
	for _, k := range []string{"content_type", "file_name", "size_in_bytes", "is_referenced_by", "has_organization_name", "date_modified"} {
		if v, ok := hit.Source[k]; ok && v != nil && v != "" {
			extra[k] = v
		}
	}
	if len(sr.Hits.Hits) > 1 {
		extra["note"] = fmt.Sprintf("id %s exists in more than one index (%s, %s); this is the first. Pass organization to choose.", a.ID, hit.Index, sr.Hits.Hits[1].Index)
	}
	return sdk.Document{
		Platform: ID, ID: hit.ID, Type: str(hit.Source, "@type"), Title: title(hit.Source, hit.ID), Date: date(hit.Source),
		Organization: IndexKey(hit.Index), URL: citeURL(hit.Source, hit.ID), Format: format,
		Page: a.Page, Pages: pages, Text: page, Extra: map[string]map[string]any{ID: extra},
	}, nil
}

// RenderText is an item's readable text: md_text (markdown) when ORI has
// it, else text, both arrays with one string per page of the original, so
// page markers keep citations by page possible. An item without text
// (a meeting, a file ORI could not read) gets its scalar fields instead.
func RenderText(src map[string]any) (text, format string, err error) {
	for _, f := range []struct{ field, format string }{{"md_text", "markdown"}, {"text", "text"}} {
		pages, err := textPages(src[f.field])
		if err != nil {
			return "", "", fmt.Errorf("field %s: %v", f.field, err)
		}
		if len(pages) == 0 {
			continue
		}
		if len(pages) == 1 {
			return pages[0], f.format, nil
		}
		var b strings.Builder
		for i, p := range pages {
			if i > 0 {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "--- pagina %d ---\n\n%s", i+1, strings.TrimSpace(p))
		}
		return b.String(), f.format, nil
	}
	var keys []string
	for k, v := range src {
		switch v.(type) {
		case string, float64, bool:
			if !strings.HasPrefix(k, "@context") {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("(ORI holds no extracted text for this item; its fields follow.)\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %v\n", k, src[k])
	}
	return b.String(), "text", nil
}

// textPages accepts the array form (current ORI) and a bare string (old
// indexes); empty pages are kept so page numbers stay right, but a text of
// only empty pages counts as none.
func textPages(v any) ([]string, error) {
	var pages []string
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		pages = []string{t}
	case []any:
		for i, p := range t {
			switch s := p.(type) {
			case string:
				pages = append(pages, s)
			case nil:
				pages = append(pages, "")
			default:
				return nil, fmt.Errorf("page %d is a %T, not text", i+1, p)
			}
		}
	default:
		return nil, fmt.Errorf("is a %T, not text", v)
	}
	for _, p := range pages {
		if strings.TrimSpace(p) != "" {
			return pages, nil
		}
	}
	return nil, nil
}

// OrganizationsRequest is the platform's documented "get all
// municipalities" request, narrowed to the fields the list needs.
func OrganizationsRequest(base, classification string) (string, []byte, error) {
	classes := []string{"municipality", "province", "water"}
	if classification != "" {
		switch classification {
		case "municipality", "province", "water":
			classes = []string{classification}
		default:
			return "", nil, fmt.Errorf("argument \"classification\": %q is not one of municipality, province, water", classification)
		}
	}
	body, err := json.Marshal(obj{
		"size":    500,
		"query":   obj{"bool": obj{"must": obj{"match_all": obj{}}, "filter": obj{"terms": obj{"classification": classes}}}},
		"_source": obj{"includes": []string{"name", "classification", "@type", "@id"}},
	})
	if err != nil {
		return "", nil, fmt.Errorf("list_organizations: encoding the request: %v", err)
	}
	return strings.TrimRight(base, "/") + "/ori_*/_search", body, nil
}

func listOrganizations(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		Classification string `json:"classification"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	u, body, err := OrganizationsRequest(BaseURL, a.Classification)
	if err != nil {
		return nil, err
	}
	resp, err := h.Fetch(ctx, connector.FetchRequest{
		Method: "POST", URL: u, Body: body, Header: map[string]string{"Content-Type": "application/json"},
		Service: Service, Cost: 1, CacheClass: connector.ClassList,
	})
	if err != nil {
		return nil, fetchErr("list_organizations", err)
	}
	var sr searchResponse
	if err := decode("list_organizations", resp, &sr); err != nil {
		return nil, err
	}
	if sr.Hits == nil || sr.Hits.Hits == nil {
		return nil, fmt.Errorf("list_organizations: the platform's response lacks hits.hits")
	}
	out := sdk.ListResult{Platform: ID, List: "organizations", Items: []sdk.Item{}}
	// An index may hold more than one organisation record (the council
	// and the municipality); the key is what search takes, so keep one
	// per index.
	seen := map[string]bool{}
	for _, h := range sr.Hits.Hits {
		if h.Index == "" {
			return nil, fmt.Errorf("list_organizations: a hit without _index")
		}
		key := IndexKey(h.Index)
		if seen[key] {
			continue
		}
		seen[key] = true
		name := str(h.Source, "name")
		if name == "" {
			name = key
		}
		out.Items = append(out.Items, sdk.Item{
			ID: key, Type: str(h.Source, "classification"), Title: name, Organization: name,
			Extra: map[string]map[string]any{ID: {"index": h.Index, "ori_id": h.ID}},
		})
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].ID < out.Items[j].ID })
	out.Count = len(out.Items)
	return out, nil
}
