package obk

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

var idPattern = regexp.MustCompile(`^[a-z]{1,6}(-[a-z]{2})?-[0-9A-Za-z][0-9A-Za-z.-]*$`)

// publicationID is the platform's id of a publication given as its id in
// any case (Stcrt-2025-18220) or as cited ("Stcrt. 2025, 18220",
// "Kamerstukken II 2025/26, 36800-VII, nr. 14"); another platform's
// document gets an error naming the tool that reads it.
func publicationID(given string) (string, error) {
	given = strings.TrimSpace(given)
	if c, ok := cite.Parse(given); ok {
		if c.Platform() != ID {
			return "", c.Elsewhere(given)
		}
		return c.ID, nil
	}
	// A family the citation forms do not know: the platform's own spelling
	// has it in lower case.
	id := given
	if fam, rest, ok := strings.Cut(id, "-"); ok {
		id = strings.ToLower(fam) + "-" + rest
	}
	if len(id) > 100 || !idPattern.MatchString(id) {
		if len(given) > 80 {
			given = given[:80] + "…"
		}
		return "", fmt.Errorf("argument \"id\": %q is not a publication id like kst-33328-AI or stcrt-2015-47076, nor a citation like \"Stcrt. 2025, 18220\" or \"Kamerstukken II 2025/26, 36800-VII, nr. 14\"", given)
	}
	return id, nil
}

// GetDocumentArgs are the arguments of obk_get_document.
type GetDocumentArgs struct {
	ID   string `json:"id"`
	Page int    `json:"page"`
	Find string `json:"find"`
}

// DocumentURL is the publication's XML rendition on the zoek host (byte
// identical to the repository's, which forbids crawling in robots.txt).
func DocumentURL(id string) string {
	return ZoekBase + "/" + url.PathEscape(id) + ".xml"
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
	if a.ID, err = publicationID(a.ID); err != nil {
		return nil, err
	}
	u := DocumentURL(a.ID)
	// The XML is fetched and turned into text once; the host keeps the
	// pages with the head, so page 40 of a Handelingen costs neither a
	// request (of the 10 per 30 s) nor a parse, and a find in it neither.
	extract := func(ctx context.Context) (*docHead, string, error) { return readDocument(ctx, h, u, a.ID) }
	var doc sdk.TextOf[*docHead]
	if a.Find != "" {
		doc, err = sdk.FindText(ctx, h, u, connector.ClassDocument, a.Find, nil, extract)
	} else {
		doc, err = sdk.PagedText(ctx, h, u, connector.ClassDocument, a.Page, extract)
	}
	if err != nil {
		return nil, err
	}
	d := doc.Head
	extra := map[string]any{
		"xml_url": u,
		"pdf_url": ZoekBase + "/" + url.PathEscape(a.ID) + ".pdf",
		"root":    d.Root,
	}
	if d.MetadataURL != "" {
		extra["metadata_url"] = d.MetadataURL
	}
	// A Kamerstuk with a numbered item is the Tweede Kamer's document
	// too: it names the call that reads it there (and back, tk's result
	// names this publication).
	if c, ok := cite.TKCounterpart(a.ID); ok {
		extra["counterparts"] = []cite.Counterpart{c}
	}
	out := sdk.Document{
		Platform: ID, ID: a.ID, Type: publicationOf(a.ID), Title: firstNonEmpty(d.Title, a.ID),
		Date: d.Date, Organization: d.Organization,
		URL: citeURL(a.ID, ""), Format: "text", Page: doc.Page, Pages: doc.Pages, Text: doc.Text,
		Find: doc.Found, Extra: map[string]map[string]any{ID: extra},
	}
	rec := d.Record
	if d.LookupFailed {
		// The lookup failed when the text was read: try again, so that a
		// passing failure is not kept with the text for weeks.
		var err error
		if rec, err = lookupRecord(ctx, h, a.ID); err != nil {
			extra["notes"] = []string{"Date and publishing body are unknown: " + err.Error() + "."}
		}
	}
	if rec != nil {
		out.Date = firstNonEmpty(rec.Date, out.Date)
		out.Organization = firstNonEmpty(rec.Organization, out.Organization)
		out.Type = firstNonEmpty(rec.Type, out.Type)
		if out.Title == a.ID {
			out.Title = firstNonEmpty(rec.Title, out.Title)
		}
		out.URL = rec.URL
	}
	return out, nil
}

