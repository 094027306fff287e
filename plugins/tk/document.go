package tk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var (
	guidPattern     = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	documentNummer  = regexp.MustCompile(`^[0-9]{4}D[0-9]{3,6}$`)
	zaakNummer      = regexp.MustCompile(`^[0-9]{4}Z[0-9]{3,6}$`)
	officialPattern = regexp.MustCompile(`^(kst|ah-tk|h-tk)-[0-9A-Za-z][0-9A-Za-z.-]{0,80}$`)
)

// documentExpand asks for the current version's fields, the only way to the
// external identifier (kst-…) of the official publication.
const documentExpand = "HuidigeDocumentVersie($select=Id,ExterneIdentifier,Extensie,Bestandsgrootte,Versienummer)"

const documentSelect = "Id,Soort,DocumentNummer,Titel,Onderwerp,Datum,Vergaderjaar,Organisatie,ContentType,ContentLength,Verwijderd"

// DocumentURL is the metadata request for a document by Id (GUID) or by
// document number (2024D41173), with the current version expanded.
func DocumentURL(base, id string) (string, error) {
	urls, err := MetadataURLs(base, id)
	if err != nil {
		return "", err
	}
	return urls[0], nil
}

// MetadataURLs are the metadata requests for a document (by Id, document
// number in any case, or Kamerstuk as cited), richest first:
// with the current version expanded (the only way to the external
// identifier of the official XML), then without the expansion, then
// without $select. A platform that renames or drops a property or a
// navigation answers HTTP 400 naming it; the next request asks less.
func MetadataURLs(base, id string) ([]string, error) {
	var path string
	var filter, top []param
	c, cited := cite.Parse(id)
	switch {
	case guidPattern.MatchString(id):
		path = "Document(" + strings.ToLower(id) + ")"
	case cited && c.Kind == cite.TKDocument:
		path = "Document"
		filter = []param{{"$filter", "DocumentNummer eq " + Literal(c.ID) + " and Verwijderd eq false"}}
		top = []param{{"$top", "2"}}
	case cited && c.Kamerstuk != nil && !c.AsID:
		// A Kamerstuk as cited: the document by its dossier and number,
		// as tk_get_votes finds it.
		path = "Document"
		k := c.Kamerstuk
		filter = []param{{"$filter", "Verwijderd eq false and " + kamerstukFilter(k.Dossier, k.Toevoeging, k.Number)}}
		top = []param{{"$top", "2"}}
	case cited:
		return nil, c.Elsewhere(id)
	default:
		return nil, fmt.Errorf("argument \"id\": %q is neither a document Id (GUID), a document number like 2024D41173, nor a Kamerstuk cited like \"Kamerstukken II 2025/26, 36800-VII, nr. 14\"", clip(id, 80))
	}
	build := func(ps ...param) string {
		return odataURL(base, path, append(append(append([]param(nil), filter...), ps...), top...)...)
	}
	return []string{
		build(param{"$select", documentSelect}, param{"$expand", documentExpand}),
		build(param{"$select", documentSelect}),
		build(),
	}, nil
}

// OfficialXMLURL is the official publication's XML for an external
// identifier of a Kamerstuk (kst-…), Handelingen (h-tk-…) or Aanhangsel
// (ah-tk-…), or "" when the identifier names none of these.
func OfficialXMLURL(extid string) string {
	if !officialPattern.MatchString(extid) {
		return ""
	}
	return OBKBaseURL + "/" + url.PathEscape(extid) + ".xml"
}

