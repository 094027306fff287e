package cite

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/besluitbron/besluitbron/sdk/cite"
)

// The export formats of besluitbron_cite and the Citeer link.
const (
	FormatCSLJSON = "csl-json"
	FormatBibTeX  = "bibtex"
	FormatRIS     = "ris"
)

// Formats lists the export formats, in the order the tool names them.
func Formats() []string { return []string{FormatCSLJSON, FormatBibTeX, FormatRIS} }

// Entry is one document to export: its platform, id there, what its
// result said as a citation describes it, the day it was retrieved, and
// optionally the sha256 of the text a quote check read.
type Entry struct {
	Platform string
	// Source names the platform for people ("Rechtspraak"): the
	// manifest's title, filed as the database the reference came from.
	Source    string
	ID        string
	Work      cite.Work
	Retrieved string
	SHA256    string
}

// Export is a set of citations in one format, as a file to download or
// a tool's text: its bytes, media type and file name extension.
type Export struct {
	Format      string
	Body        []byte
	ContentType string
	Extension   string
}

// Encode writes entries in format (one of [Formats]).
func Encode(format string, entries []Entry) (Export, error) {
	switch format {
	case FormatCSLJSON:
		b, err := CSLJSON(entries)
		return Export{Format: format, Body: b, ContentType: "application/vnd.citationstyles.csl+json", Extension: "json"}, err
	case FormatBibTeX:
		return Export{Format: format, Body: []byte(BibTeX(entries)), ContentType: "application/x-bibtex; charset=utf-8", Extension: "bib"}, nil
	case FormatRIS:
		return Export{Format: format, Body: []byte(RIS(entries)), ContentType: "application/x-research-info-systems; charset=utf-8", Extension: "ris"}, nil
	}
	return Export{}, fmt.Errorf("format %q: want one of %s", clip(format, 40), strings.Join(Formats(), ", "))
}

// cslItem is one CSL-JSON item (the CSL input schema, csl-data.json,
// allows no other members).
type cslItem struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	Title          string    `json:"title,omitempty"`
	Author         []cslName `json:"author,omitempty"`
	Authority      string    `json:"authority,omitempty"`
	ContainerTitle string    `json:"container-title,omitempty"`
	Number         string    `json:"number,omitempty"`
	Issued         *cslDate  `json:"issued,omitempty"`
	Accessed       *cslDate  `json:"accessed,omitempty"`
	URL            string    `json:"URL,omitempty"`
	Source         string    `json:"source,omitempty"`
	Archive        string    `json:"archive,omitempty"`
	ArchiveLoc     string    `json:"archive_location,omitempty"`
	Note           string    `json:"note,omitempty"`
	Language       string    `json:"language,omitempty"`
}

type cslName struct {
	Literal string `json:"literal"`
}

type cslDate struct {
	DateParts [][]int `json:"date-parts"`
}

// cslType is a work's CSL item type: the types Zotero files as Case,
// Bill, Statute and Document.
func cslType(k cite.WorkKind) string {
	switch k {
	case cite.WorkCase:
		return "legal_case"
	case cite.WorkParliamentary:
		return "bill"
	case cite.WorkOfficialJournal:
		return "legislation"
	}
	return "document"
}

func cslDateOf(iso string) *cslDate {
	y, m, d, ok := ymd(iso)
	if !ok {
		return nil
	}
	return &cslDate{DateParts: [][]int{{y, m, d}}}
}

// CSLJSON writes entries as a CSL-JSON array.
func CSLJSON(entries []Entry) ([]byte, error) {
	items := make([]cslItem, 0, len(entries))
	for _, e := range entries {
		w := e.Work
		it := cslItem{ID: e.Platform + ":" + e.ID, Type: cslType(w.Kind), Title: w.Title, Authority: w.Authority,
			ContainerTitle: w.Container, Number: w.Number, Issued: cslDateOf(w.Date), Accessed: cslDateOf(e.Retrieved),
			URL: w.URL, Source: e.Source, ArchiveLoc: e.ID, Note: note(e), Language: "nl"}
		if w.Authority != "" && w.Kind == cite.WorkDocument {
			it.Author = []cslName{{Literal: w.Authority}}
		}
		if it.Title == "" {
			it.Title = w.Text
		}
		items = append(items, it)
	}
	return json.MarshalIndent(items, "", "  ")
}

// note is what a reference manager keeps beside the fields: the Dutch
// citation, and the sha256 of the text a quote check read.
func note(e Entry) string {
	n := e.Work.Text
	if e.SHA256 != "" {
		n += "\ntext sha256: " + e.SHA256
	}
	return n
}

