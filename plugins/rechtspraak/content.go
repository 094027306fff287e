package rechtspraak

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ECLIPattern is the European Case Law Identifier: country, court code,
// year, ordinal (upper case; the connector upper-cases input first).
var ECLIPattern = regexp.MustCompile(`^ECLI:[A-Z]{2}:[A-Z0-9]{1,7}:[0-9]{4}:[A-Z0-9.]{1,25}$`)

// ContentURL is the document request for an ECLI.
func ContentURL(base, ecli string) string {
	return strings.TrimRight(base, "/") + "/uitspraken/content?id=" + url.QueryEscape(ecli)
}

// Labeled is a metadata value with the platform's identifier for it.
type Labeled struct {
	ID    string `json:"id,omitempty"`
	Label string `json:"label"`
}

// Relation is a formal relation to another decision (an earlier or later
// instance).
type Relation struct {
	ECLI   string `json:"ecli"`
	Type   string `json:"type,omitempty"`
	Aanleg string `json:"aanleg,omitempty"`
	Label  string `json:"label"`
}

// Decision is a parsed /uitspraken/content answer.
type Decision struct {
	ECLI, Type, Court, CourtID, Date, Issued, Modified string
	CaseNumbers, Spatial, Title, Deeplink              string
	Procedures, Subjects                               []Labeled
	Relations                                          []Relation
	Vindplaatsen                                       []string
	// Summary is the inhoudsindicatie; Body the uitspraak or conclusie,
	// named by BodyKind ("" when only metadata is published).
	Summary, Body, BodyKind string
	// Notes say what of the answer could not be read.
	Notes []string
}

type labeledXML struct {
	ID    string `xml:"resourceIdentifier,attr"`
	Label string `xml:",chardata"`
}

type rdfDescription struct {
	About      string       `xml:"about,attr"`
	Identifier string       `xml:"identifier"`
	Modified   string       `xml:"modified"`
	Issued     string       `xml:"issued"`
	Creator    labeledXML   `xml:"creator"`
	Date       string       `xml:"date"`
	Zaaknummer string       `xml:"zaaknummer"`
	Type       string       `xml:"type"`
	Procedures []labeledXML `xml:"procedure"`
	Spatial    string       `xml:"spatial"`
	Subjects   []labeledXML `xml:"subject"`
	Relations  []struct {
		// ecli:resourceIdentifier, psi:type, psi:aanleg: matched on local
		// names, as the prefixes are the platform's choice.
		ECLI   string `xml:"resourceIdentifier,attr"`
		Type   string `xml:"type,attr"`
		Aanleg string `xml:"aanleg,attr"`
		Label  string `xml:",chardata"`
	} `xml:"relation"`
	Vindplaatsen []string `xml:"hasVersion>list>li"`
	Title        string   `xml:"title"`
}

type openRechtspraak struct {
	XMLName      xml.Name
	Descriptions []rdfDescription `xml:"RDF>Description"`
}