// GetDocumentArgs are the arguments of tk_get_document.
type GetDocumentArgs struct {
	ID   string `json:"id"`
	Page int    `json:"page"`
	Find string `json:"find"`
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
	base := BaseURL
	// The metadata is read on every call (cached a day): it names the
	// document's text source, and the text key depends on it.
	rec, notes, err := fetchDocument(ctx, h, base, strings.TrimSpace(a.ID))
	if err != nil {
		return nil, err
	}
	xu := ""
	if rec.Version != nil {
		xu = OfficialXMLURL(rec.Version.ExterneIdentifier)
	}
	// The text is fetched and extracted once; its pages and its source are
	// kept by the host, so page 40 of a Handelingen, or a find in it,
	// neither downloads nor parses it again.
	key := textKey(base, rec, xu)
	extract := func(ctx context.Context) (textSource, string, error) { return readText(ctx, h, base, rec, xu) }
	var doc sdk.TextOf[textSource]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, key, connector.ClassDocument, a.Find, pdfMarks, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, key, connector.ClassDocument, a.Page, extract)
	}
	if err != nil {
		return nil, err
	}
	src := doc.Head
	title, _ := titleAndContext(rec.Onderwerp, rec.Titel)
	title = firstNonEmpty(title, rec.Soort+" "+rec.DocumentNummer, rec.ID)
	extra := map[string]any{"text_source": src.Kind, "resource_url": ResourceURL(base, rec.ID)}
	for k, v := range map[string]string{"document_nummer": rec.DocumentNummer, "titel": rec.Titel, "vergaderjaar": rec.Vergaderjaar, "content_type": rec.ContentType} {
		if v != "" {
			extra[k] = v
		}
	}
	if v := VotesHint(rec.Soort, rec.DocumentNummer, false); v != "" {
		extra["votes"] = v
	}
	if rec.Version != nil && rec.Version.ExterneIdentifier != "" {
		extra["externe_identifier"] = rec.Version.ExterneIdentifier
	}
	if c := counterparts(rec); len(c) > 0 {
		extra["counterparts"] = c
	}
	if rec.ContentLength != nil {
		extra["content_length"] = *rec.ContentLength
	}
	if src.Format != "" {
		extra["file_format"] = src.Format
	}
	if src.PDFPages > 0 {
		extra["pdf_pages"] = src.PDFPages
	}
	if src.Kind == "officielebekendmakingen_xml" && strings.HasPrefix(src.URL, "https://") {
		// The official publication the text was read from: a page too,
		// but not the one tk_search cites.
		extra["officielebekendmakingen_url"] = src.URL
	}
	if notes = append(notes, src.Notes...); len(notes) > 0 {
		extra["notes"] = notes
	}
	// The citation is the document's page on tweedekamer.nl, the one
	// tk_search cites; without metadata there is no document number, so
	// no page (the file is extra.tk.resource_url).
	return sdk.Document{
		Platform: ID, ID: rec.ID, Type: rec.Soort, Title: title, Date: sdk.ISODate(rec.Datum),
		Organization: firstNonEmpty(rec.Organisatie, Organization), URL: DocumentPageURL(rec.DocumentNummer), Format: "text",
		Page: doc.Page, Pages: doc.Pages, Text: doc.Text, Find: doc.Found, Extra: map[string]map[string]any{ID: extra},
	}, nil
}

// counterparts are the document on the other platforms that carry it, as
// its metadata links them: its official publication on Officiële
// Bekendmakingen (the current version's external identifier,
// kst-36800-VII-14) and OpenTK's copy by document number.
func counterparts(rec *record) []cite.Counterpart {
	var out []cite.Counterpart
	if rec.Version != nil {
		if c, ok := cite.PublicationCounterpart(rec.Version.ExterneIdentifier); ok {
			out = append(out, c)
		}
	}
	if c, ok := cite.Parse(rec.DocumentNummer); ok && c.Kind == cite.TKDocument {
		out = append(out, cite.Counterpart{Platform: "opentk", Tool: "opentk_get_document", ID: c.ID})
	}
	return out
}

// pdfMarks: a PDF's text marks its pages ("[page 12]", see PDFText), and
// the file opens at one with #page=12.
func pdfMarks(src textSource) sdk.PageMarks {
	if src.Kind != "pdf" {
		return sdk.PageMarks{}
	}
	return sdk.PageMarks{Prefix: "[page ", File: src.URL}
}

// textKey names a document's text for the host: its file, and what else
// decides the text read (the official XML twin, the content type and size
// that decide whether the file is read at all, the version).
func textKey(base string, rec *record, xu string) string {
	k := ResourceURL(base, rec.ID) + "#text"
	add := func(name, v string) {
		if v != "" {
			k += " " + name + "=" + v
		}
	}
	add("xml", xu)
	add("type", rec.ContentType)
	if rec.ContentLength != nil {
		add("length", strconv.FormatInt(*rec.ContentLength, 10))
	}
	if v := rec.Version; v != nil {
		add("version", v.ID)
		if v.Versienummer != nil {
			add("nr", strconv.Itoa(*v.Versienummer))
		}
	}
	if len(k) > connector.MaxTextKey {
		sum := sha256.Sum256([]byte(k))
		k = ResourceURL(base, rec.ID) + "#text sha256=" + hex.EncodeToString(sum[:])
	}
	return k
}

// answer marks a metadata error that is the platform's answer about the
// document (unknown, deleted, ambiguous), not a failure to read it.
type answer struct{ error }

