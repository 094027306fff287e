package obk

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Plugin returns the connector. Search URLs are built on the manifest's
// BaseURL (the host rewrites that prefix when the admin overrides it);
// document URLs on [ZoekBase], the second allowed host.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: manifest(),
		Tools: map[string]sdk.ToolFunc{
			"search":       search,
			"get_document": getDocument,
			"list_values":  listValues,
		},
	}
}

// SearchArgs are the arguments of obk_search.
type SearchArgs struct {
	Query            string   `json:"query"`
	Publication      []string `json:"publication"`
	Organization     string   `json:"organization"`
	OrganizationType string   `json:"organization_type"`
	Dossier          string   `json:"dossier"`
	Title            string   `json:"title"`
	DocumentType     string   `json:"document_type"`
	DateFrom         string   `json:"date_from"`
	DateTo           string   `json:"date_to"`
	Sort             string   `json:"sort"`
	Limit            int      `json:"limit"`
	Offset           int      `json:"offset"`
}

var dossierPattern = regexp.MustCompile(`^[0-9]{1,6}(-[A-Za-z0-9]{1,12}){0,3}$`)

// SearchURL validates the arguments (applying defaults to a) and maps them
// to the SRU searchRetrieve request.
func SearchURL(base string, a *SearchArgs) (string, error) {
	if err := a.validate(); err != nil {
		return "", err
	}
	q := url.Values{}
	q.Set("operation", "searchRetrieve")
	q.Set("version", "2.0")
	q.Set("query", BuildCQL(*a))
	q.Set("startRecord", strconv.Itoa(a.Offset+1))
	q.Set("maximumRecords", strconv.Itoa(a.Limit))
	return strings.TrimRight(base, "/") + "/sru?" + q.Encode(), nil
}

// sruResponse is an SRU 2.0 searchRetrieveResponse. Tags carry no namespace
// so that encoding/xml matches on local names: the clients disagree on the
// diagnostics namespace (SRU 1.x's loc.gov one or SRU 2.0's OASIS one).
type sruResponse struct {
	XMLName            xml.Name
	NumberOfRecords    *string         `xml:"numberOfRecords"`
	NextRecordPosition string          `xml:"nextRecordPosition"`
	Records            []sruRecord     `xml:"records>record"`
	Diagnostics        []sruDiagnostic `xml:"diagnostics>diagnostic"`
	// RootDiagnostics is filled when the root itself is <diagnostics>.
	RootDiagnostics []sruDiagnostic `xml:"diagnostic"`
}

type sruDiagnostic struct {
	URI     string `xml:"uri"`
	Details string `xml:"details"`
	Message string `xml:"message"`
}

type sruRecord struct {
	Meta struct {
		Kern struct {
			Identifier string   `xml:"identifier"`
			Title      string   `xml:"title"`
			Type       []string `xml:"type"`
			Creator    []string `xml:"creator"`
			Modified   string   `xml:"modified"`
		} `xml:"owmskern"`
		Mantel struct {
			Available string   `xml:"available"`
			Date      string   `xml:"date"`
			Subject   []string `xml:"subject"`
			Abstract  string   `xml:"abstract"`
			Publisher string   `xml:"publisher"`
		} `xml:"owmsmantel"`
		TP struct {
			Publicatienaam   string `xml:"publicatienaam"`
			Publicatienummer string `xml:"publicatienummer"`
			Jaargang         string `xml:"jaargang"`
			Dossiernummer    string `xml:"dossiernummer"`
			Ondernummer      string `xml:"ondernummer"`
			Vergaderjaar     string `xml:"vergaderjaar"`
			Organisatietype  string `xml:"organisatietype"`
			Documentstatus   string `xml:"documentstatus"`
		} `xml:"tpmeta"`
	} `xml:"recordData>gzd>originalData>meta"`
	Enriched struct {
		PreferredURL string `xml:"preferredUrl"`
		ItemURLs     []struct {
			Manifestation string `xml:"manifestation,attr"`
			URL           string `xml:",chardata"`
		} `xml:"itemUrl"`
	} `xml:"recordData>gzd>enrichedData"`
}