// ParseContent reads a document's metadata and text.
func ParseContent(body []byte) (*Decision, error) {
	var doc openRechtspraak
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("the platform's response is not the expected XML: %v", err)
	}
	if doc.XMLName.Local != "open-rechtspraak" {
		return nil, fmt.Errorf("the platform answered <%s> where <open-rechtspraak> was expected", doc.XMLName.Local)
	}
	d := &Decision{}
	var meta *rdfDescription
	for i := range doc.Descriptions {
		desc := &doc.Descriptions[i]
		if desc.About == "" && meta == nil {
			meta = desc
		} else if desc.About != "" {
			d.Deeplink = strings.TrimSpace(desc.About)
			d.Title = clean(desc.Title)
		}
	}
	if err := extractParts(body, d); err != nil {
		return nil, err
	}
	if meta == nil || clean(meta.Identifier) == "" {
		// Without its identifier the metadata is suspect, but a text is
		// still the decision's text: the caller knows the ECLI it asked
		// for. Without a text either, nothing of the answer is readable.
		if d.BodyKind == "" && d.Summary == "" {
			return nil, fmt.Errorf("the platform's response lacks the document's dcterms:identifier")
		}
		d.Notes = append(d.Notes, "The platform's answer lacks the decision's dcterms:identifier: its metadata (court, dates, case numbers, relations) may be missing or incomplete; the text follows.")
		if meta == nil {
			return d, nil
		}
	}
	d.ECLI, d.Type, d.Date, d.Issued = clean(meta.Identifier), clean(meta.Type), sdk.ISODate(meta.Date), sdk.ISODate(meta.Issued)
	d.Modified, d.CaseNumbers, d.Spatial = clean(meta.Modified), clean(meta.Zaaknummer), clean(meta.Spatial)
	d.Court, d.CourtID = clean(meta.Creator.Label), clean(meta.Creator.ID)
	for _, p := range meta.Procedures {
		d.Procedures = append(d.Procedures, Labeled{ID: clean(p.ID), Label: clean(p.Label)})
	}
	for _, s := range meta.Subjects {
		d.Subjects = append(d.Subjects, Labeled{ID: clean(s.ID), Label: clean(s.Label)})
	}
	for _, r := range meta.Relations {
		d.Relations = append(d.Relations, Relation{ECLI: clean(r.ECLI), Type: clean(r.Type), Aanleg: clean(r.Aanleg), Label: clean(r.Label)})
	}
	for _, v := range meta.Vindplaatsen {
		if v = clean(v); v != "" {
			d.Vindplaatsen = append(d.Vindplaatsen, v)
		}
	}
	return d, nil
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// Element classes of the rechtspraak schema (DocBook-like). Anything not
// listed is a block: a paragraph break around an unknown element is safer
// than two words run together.
var (
	skipElems   = map[string]bool{"mediaobject": true, "inlinemediaobject": true, "imageobject": true, "imagedata": true}
	inlineElems = map[string]bool{"emphasis": true, "superscript": true, "subscript": true, "ulink": true, "link": true, "xref": true, "footnoteref": true, "phrase": true, "citetitle": true, "quote": true, "abbrev": true, "acronym": true, "literal": true}
	lineElems   = map[string]bool{"row": true, "listitem": true}
)

// extractParts streams the top-level inhoudsindicatie and uitspraak or
// conclusie into text, so a judgement of several MB needs no tree in
// memory.
func extractParts(body []byte, d *Decision) error {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var (
		depth, skip, note int
		part              string
		w                 sdk.TextWriter
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the platform's XML is malformed: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			name := t.Name.Local
			if depth == 2 && (name == "inhoudsindicatie" || name == "uitspraak" || name == "conclusie") {
				part, w = name, sdk.TextWriter{}
				continue
			}
			if part == "" {
				continue
			}
			if skip > 0 || skipElems[name] {
				skip++
				continue
			}
			switch {
			case name == "footnote":
				note++
				w.Text(" [noot: ")
			case name == "row":
				w.BeginRow()
			case name == "entry":
				w.Cell()
			case inlineElems[name]:
			case note > 0:
				w.Space()
			case name == "nr":
				w.Block(2)
			case lineElems[name]:
				w.Block(1)
			default:
				w.Block(2)
			}
		case xml.EndElement:
			name := t.Name.Local
			depth--
			if part == "" {
				continue
			}
			if depth == 1 {
				switch part {
				case "inhoudsindicatie":
					d.Summary = w.String()
				default:
					d.Body, d.BodyKind = w.String(), part
				}
				part = ""
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			switch {
			case name == "footnote":
				note--
				w.TrimSpace()
				w.Text("]")
			case name == "row":
				w.EndRow()
			case name == "nr":
				// A paragraph number stays on the line of its paragraph.
				w.Text(" ")
				w.Glue()
			case inlineElems[name] || name == "entry" || note > 0:
			case lineElems[name]:
				w.Block(1)
			default:
				w.Block(2)
			}
		case xml.CharData:
			if part == "" || skip > 0 {
				continue
			}
			s := string(t)
			// Whitespace with a line break between elements is the
			// indentation of pretty-printed XML, not a space in the text.
			if strings.TrimSpace(s) == "" && strings.ContainsAny(s, "\n\r") {
				continue
			}
			w.Text(s)
		}
	}
}

