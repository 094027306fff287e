package tk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
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
// document number (2024D41173).
func DocumentURL(base, id string) (string, error) {
	switch {
	case guidPattern.MatchString(id):
		return odataURL(base, "Document("+strings.ToLower(id)+")",
			param{"$select", documentSelect}, param{"$expand", documentExpand}), nil
	case documentNummer.MatchString(strings.ToUpper(id)):
		return odataURL(base, "Document",
			param{"$filter", "DocumentNummer eq " + Literal(strings.ToUpper(id)) + " and Verwijderd eq false"},
			param{"$select", documentSelect}, param{"$expand", documentExpand}, param{"$top", "2"}), nil
	}
	return "", fmt.Errorf("argument \"id\": %q is neither a document Id (GUID) nor a document number like 2024D41173", id)
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
	u, err := DocumentURL(base, strings.TrimSpace(a.ID))
	if err != nil {
		return nil, err
	}
	rec, err := fetchDocument(ctx, h, u, a.ID)
	if err != nil {
		return nil, err
	}
	text, src, err := readText(ctx, h, base, rec)
	if err != nil {
		return nil, err
	}
	page, pages, err := sdk.Page(text, sdk.TextPageSize, a.Page)
	if err != nil {
		return nil, err
	}
	title, _ := titleAndContext(rec.Onderwerp, rec.Titel)
	title = firstNonEmpty(title, rec.Soort+" "+rec.DocumentNummer, rec.ID)
	extra := map[string]any{"text_source": src.kind, "resource_url": ResourceURL(base, rec.ID)}
	for k, v := range map[string]string{"document_nummer": rec.DocumentNummer, "titel": rec.Titel, "vergaderjaar": rec.Vergaderjaar, "content_type": rec.ContentType} {
		if v != "" {
			extra[k] = v
		}
	}
	if rec.Version != nil && rec.Version.ExterneIdentifier != "" {
		extra["externe_identifier"] = rec.Version.ExterneIdentifier
	}
	if rec.ContentLength != nil {
		extra["content_length"] = *rec.ContentLength
	}
	if src.format != "" {
		extra["file_format"] = src.format
	}
	if src.pdfPages > 0 {
		extra["pdf_pages"] = src.pdfPages
	}
	if len(src.notes) > 0 {
		extra["notes"] = src.notes
	}
	return sdk.Document{
		Platform: ID, ID: rec.ID, Type: rec.Soort, Title: title, Date: sdk.ISODate(rec.Datum),
		Organization: firstNonEmpty(rec.Organisatie, Organization), URL: src.url, Format: "text",
		Page: a.Page, Pages: pages, Text: page, Extra: map[string]map[string]any{ID: extra},
	}, nil
}

// fetchDocument reads a document's metadata, by key (one entity) or by
// number (a collection of at most one live document).
func fetchDocument(ctx context.Context, h connector.Host, u, id string) (*record, error) {
	resp, err := sdk.Get(ctx, h, u, ServiceOData, 1, ClassMetadata)
	if err != nil {
		return nil, fmt.Errorf("get_document: %w", err)
	}
	if resp.Status == 404 || resp.Status == 204 {
		return nil, fmt.Errorf("get_document: no document %q", id)
	}
	var rec record
	if guidPattern.MatchString(strings.TrimSpace(id)) {
		if err := sdk.DecodeJSON(resp, "get_document", &rec); err != nil {
			return nil, err
		}
	} else {
		var c collection
		if err := sdk.DecodeJSON(resp, "get_document", &c); err != nil {
			return nil, err
		}
		if c.Value == nil {
			return nil, fmt.Errorf("get_document: the platform's response lacks value")
		}
		if len(c.Value) == 0 {
			return nil, fmt.Errorf("get_document: no document with number %q", id)
		}
		if len(c.Value) > 1 {
			return nil, fmt.Errorf("get_document: the number %q names more than one document; pass the Id from tk_search", id)
		}
		if err := json.Unmarshal(c.Value[0], &rec); err != nil {
			return nil, fmt.Errorf("get_document: the platform's document is not the expected entity: %v", err)
		}
	}
	if rec.ID == "" {
		return nil, fmt.Errorf("get_document: the platform's response lacks Id")
	}
	if rec.Verwijderd != nil && *rec.Verwijderd {
		return nil, fmt.Errorf("get_document: document %q is marked deleted (Verwijderd) by the platform", id)
	}
	return &rec, nil
}

// textSource says where a document's text came from.
type textSource struct {
	kind     string // officielebekendmakingen_xml, pdf, xml, none
	format   string // the unreadable file's format, when kind is none
	url      string // the citable source
	pdfPages int
	notes    []string
}

// readText returns the document's text: the official XML twin when there
// is one, else the platform's file (PDF text), else an explanation of what
// the file is and where it is.
func readText(ctx context.Context, h connector.Host, base string, rec *record) (string, textSource, error) {
	var notes []string
	if rec.Version != nil {
		if xu := OfficialXMLURL(rec.Version.ExterneIdentifier); xu != "" {
			text, err := officialText(ctx, h, xu)
			if err == nil {
				return text, textSource{kind: "officielebekendmakingen_xml", url: strings.TrimSuffix(xu, ".xml") + ".html"}, nil
			}
			notes = append(notes, "The official XML "+xu+" could not be used ("+err.Error()+"); the text comes from the Tweede Kamer's own file instead.")
		}
	}
	resURL := ResourceURL(base, rec.ID)
	src := textSource{kind: "none", url: resURL, notes: notes}
	if kind := fileKind(rec.ContentType, nil); kind != "" && kind != "PDF" && kind != "XML" {
		// No use downloading what cannot be read.
		src.format = kind
		return unreadable(kind, rec.ContentLength, resURL), src, nil
	}
	resp, err := sdk.Get(ctx, h, resURL, ServiceOData, 1, connector.ClassDocument)
	if err != nil {
		return "", src, fmt.Errorf("get_document: downloading the file: %w", err)
	}
	if resp.Status == 404 || resp.Status == 204 {
		return "", src, fmt.Errorf("get_document: the platform has no file for document %s", rec.ID)
	}
	if err := sdk.CheckStatus(resp); err != nil {
		return "", src, fmt.Errorf("get_document: downloading the file: %w", err)
	}
	size := int64(len(resp.Body))
	switch kind := fileKind(rec.ContentType, resp.Body); kind {
	case "PDF":
		text, pages, err := PDFText(resp.Body)
		if err != nil {
			src.format = "PDF"
			return unreadable("PDF", &size, resURL) + "\n" + err.Error(), src, nil
		}
		src.kind, src.pdfPages = "pdf", pages
		return text, src, nil
	case "HTML":
		return "", src, fmt.Errorf("get_document: the platform answered with an HTML page instead of the document's file")
	case "XML":
		text, err := xmlText(resp.Body, "")
		if err != nil {
			return "", src, fmt.Errorf("get_document: the platform's XML file: %v", err)
		}
		src.kind = "xml"
		return text, src, nil
	default:
		src.format = kind
		return unreadable(kind, &size, resURL), src, nil
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