func search(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a SearchArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	u, err := SearchURL(SRUBase, &a)
	if err != nil {
		return nil, err
	}
	resp, err := sdk.Get(ctx, h, u, ServiceSRU, 1, connector.ClassSearch)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	sr, err := parseSRU(resp)
	if err != nil {
		return nil, err
	}
	return normalise(sr, a)
}

// parseSRU reads an SRU answer. Diagnostics are errors whatever the HTTP
// status: KOOP answers a bad query with 200 and a diagnostic, and ignoring
// one would return results that do not match the question.
func parseSRU(resp connector.FetchResponse) (*sruResponse, error) {
	var sr sruResponse
	xmlErr := xml.Unmarshal(resp.Body, &sr)
	if xmlErr == nil {
		if d := append(sr.Diagnostics, sr.RootDiagnostics...); len(d) > 0 {
			return nil, fmt.Errorf("search: the platform did not accept the query: %s", describeDiagnostics(d))
		}
	}
	if err := statusError(resp); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if xmlErr != nil {
		return nil, fmt.Errorf("search: the platform's response is not the expected SRU XML: %v", xmlErr)
	}
	if sr.XMLName.Local != "searchRetrieveResponse" {
		return nil, fmt.Errorf("search: the platform answered <%s> where an SRU searchRetrieveResponse was expected", sr.XMLName.Local)
	}
	if sr.NumberOfRecords == nil {
		return nil, fmt.Errorf("search: the platform's response lacks numberOfRecords")
	}
	return &sr, nil
}