// GetDocumentArgs are the arguments of rechtspraak_get_document.
type GetDocumentArgs struct {
	ID string `json:"id"`
	// ECLI is id's former name, which keeps working.
	ECLI string `json:"ecli"`
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
	given, err := cite.Arg(a.ID, "ecli", a.ECLI)
	if err != nil {
		return nil, err
	}
	// An ECLI in any case and spacing (ecli:nl:hr:2024:123); another
	// platform's document gets the tool that reads it.
	ecli := strings.ToUpper(given)
	if c, ok := cite.Parse(given); ok {
		if c.Kind != cite.ECLI {
			return nil, c.Elsewhere(given)
		}
		ecli = c.ID
	}
	if !ECLIPattern.MatchString(ecli) {
		return nil, fmt.Errorf("argument \"id\": %q is not an ECLI like ECLI:NL:HR:2023:1049 (copy it from rechtspraak_search; never construct one)", given)
	}
	u := ContentURL(BaseURL, ecli)
	// The judgement is parsed once; its pages and metadata are kept by the
	// host, so reading page 40 neither fetches nor parses it again.
	extract := func(ctx context.Context) (*Decision, string, error) {
		resp, err := sdk.Get(ctx, h, u, ServiceContent, 1, connector.ClassDocument)
		if err != nil {
			return nil, "", fmt.Errorf("get_document: %w", err)
		}
		if resp.Status == 404 {
			return nil, "", fmt.Errorf("get_document: Rechtspraak has no document for %s", ecli)
		}
		if err := statusError(resp); err != nil {
			return nil, "", fmt.Errorf("get_document: %w", err)
		}
		d, err := ParseContent(resp.Body)
		if err != nil {
			return nil, "", fmt.Errorf("get_document %s: %w", ecli, err)
		}
		if d.ECLI == "" {
			d.ECLI = ecli
		}
		text := renderText(d)
		d.Body = "" // the head carries the metadata; the text is paged
		return d, text, nil
	}
	var doc sdk.TextOf[*Decision]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, u, connector.ClassDocument, a.Find, nil, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, u, connector.ClassDocument, a.Page, extract)
	}
	if err != nil {
		return nil, err
	}
	d, page, pages := doc.Head, doc.Text, doc.Pages
	title := d.Title
	if title == "" {
		title = strings.TrimRight(strings.Join([]string{d.ECLI, d.Court, d.Date, d.CaseNumbers}, ", "), ", ")
	}
	return sdk.Document{
		Platform: ID, ID: d.ECLI, Type: d.Type, Title: title, Date: d.Date, Organization: d.Court,
		URL: CitationURL(d.ECLI), Format: "markdown", Page: doc.Page, Pages: pages, Text: page,
		Find: doc.Found, Extra: map[string]map[string]any{ID: documentExtra(d)},
	}, nil
}

func documentExtra(d *Decision) map[string]any {
	x := map[string]any{"has_text": d.BodyKind != "", "deeplink": DeeplinkURL(d.ECLI)}
	if strings.HasPrefix(d.Deeplink, "http") {
		x["deeplink"] = d.Deeplink
	}
	set := func(k string, v any, ok bool) {
		if ok {
			x[k] = v
		}
	}
	set("court_id", d.CourtID, d.CourtID != "")
	set("published", d.Issued, d.Issued != "")
	set("modified", d.Modified, d.Modified != "")
	set("case_numbers", d.CaseNumbers, d.CaseNumbers != "")
	set("location", d.Spatial, d.Spatial != "")
	set("procedures", d.Procedures, len(d.Procedures) > 0)
	set("subjects", d.Subjects, len(d.Subjects) > 0)
	set("relations", d.Relations, len(d.Relations) > 0)
	set("vindplaatsen", d.Vindplaatsen, len(d.Vindplaatsen) > 0)
	set("summary", d.Summary, d.Summary != "")
	set("notes", d.Notes, len(d.Notes) > 0)
	return x
}

func renderText(d *Decision) string {
	var b strings.Builder
	if d.Summary != "" {
		b.WriteString("## Inhoudsindicatie\n\n" + d.Summary + "\n\n")
	}
	switch d.BodyKind {
	case "":
		b.WriteString("(Rechtspraak publishes only metadata for this ECLI, no text of the decision.)\n")
	default:
		heading := "Uitspraak"
		if d.BodyKind == "conclusie" {
			heading = "Conclusie"
		}
		b.WriteString("## " + heading + "\n\n" + d.Body + "\n")
	}
	return b.String()
}