// BibTeX writes entries as BibTeX: @misc entries (a reference manager
// imports every kind of document as one), with the Dutch citation as
// note and the retrieved day as urldate.
func BibTeX(entries []Entry) string {
	var b strings.Builder
	keys := map[string]int{}
	for _, e := range entries {
		w := e.Work
		key := bibKey(e)
		if n := keys[key]; n > 0 {
			key += "-" + strconv.Itoa(n+1)
		}
		keys[bibKey(e)]++
		fmt.Fprintf(&b, "@misc{%s,\n", key)
		field := func(name, v string) {
			if v != "" {
				fmt.Fprintf(&b, "  %s = {%s},\n", name, v)
			}
		}
		title := w.Title
		if title == "" {
			title = w.Text
		}
		field("title", texEscape(title))
		if w.Authority != "" {
			field("author", "{"+texEscape(w.Authority)+"}") // one name, not "Family, Given"
		}
		if y, m, d, ok := ymd(w.Date); ok {
			field("year", strconv.Itoa(y))
			field("month", strconv.Itoa(m))
			field("date", fmt.Sprintf("%04d-%02d-%02d", y, m, d))
		}
		field("howpublished", texEscape(w.Container))
		field("number", texEscape(w.Number))
		field("url", urlEscape(w.URL))
		field("urldate", e.Retrieved)
		field("note", texEscape(note(e)))
		field("language", "dutch")
		b.WriteString("}\n\n")
	}
	return b.String()
}

var keyChars = regexp.MustCompile(`[^A-Za-z0-9]+`)

// bibKey is an entry's citation key: platform and id in letters and
// digits ("rechtspraak-ECLI-NL-HR-2024-1").
func bibKey(e Entry) string {
	k := strings.Trim(keyChars.ReplaceAllString(e.Platform+"-"+e.ID, "-"), "-")
	return clip(k, 80)
}

// texEscape makes text safe inside a BibTeX field's braces: the
// characters LaTeX and BibTeX give a meaning are escaped, control
// characters become spaces.
func texEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '{', '}', '&', '%', '$', '#', '_':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			if unicode.IsControl(r) {
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// urlEscape writes an address for a url field, which BibTeX reads
// verbatim: what would break the braces or the line is percent-escaped.
func urlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '{' || r == '}' || r == '\\' || r == '%' || r <= ' ' || r == 0x7f {
			b.WriteString(url.QueryEscape(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// risType is a work's RIS reference type.
func risType(k cite.WorkKind) string {
	switch k {
	case cite.WorkCase:
		return "CASE"
	case cite.WorkParliamentary:
		return "BILL"
	case cite.WorkOfficialJournal:
		return "STAT"
	}
	return "GEN"
}

// RIS writes entries as RIS, each line "TG  - value", CRLF as the format
// asks, every record closed by "ER  - ".
func RIS(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		w := e.Work
		tag := func(t, v string) {
			v = strings.Join(strings.Fields(v), " ")
			if v != "" {
				b.WriteString(t + "  - " + v + "\r\n")
			}
		}
		tag("TY", risType(w.Kind))
		title := w.Title
		if title == "" {
			title = w.Text
		}
		tag("TI", title)
		tag("AU", w.Authority)
		if y, m, d, ok := ymd(w.Date); ok {
			tag("PY", strconv.Itoa(y))
			tag("DA", fmt.Sprintf("%04d/%02d/%02d/", y, m, d))
		}
		tag("T2", w.Container)
		tag("M1", w.Number)
		tag("UR", w.URL)
		if y, m, d, ok := ymd(e.Retrieved); ok {
			tag("Y2", fmt.Sprintf("%04d/%02d/%02d/", y, m, d))
		}
		tag("DB", e.Source)
		tag("AN", e.ID)
		tag("LA", "nl")
		for _, line := range strings.Split(note(e), "\n") {
			tag("N1", line)
		}
		b.WriteString("ER  - \r\n\r\n")
	}
	return b.String()
}

// ymd splits an ISO date.
func ymd(iso string) (y, m, d int, ok bool) {
	if len(iso) < 10 {
		return 0, 0, 0, false
	}
	y, e1 := strconv.Atoi(iso[0:4])
	m, e2 := strconv.Atoi(iso[5:7])
	d, e3 := strconv.Atoi(iso[8:10])
	if e1 != nil || e2 != nil || e3 != nil || iso[4] != '-' || iso[7] != '-' || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

// clip cuts s at n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