// fetchDocument reads a document's metadata, by key (one entity) or by
// number (a collection of at most one live document). When the platform
// refuses a request with HTTP 400 (a renamed property or navigation), it
// asks again for less, and says in the notes what was lost; when even the
// barest request fails for a document named by Id, it goes on with only
// the Id, so that the file can still be read.
func fetchDocument(ctx context.Context, h connector.Host, base, id string) (*record, []string, error) {
	urls, err := MetadataURLs(base, id)
	if err != nil {
		return nil, nil, err
	}
	byKey := guidPattern.MatchString(id)
	var notes, refusals []string
	for i, u := range urls {
		resp, err := sdk.Get(ctx, h, u, ServiceOData, 1, ClassMetadata)
		if err == nil && resp.Status == 400 && i+1 < len(urls) {
			refusal := sdk.CheckStatus(resp).Error()
			refusals = append(refusals, refusal)
			if i == 0 {
				notes = append(notes, "The official XML twin on officielebekendmakingen.nl could not be looked up: the platform refused to expand the document's current version (HuidigeDocumentVersie; "+refusal+"), so the text comes from the Tweede Kamer's own file.")
			} else {
				notes = append(notes, "The platform also refused the selected metadata fields ("+refusal+"); the metadata was read in full instead.")
			}
			continue
		}
		var rec *record
		if err == nil {
			var more []string
			rec, more, err = parseDocument(resp, id, byKey)
			notes = append(notes, more...)
		}
		if err != nil {
			var ans answer
			if i == 0 || errors.As(err, &ans) {
				return nil, nil, err
			}
			if !byKey {
				// Without metadata a number names no file.
				return nil, nil, fmt.Errorf("%w; the platform had refused the fuller metadata requests (%s). Pass the document's Id (GUID) from tk_search instead: by Id its file is read even without metadata", err, strings.Join(refusals, "; "))
			}
			notes = append(notes, "The document's metadata could not be read ("+err.Error()+"): its title, type and date are unknown, and its file was read without them.")
			return &record{ID: strings.ToLower(id)}, notes, nil
		}
		if i == 0 && rec.Version == nil {
			notes = append(notes, "The platform's metadata names no current version (HuidigeDocumentVersie), so no official XML twin was looked for; the text comes from the Tweede Kamer's own file.")
		}
		return rec, notes, nil
	}
	return nil, nil, errors.New("get_document: no metadata request left") // not reached: the last request never continues
}

// parseDocument reads one metadata answer.
func parseDocument(resp connector.FetchResponse, id string, byKey bool) (*record, []string, error) {
	if resp.Status == 404 || resp.Status == 204 {
		return nil, nil, answer{fmt.Errorf("get_document: no document %q", id)}
	}
	if err := sdk.CheckStatus(resp); err != nil {
		return nil, nil, fmt.Errorf("get_document: %w", err)
	}
	entity := json.RawMessage(resp.Body)
	if !byKey {
		var c collection
		if err := sdk.DecodeJSON(resp, "get_document", &c); err != nil {
			return nil, nil, err
		}
		if c.Value == nil {
			return nil, nil, fmt.Errorf("get_document: the platform's response lacks value")
		}
		if len(c.Value) == 0 {
			return nil, nil, answer{fmt.Errorf("get_document: no document with number %q", id)}
		}
		if len(c.Value) > 1 {
			return nil, nil, answer{fmt.Errorf("get_document: the number %q names more than one document; pass the Id from tk_search", id)}
		}
		entity = c.Value[0]
	}
	var rec record
	dropped, err := sdk.DecodeLenient(entity, &rec, "Id")
	if err != nil {
		if byKey {
			return nil, nil, fmt.Errorf("get_document: the platform's response is not the expected JSON: %v", err)
		}
		return nil, nil, fmt.Errorf("get_document: the platform's document is not the expected entity: %v", err)
	}
	if rec.ID == "" {
		return nil, nil, fmt.Errorf("get_document: the platform's response lacks Id")
	}
	if rec.Verwijderd != nil && *rec.Verwijderd {
		return nil, nil, answer{fmt.Errorf("get_document: document %q is marked deleted (Verwijderd) by the platform", id)}
	}
	var notes []string
	if len(dropped) > 0 {
		notes = append(notes, sdk.DroppedNote("The platform", "the document's metadata", dropped))
	}
	return &rec, notes, nil
}

