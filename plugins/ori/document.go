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
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var idPattern = regexp.MustCompile(`^[0-9]{1,20}$`)

// GetDocumentArgs are the arguments of ori_get_document.
type GetDocumentArgs struct {
	ID           string `json:"id"`
	Organization string `json:"organization"`
	Page         int    `json:"page"`
	Find         string `json:"find"`
}

// DocumentURL is the lookup of one item by id, the platform's documented
// "get resource" request (GET _search?q=_id:…). A GET keeps the request
// cacheable by URL. text_pages repeats text page by page, so it is left out.
func DocumentURL(base, id, organization string) (string, error) {
	var keys []string
	if organization != "" {
		keys = []string{organization}
	}
	return documentURL(base, id, keys)
}

// documentURL is [DocumentURL] looking in the indexes of several
// organisations (a name that fits several), or in all without keys.
func documentURL(base, id string, keys []string) (string, error) {
	if !idPattern.MatchString(id) {
		return "", fmt.Errorf("argument \"id\": %q is not an ORI id (digits, e.g. \"6074541\")", id)
	}
	if len(keys) == 0 {
		keys = []string{""}
	}
	indexes := make([]string, len(keys))
	for i, k := range keys {
		var err error
		if indexes[i], err = IndexPattern(k); err != nil {
			return "", err
		}
	}
	index := strings.Join(indexes, ",")
	q := url.Values{}
	q.Set("q", "_id:"+id)
	q.Set("size", "2")
	q.Set("_source_excludes", "text_pages")
	return strings.TrimRight(base, "/") + "/" + index + "/_search?" + q.Encode(), nil
}

// docHead is what get_document keeps with a document's text: everything
// the result shows besides the page, so a later page needs neither the
// hit nor its decoding.
type docHead struct {
	ID           string         `json:"id"`
	Type         string         `json:"type,omitempty"`
	Title        string         `json:"title"`
	Date         string         `json:"date,omitempty"`
	Organization string         `json:"organization,omitempty"` // the key
	URL          string         `json:"url,omitempty"`
	Format       string         `json:"format"`
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
	a.ID = strings.TrimSpace(a.ID)
	if c, ok := cite.Parse(a.ID); ok {
		return nil, c.Elsewhere(a.ID)
	}
	if _, err := DocumentURL(BaseURL, a.ID, ""); err != nil {
		return nil, err // a bad id before any lookup
	}
	// organization only narrows where to look, the id decides: a name
	// that fits several organisations means all of them, and no one is
	// asked (see orgname.OrgKeys).
	var keys, orgNotes []string
	var names *orgNames
	if a.Organization != "" {
		var n orgNames
		if keys, n, orgNotes, err = resolveOrganization(ctx, h, a.Organization, false); err != nil {
			return nil, err
		}
		names = &n
	}
	u, err := documentURL(BaseURL, a.ID, keys)
	if err != nil {
		return nil, err
	}
	// The URL names everything that shapes the text (the id and the
	// indexes looked in), so it is the text's key: the hit is decoded
	// once, and later pages come from the host.
	extract := func(ctx context.Context) (docHead, string, error) { return extractDocument(ctx, h, u, a.ID) }
	var doc sdk.TextOf[docHead]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, u, connector.ClassDocument, a.Find, pdfMarks, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, u, connector.ClassDocument, a.Page, extract)
	}
	if err != nil {
		return nil, err
	}
	hd := doc.Head
	// The head keeps the organisation's key; its name is looked up on
	// every call (the lookup is the list tool's, cached 30 days), so a
	// failed lookup is not kept with the text.
	if names == nil {
		n := lookupNames(ctx, h)
		names = &n
	}
	extra := make(map[string]any, len(hd.Extra)+2)
	for k, v := range hd.Extra {
		extra[k] = v
	}
	extra["organization_key"] = hd.Organization
	if note := names.note(); note != "" || len(orgNotes) > 0 {
		// notes come back from the host as JSON: a list of any.
		var notes []any
		switch v := extra["notes"].(type) {
		case []any:
			notes = append(notes, v...)
		case []string:
			for _, n := range v {
				notes = append(notes, n)
			}
		}
		for _, n := range orgNotes {
			notes = append(notes, n)
		}
		if note != "" {
			notes = append(notes, note)
		}
		extra["notes"] = notes
	}
	return sdk.Document{
		Platform: ID, ID: hd.ID, Type: hd.Type, Title: hd.Title, Date: hd.Date, Organization: names.name(hd.Organization),
		URL: hd.URL, Format: hd.Format, Page: doc.Page, Pages: doc.Pages, Text: doc.Text,
		Find: doc.Found, Extra: map[string]map[string]any{ID: extra},
	}, nil
}