// RecordURL is the SRU request for one publication's record by its
// identifier.
func RecordURL(base, id string) string {
	q := url.Values{}
	q.Set("operation", "searchRetrieve")
	q.Set("version", "2.0")
	q.Set("query", collection+" AND dt.identifier=="+CQLQuote(id))
	q.Set("startRecord", "1")
	q.Set("maximumRecords", "1")
	return strings.TrimRight(base, "/") + "/sru?" + q.Encode()
}

// lookupRecord is the publication's SRU record as a search result item
// (nil when the index has none). The record of a publication does not
// change, so it is kept as long as the text.
func lookupRecord(ctx context.Context, h connector.Host, id string) (*sdk.Item, error) {
	resp, err := sdk.Get(ctx, h, RecordURL(SRUBase, id), ServiceSRU, 1, connector.ClassDocument)
	if err != nil {
		return nil, fmt.Errorf("the SRU lookup failed (%v)", err)
	}
	sr, err := parseSRU(resp)
	if err != nil {
		return nil, fmt.Errorf("the SRU lookup failed (%s)", strings.TrimPrefix(err.Error(), "search: "))
	}
	for i := range sr.Records {
		if it, err := recordItem(&sr.Records[i]); err == nil && it.ID == id {
			return &it, nil
		}
	}
	return nil, nil
}

// docHead is what a document's result needs besides its text, kept with
// the text so that a later page needs neither the XML nor its parse.
type docHead struct {
	Root         string `json:"root"`
	Title        string `json:"title,omitempty"`
	Date         string `json:"date,omitempty"`
	Organization string `json:"organization,omitempty"`
	MetadataURL  string `json:"metadata_url,omitempty"`
	// Record is the publication's SRU record, which has the date and
	// publishing body the XML rarely carries (nil when the index has
	// none); LookupFailed says the lookup itself failed and is retried.
	Record       *sdk.Item `json:"record,omitempty"`
	LookupFailed bool      `json:"lookup_failed,omitempty"`
}

// readDocument fetches a publication's XML and extracts its text and head.
func readDocument(ctx context.Context, h connector.Host, u, id string) (*docHead, string, error) {
	resp, err := sdk.Get(ctx, h, u, ServiceZoek, 1, connector.ClassDocument)
	if err != nil {
		return nil, "", fmt.Errorf("get_document: %w", err)
	}
	if resp.Status == 404 {
		return nil, "", fmt.Errorf("get_document: zoek.officielebekendmakingen.nl has no XML for %q: the id is unknown or the publication has no XML rendition (its page would be %s)", id, citeURL(id, ""))
	}
	if err := statusError(resp); err != nil {
		return nil, "", fmt.Errorf("get_document: %w", err)
	}
	x, err := ExtractText(resp.Body)
	if err != nil {
		return nil, "", fmt.Errorf("get_document %s: %w", id, err)
	}
	text := x.Text
	if text == "" {
		text = "(the XML of this publication holds no text; see the publication page or its PDF)"
	}
	// The publication XML rarely carries its date and publisher (they live
	// in the metadata record); the SRU index has them, as obk_search showed
	// them. SRU rather than metadata.xml, because the zoek host's 10
	// requests per 30 s are the scarce ones. A failed lookup costs the
	// date, not the text.
	rec, lerr := lookupRecord(ctx, h, id)
	return &docHead{
		Record: rec, LookupFailed: lerr != nil,
		Root:         x.Root,
		Title:        firstNonEmpty(x.Meta["DC.title"], x.Meta["DCTERMS.title"], x.Title),
		Date:         sdk.ISODate(firstNonEmpty(x.Meta["DCTERMS.issued"], x.Meta["DC.date"], x.Meta["DCTERMS.available"])),
		Organization: firstNonEmpty(x.Meta["DC.creator"], x.Meta["DCTERMS.creator"]),
		MetadataURL:  x.Meta["OVERHEIDop.externMetadataRecord"],
	}, text, nil
}