// textSource says where a document's text came from: the head kept with
// the text, all a later page needs besides the metadata.
type textSource struct {
	Kind     string   `json:"kind"`             // officielebekendmakingen_xml, pdf, xml, none
	Format   string   `json:"format,omitempty"` // the unreadable file's format, when kind is none
	URL      string   `json:"url"`              // the file or publication read
	PDFPages int      `json:"pdf_pages,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// readText returns the document's text: the official XML twin xu when
// there is one, else the platform's file (PDF text), else an explanation
// of what the file is and where it is.
func readText(ctx context.Context, h connector.Host, base string, rec *record, xu string) (textSource, string, error) {
	var notes []string
	if xu != "" {
		text, err := officialText(ctx, h, xu)
		if err == nil {
			return textSource{Kind: "officielebekendmakingen_xml", URL: strings.TrimSuffix(xu, ".xml") + ".html"}, text, nil
		}
		notes = append(notes, "The official XML "+xu+" could not be used ("+err.Error()+"); the text comes from the Tweede Kamer's own file instead.")
	}
	resURL := ResourceURL(base, rec.ID)
	src := textSource{Kind: "none", URL: resURL, Notes: notes}
	if kind := fileKind(rec.ContentType, nil); kind != "" && kind != "PDF" && kind != "XML" {
		// No use downloading what cannot be read.
		src.Format = kind
		return src, unreadable(kind, rec.ContentLength, resURL), nil
	}
	resp, err := sdk.Get(ctx, h, resURL, ServiceOData, 1, connector.ClassDocument)
	if err != nil {
		return src, "", fmt.Errorf("get_document: downloading the file: %w", err)
	}
	if resp.Status == 404 || resp.Status == 204 {
		return src, "", fmt.Errorf("get_document: the platform has no file for document %s", rec.ID)
	}
	if err := sdk.CheckStatus(resp); err != nil {
		return src, "", fmt.Errorf("get_document: downloading the file: %w", err)
	}
	size := int64(len(resp.Body))
	switch kind := fileKind(rec.ContentType, resp.Body); kind {
	case "PDF":
		text, pages, err := PDFText(resp.Body)
		if err != nil {
			src.Format = "PDF"
			return src, unreadable("PDF", &size, resURL) + "\n" + err.Error(), nil
		}
		src.Kind, src.PDFPages = "pdf", pages
		return src, text, nil
	case "HTML":
		return src, "", fmt.Errorf("get_document: the platform answered with an HTML page instead of the document's file")
	case "XML":
		text, err := xmlText(resp.Body, "")
		if err != nil {
			return src, "", fmt.Errorf("get_document: the platform's XML file: %v", err)
		}
		src.Kind = "xml"
		return src, text, nil
	default:
		src.Format = kind
		return src, unreadable(kind, &size, resURL), nil
	}
}

// officialText fetches and extracts the official publication's XML.
func officialText(ctx context.Context, h connector.Host, u string) (string, error) {
	resp, err := sdk.Get(ctx, h, u, ServiceOBK, 1, connector.ClassDocument)
	if err != nil {
		var fe *connector.FetchError
		if errors.As(err, &fe) {
			return "", fmt.Errorf("%s: %s", fe.Kind, fe.Message)
		}
		return "", err
	}
	if resp.Status == 404 {
		return "", fmt.Errorf("not published there (HTTP 404)")
	}
	if err := sdk.CheckStatus(resp); err != nil {
		return "", err
	}
	return PublicationText(resp.Body)
}

// fileKind names a file's format from its first bytes, or from the
// platform's content type when there are no bytes yet. "" means unknown.
func fileKind(contentType string, body []byte) string {
	ct := strings.ToLower(contentType)
	if body != nil {
		switch {
		case bytes.HasPrefix(body, []byte("%PDF-")):
			return "PDF"
		case bytes.HasPrefix(body, []byte("PK\x03\x04")):
			if strings.Contains(ct, "wordprocessingml") {
				return "DOCX"
			}
			return "ZIP"
		case bytes.HasPrefix(body, []byte("\xD0\xCF\x11\xE0")):
			return "DOC"
		}
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF")), " \t\r\n")
		head := strings.ToLower(string(trimmed[:min(len(trimmed), 15)]))
		switch {
		case strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html"):
			return "HTML"
		case strings.HasPrefix(head, "<?xml") || strings.Contains(ct, "xml") && strings.HasPrefix(head, "<"):
			return "XML"
		}
		// Bytes that are none of these are not what the content type says.
		return "unknown"
	}
	switch {
	case ct == "":
		return ""
	case strings.Contains(ct, "pdf"):
		return "PDF"
	case strings.Contains(ct, "wordprocessingml"):
		return "DOCX"
	case strings.Contains(ct, "msword"):
		return "DOC"
	case strings.Contains(ct, "zip"):
		return "ZIP"
	case strings.Contains(ct, "xml"):
		return "XML"
	}
	return ct
}

// unreadable is the text returned in place of a file this connector cannot
// read: what it is, how big, and where to get it.
func unreadable(kind string, size *int64, link string) string {
	s := "This document's file is "
	if kind == "unknown" {
		s += "in an unknown format"
	} else {
		s += "a " + kind + " file"
	}
	if size != nil && *size > 0 {
		s += fmt.Sprintf(" of %s", humanSize(*size))
	}
	return s + "; its text cannot be extracted by this connector. Download it from " + link
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d kB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