// pdfMarks: the text of an item of several pages marks each page of the
// original ("--- pagina 3 ---", see joinPages); a PDF's original opens at
// one with #page=3.
func pdfMarks(hd docHead) sdk.PageMarks {
	m := sdk.PageMarks{Prefix: pageMark}
	if ct, _ := hd.Extra["content_type"].(string); strings.HasPrefix(ct, "application/pdf") {
		m.File = hd.URL
	}
	return m
}

// extractDocument fetches the lookup and reads its first hit: its head and
// its text. A hit with its text can be megabytes (md_text and text both,
// one string per page), so the answer is never decoded as a whole: one
// pass reads the first hit's metadata and md_text and skips everything
// else (text, other hits) without decoding it; text is read in a second
// pass only when md_text has none, and the other hits' indexes only when
// hits.total says there are others.
func extractDocument(ctx context.Context, h connector.Host, u, id string) (docHead, string, error) {
	var hd docHead
	resp, err := sdk.Get(ctx, h, u, Service, 1, connector.ClassDocument)
	if err != nil {
		return hd, "", fetchErr("get_document", err)
	}
	var dr docResponse
	if err := decode("get_document", resp, &dr); err != nil {
		return hd, "", err
	}
	if dr.Hits == nil || dr.Hits.Hits == nil {
		return hd, "", fmt.Errorf("get_document: the platform's response lacks hits.hits")
	}
	hit := dr.Hits.Hits[0]
	if hit.ID == "" && hit.Index == "" && hit.Source == nil {
		return hd, "", fmt.Errorf("get_document: no ORI item with id %q (ids change when ORI re-indexes; search again)", id)
	}
	if hit.Source == nil {
		return hd, "", fmt.Errorf("get_document: the hit for %q lacks _source", id)
	}
	src := hit.Source.fields()
	hd = docHead{
		ID: hit.ID, Type: str(src, "@type"), Title: title(src, hit.ID), Date: date(src),
		Organization: IndexKey(hit.Index), URL: citeURL(src), Extra: map[string]any{"index": hit.Index},
	}
	citeExtra(hd.Extra, src, hit.ID)
	for _, k := range []string{"content_type", "file_name", "size_in_bytes", "is_referenced_by", "has_organization_name", "date_modified"} {
		if v, ok := src[k]; ok && v != nil && v != "" {
			hd.Extra[k] = v
		}
	}
	var notes []string
	if n, _ := total(dr.Hits.Total); n == nil || *n > 1 {
		// The same id in another index (ORI re-indexed): name it.
		var others struct {
			Hits struct {
				Hits []struct {
					Index string `json:"_index"`
				} `json:"hits"`
			} `json:"hits"`
		}
		if err := json.Unmarshal(resp.Body, &others); err == nil && len(others.Hits.Hits) > 1 {
			notes = append(notes, fmt.Sprintf("id %s exists in more than one index (%s, %s); this is the first. Pass organization to choose.", id, hit.Index, others.Hits.Hits[1].Index))
		}
	}
	text, format := "", ""
	md, err := textPages(hit.Source.MDText)
	hit.Source.MDText = nil
	switch {
	case err != nil:
		// md_text is the better text, not the only one: a broken one
		// costs the markdown, not the document.
		notes = append(notes, fmt.Sprintf("ORI's md_text (the markdown) of this item is unreadable and left out: %v.", err))
	case len(md) > 0:
		text, format = joinPages(md), "markdown"
	}
	if text == "" {
		var plain firstSource[struct {
			Text any `json:"text"`
		}]
		if err := json.Unmarshal(resp.Body, &plain); err != nil {
			return hd, "", fmt.Errorf("get_document: the platform's response is not the expected JSON: %v", err)
		}
		pages, err := textPages(plain.Hits.Hits[0].Source.Text)
		if err != nil {
			return hd, "", fmt.Errorf("get_document: field text: %v", err)
		}
		if len(pages) > 0 {
			text, format = joinPages(pages), "text"
		}
	}
	if text == "" {
		// No text at all: a meeting, or a file ORI could not read. Such
		// an item is small, so its fields are read as a whole.
		var all firstSource[map[string]any]
		if err := json.Unmarshal(resp.Body, &all); err != nil {
			return hd, "", fmt.Errorf("get_document: the platform's response is not the expected JSON: %v", err)
		}
		text, format = fieldsText(all.Hits.Hits[0].Source), "text"
	}
	hd.Format = format
	if len(notes) > 0 {
		hd.Extra["notes"] = notes
	}
	return hd, text, nil
}