func describeDiagnostics(ds []sruDiagnostic) string {
	var parts []string
	for _, d := range ds {
		s := strings.TrimSpace(d.Message)
		if det := strings.TrimSpace(d.Details); det != "" {
			s += " (" + det + ")"
		}
		if uri := strings.TrimSpace(d.URI); uri != "" {
			s += " [" + uri + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// statusError is sdk.CheckStatus for a platform whose error bodies are HTML
// pages (overload gives 500/503 with HTML): it quotes the page title rather
// than its first line, which would be "<html>".
func statusError(resp connector.FetchResponse) error {
	err := sdk.CheckStatus(resp)
	if err == nil {
		return nil
	}
	if t := htmlTitle(resp.Body); t != "" {
		err = &sdk.StatusError{Status: resp.Status, Detail: t}
	}
	if resp.Status == 429 || resp.Status == 503 || resp.Status == 504 {
		return fmt.Errorf("%w (the platform is busy or rate-limiting; try again later)", err)
	}
	return err
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(body []byte) string {
	m := titleRE.FindSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.Join(strings.Fields(sdk.StripTags(string(m[1]))), " ")
}

func normalise(sr *sruResponse, a SearchArgs) (sdk.SearchResult, error) {
	total, err := strconv.Atoi(strings.TrimSpace(*sr.NumberOfRecords))
	if err != nil || total < 0 {
		return sdk.SearchResult{}, fmt.Errorf("search: the platform's numberOfRecords %q is not a count", *sr.NumberOfRecords)
	}
	out := sdk.SearchResult{Platform: ID, Total: &total, Offset: a.Offset, Results: []sdk.Item{}}
	// A record without an identifier cannot be read or cited: it is left
	// out with a note, unless no record is readable.
	var bad error
	skipped := 0
	for i, r := range sr.Records {
		item, err := recordItem(&r)
		if err != nil {
			if bad == nil {
				bad = fmt.Errorf("search: record %d: %w", a.Offset+i+1, err)
			}
			skipped++
			continue
		}
		out.Results = append(out.Results, item)
	}
	if bad != nil && len(out.Results) == 0 {
		return sdk.SearchResult{}, bad
	}
	if skipped > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d of the %d records the platform sent could not be read and were left out (%s).", skipped, len(sr.Records), strings.TrimPrefix(bad.Error(), "search: ")))
	}
	next := a.Offset + len(sr.Records)
	out.HasMore = len(sr.Records) > 0 && next < total
	if out.HasMore && next > MaxOffset {
		out.HasMore = false
		out.Notes = append(out.Notes, fmt.Sprintf("The platform serves only the first 9,999 of the %d hits; narrow the filters (dates, publication, organization) to reach the rest.", total))
	}
	if a.Organization != "" && a.OrganizationType == "" {
		out.Notes = append(out.Notes, "organization is matched as contained words (\"Utrecht\" also matches \"Rechtbank Utrecht\" and provincie Utrecht); add organization_type to narrow it.")
	}
	return out, nil
}

func recordItem(r *sruRecord) (sdk.Item, error) {
	k, m, tp := &r.Meta.Kern, &r.Meta.Mantel, &r.Meta.TP
	id := strings.TrimSpace(k.Identifier)
	if id == "" {
		return sdk.Item{}, fmt.Errorf("no dcterms:identifier")
	}
	date := sdk.ISODate(m.Date)
	if date == "" {
		date = sdk.ISODate(m.Available)
	}
	extra := map[string]any{}
	set := func(key, v string) {
		if v = strings.TrimSpace(v); v != "" {
			extra[key] = v
		}
	}
	set("document_type", strings.Join(k.Type, "; "))
	set("available", sdk.ISODate(m.Available))
	set("modified", sdk.ISODate(k.Modified))
	set("subject", strings.Join(m.Subject, "; "))
	set("publisher", m.Publisher)
	set("publication_number", tp.Publicatienummer)
	set("volume", tp.Jaargang)
	set("dossier", tp.Dossiernummer)
	set("sub_number", tp.Ondernummer)
	set("session_year", tp.Vergaderjaar)
	set("organization_type", tp.Organisatietype)
	set("document_status", tp.Documentstatus)
	for _, iu := range r.Enriched.ItemURLs {
		if iu.Manifestation == "pdf" || iu.Manifestation == "xml" {
			set(iu.Manifestation+"_url", iu.URL)
		}
	}
	return sdk.Item{
		ID: id, Type: strings.TrimSpace(tp.Publicatienaam), Title: strings.TrimSpace(k.Title), Date: date,
		Organization: strings.TrimSpace(strings.Join(k.Creator, "; ")),
		Snippet:      strings.TrimSpace(sdk.StripTags(m.Abstract)),
		URL:          citeURL(id, r.Enriched.PreferredURL),
		// A Kamerstuk's id names its dossier and number (kst-36800-VII-14),
		// the key the Tweede Kamer's own platforms can give too.
		Keys:  sdk.DocKeys{Publication: id, Kamerstuk: kamerstukOf(id)}.Map(),
		Extra: map[string]map[string]any{ID: extra},
	}, nil
}

// kamerstukOf is id when it is a Kamerstuk's (kst-…), for its key.
func kamerstukOf(id string) string {
	if strings.HasPrefix(strings.ToLower(id), "kst-") {
		return id
	}
	return ""
}

// citeURL is the publication's page on the official site: the record's
// preferred URL when it is one on https, else the page built from the id
// (the same page; an http or foreign preferred URL would make search and
// get_document cite differently).
func citeURL(id, preferred string) string {
	preferred = strings.TrimSpace(preferred)
	if strings.HasPrefix(preferred, ZoekBase+"/") {
		return preferred
	}
	return ZoekBase + "/" + url.PathEscape(id) + ".html"
}

func listValues(_ context.Context, _ connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		List string `json:"list"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	out := sdk.ListResult{Platform: ID, Items: []sdk.Item{}}
	switch a.List {
	case "", "publication_types":
		out.List = "publication_types"
		for _, p := range PublicationTypes {
			out.Items = append(out.Items, sdk.Item{
				ID: p.Name, Type: "publication", Title: p.Name, Snippet: p.Description,
				Extra: map[string]map[string]any{ID: {"id_prefix": p.Prefix}},
			})
		}
	case "organization_types":
		out.List = "organization_types"
		for _, t := range OrganizationTypes {
			out.Items = append(out.Items, sdk.Item{ID: t, Type: "organization_type", Title: t})
		}
	default:
		return nil, sdk.UnknownValue("list", a.List, []string{"publication_types", "organization_types"}, "")
	}
	out.Count = len(out.Items)
	return out, nil
}