// publicationOf names the journal of an id by its prefix ("" when unknown).
func publicationOf(id string) string {
	prefix, _, _ := strings.Cut(id, "-")
	for _, p := range PublicationTypes {
		if p.Prefix == prefix {
			return p.Name
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// Extracted is the readable content of a publication's XML.
type Extracted struct {
	// Root is the root element's name (officiele-publicatie).
	Root string
	// Title is the first title below the journal's masthead.
	Title string
	// Meta holds the <meta name content> pairs of the metadata block.
	Meta map[string]string
	// Text is the text with paragraphs separated by blank lines.
	Text string
}

// Element classes of the KOOP publication schema. Anything not listed is a
// block: a paragraph break around an unknown element is safer than two
// words run together.
var (
	skipElems   = map[string]bool{"metadata": true, "meta": true, "plaatje": true, "illustratie": true, "figuur": true}
	inlineElems = map[string]bool{"nadruk": true, "extref": true, "intref": true, "sup": true, "inf": true, "sub": true, "nootref": true, "datum": true, "ondernummer": true, "dossiernr": true, "afkorting": true, "eenheid": true, "unl": true, "omissie": true}
	prefixElems = map[string]bool{"nr": true, "li.nr": true, "noot.nr": true, "artikel.nr": true}
	lineElems   = map[string]bool{"row": true, "li": true, "tekstregel": true}
)

// ExtractText turns a publication's XML into text. It streams the tokens,
// so a large Kamerstuk needs no tree in memory, and it refuses an HTML page
// (what a server shows in place of a missing file) rather than render it.
func ExtractText(body []byte) (Extracted, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = true
	var (
		out       = Extracted{Meta: map[string]string{}}
		w         sdk.TextWriter
		stack     []string
		skip      int // depth inside a skipped element
		noot      int // depth inside a footnote: its blocks run inline
		titleAt   = -1
		titleText strings.Builder
	)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Extracted{}, fmt.Errorf("the publication XML is malformed: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			if len(stack) == 0 {
				if strings.EqualFold(name, "html") {
					return Extracted{}, fmt.Errorf("the platform answered an HTML page where the publication XML was expected")
				}
				out.Root = name
			}
			stack = append(stack, name)
			if name == "meta" {
				out.Meta[attr(t, "name")] = attr(t, "content")
			}
			if skip > 0 || skipElems[name] {
				skip++
				continue
			}
			switch {
			case name == "noot":
				noot++
				w.Text(" [noot ")
			case name == "row":
				w.BeginRow()
			case name == "entry":
				w.Cell()
			case inlineElems[name]:
			case noot > 0:
				w.Space()
			case prefixElems[name]:
				w.Block(2)
			case lineElems[name]:
				w.Block(1)
			default:
				w.Block(2)
			}
			if name == "titel" && out.Title == "" && titleAt < 0 && noot == 0 && !(len(stack) == 3 && stack[1] == "kop") {
				titleAt = len(stack)
			}
		case xml.EndElement:
			name := t.Name.Local
			if skip > 0 {
				skip--
			} else {
				switch {
				case name == "noot":
					noot--
					w.TrimSpace()
					w.Text("]")
				case name == "row":
					w.EndRow()
				case prefixElems[name]:
					if name == "noot.nr" {
						w.Text(": ")
					} else {
						w.Text(" ")
					}
					w.Glue()
				case inlineElems[name] || name == "entry" || noot > 0:
				case lineElems[name]:
					w.Block(1)
				default:
					w.Block(2)
				}
			}
			if titleAt == len(stack) {
				out.Title = strings.Join(strings.Fields(titleText.String()), " ")
				titleAt = -1
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if skip > 0 {
				continue
			}
			s := string(t)
			// Whitespace with a line break between elements is the
			// indentation of pretty-printed XML, not a space in the text.
			if strings.TrimSpace(s) == "" && strings.ContainsAny(s, "\n\r") {
				continue
			}
			w.Text(s)
			if titleAt >= 0 {
				titleText.WriteString(s)
			}
		}
	}
	if out.Root == "" {
		return Extracted{}, fmt.Errorf("the platform's response is empty, not publication XML")
	}
	out.Text = w.String()
	return out, nil
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