// docResponse is the document lookup's answer as get_document reads it:
// hits.hits into an array of one, so encoding/json decodes the first hit
// and skips the others without decoding them.
type docResponse struct {
	Hits *struct {
		Total json.RawMessage `json:"total"`
		Hits  *[1]docHit      `json:"hits"`
	} `json:"hits"`
}

// firstSource reads one part S of the first hit's _source.
type firstSource[S any] struct {
	Hits struct {
		Hits [1]struct {
			Source S `json:"_source"`
		} `json:"hits"`
	} `json:"hits"`
}

// docHit is a hit with only the _source fields get_document shows.
type docHit struct {
	Index  string     `json:"_index"`
	ID     string     `json:"_id"`
	Source *docSource `json:"_source"`
}

// docSource holds the metadata fields as any (a field of an unexpected
// type is then simply not text, as with the map search reads) and
// md_text; text is read separately, only when md_text has none.
type docSource struct {
	Type                any `json:"@type"`
	Name                any `json:"name"`
	Title               any `json:"title"`
	FileName            any `json:"file_name"`
	LastDiscussedAt     any `json:"last_discussed_at"`
	StartDate           any `json:"start_date"`
	DateModified        any `json:"date_modified"`
	OriginalURL         any `json:"original_url"`
	URL                 any `json:"url"`
	ContentType         any `json:"content_type"`
	SizeInBytes         any `json:"size_in_bytes"`
	IsReferencedBy      any `json:"is_referenced_by"`
	HasOrganizationName any `json:"has_organization_name"`
	MDText              any `json:"md_text"`
}

// fields is the metadata as the map the search helpers read.
func (s *docSource) fields() map[string]any {
	m := map[string]any{
		"@type": s.Type, "name": s.Name, "title": s.Title, "file_name": s.FileName,
		"last_discussed_at": s.LastDiscussedAt, "start_date": s.StartDate, "date_modified": s.DateModified,
		"original_url": s.OriginalURL, "url": s.URL, "content_type": s.ContentType, "size_in_bytes": s.SizeInBytes,
		"is_referenced_by": s.IsReferencedBy, "has_organization_name": s.HasOrganizationName,
	}
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	return m
}

// RenderText is an item's readable text: md_text (markdown) when ORI has
// it, else text, both arrays with one string per page of the original, so
// page markers keep citations by page possible. An item without text
// (a meeting, a file ORI could not read) gets its scalar fields instead.
// get_document reads a hit without the whole map (extractDocument); the
// result is the same.
func RenderText(src map[string]any) (text, format string, err error) {
	for _, f := range []struct{ field, format string }{{"md_text", "markdown"}, {"text", "text"}} {
		pages, err := textPages(src[f.field])
		if err != nil {
			return "", "", fmt.Errorf("field %s: %v", f.field, err)
		}
		if len(pages) > 0 {
			return joinPages(pages), f.format, nil
		}
	}
	return fieldsText(src), "text", nil
}

// pageMark opens a page of the original in the text of an item.
const pageMark = "--- pagina "

// joinPages is a text of one or more pages of the original, each after a
// page marker when there are several.
func joinPages(pages []string) string {
	if len(pages) == 1 {
		return pages[0]
	}
	n := 0
	for _, p := range pages {
		n += len(p) + 24
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range pages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "%s%d ---\n\n%s", pageMark, i+1, strings.TrimSpace(p))
	}
	return b.String()
}

// fieldsText lists the scalar fields of an item without text.
func fieldsText(src map[string]any) string {
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
	return b.String()
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
			return "", nil, sdk.UnknownValue("classification", classification, []string{"municipality", "province", "water"}, "")
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
