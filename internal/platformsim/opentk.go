package platformsim

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
)

// openTKSim serves OpenTK (tkconv) from testdata/opentk: POST /search
// (multipart q, twomonths, soorten; FTS-like matching; at most 280 rows,
// newest indexed first, no paging), /getdoc/{nummer}, /verslag.html and
// the members and committees pages.
type openTKSim struct {
	now     func() time.Time
	rows    []*openTKRow
	docs    map[string]string // nummer → text (pages split by \f)
	titles  map[string]string // nummer → the row's onderwerp, the getdoc page's title
	pages   map[string][]byte // recorded HTML pages by path
	getdoc  map[string][]byte // recorded getdoc HTML by nummer
	verslag map[string][]byte // recorded verslag HTML by meeting id
}

type openTKRow struct {
	raw  map[string]any
	nr   string
	cat  string
	date string
	soort,
	text string
	doc doc
}

// openTKMaxRows is OpenTK's cap on one search.
const openTKMaxRows = 280

func newOpenTK(d dataDir, now func() time.Time) (backend, error) {
	s := &openTKSim{now: now, docs: map[string]string{}, titles: map[string]string{}, pages: map[string][]byte{}, getdoc: map[string][]byte{}, verslag: map[string][]byte{}}
	seen := map[string]bool{}
	for _, f := range []string{"sim/rows.json", "opentk-search-mixed.json", "opentk-search.json"} {
		var rs struct {
			Results []map[string]any `json:"results"`
		}
		if err := d.json("opentk", f, &rs); err != nil {
			return nil, err
		}
		for _, r := range rs.Results {
			nr, _ := r["nummer"].(string)
			cat, _ := r["category"].(string)
			if nr == "" || cat == "" {
				return nil, fmt.Errorf("%s: a row without nummer or category", f)
			}
			if seen[nr] {
				continue
			}
			seen[nr] = true
			row := &openTKRow{raw: r, nr: nr, cat: cat}
			row.date, _ = r["datum"].(string)
			row.soort, _ = r["soort"].(string)
			if t, _ := r["onderwerp"].(string); t != "" {
				s.titles[nr] = t
			}
			s.rows = append(s.rows, row)
		}
	}
	if err := d.json("opentk", "sim/docs.json", &s.docs); err != nil {
		return nil, err
	}
	for path, f := range map[string]string{"/kamerleden.html": "opentk-kamerleden.html", "/commissies.html": "opentk-commissies.html"} {
		b, err := d.read("opentk", f)
		if err != nil {
			return nil, err
		}
		s.pages[path] = b
	}
	for _, f := range d.glob("opentk", "opentk-getdoc-*.html") {
		b, err := readFile(f)
		if err != nil {
			return nil, err
		}
		nr := strings.TrimSuffix(strings.TrimPrefix(baseName(f), "opentk-getdoc-"), ".html")
		if s.docs[nr] != "" {
			// sim/docs.json has this document's text, matching its row
			// and tk's record of it; the recorded page (a contract case,
			// "Motie van het lid X") would contradict both in the demo.
			continue
		}
		s.getdoc[nr] = b
		s.docs[nr] = htmlToText(string(b))
	}
	// A Document row whose text is not recorded gets one made from the
	// row (its subject, dossier title, kind and date): on OpenTK every
	// Document a search returns has its getdoc rendition.
	for _, r := range s.rows {
		if r.cat == "Document" && s.docs[r.nr] == "" && longDocFor("opentk", r.nr) == nil {
			s.docs[r.nr] = generatedOpenTKText(r)
		}
	}
	vb, err := d.read("opentk", "opentk-verslag.html")
	if err != nil {
		return nil, err
	}
	for _, r := range s.rows {
		if r.cat == "Verslag" {
			s.verslag[r.nr] = vb
		}
	}
	for _, r := range s.rows {
		onderwerp, _ := r.raw["onderwerp"].(string)
		titel, _ := r.raw["titel"].(string)
		snip, _ := r.raw["snip"].(string)
		r.text = strings.Join([]string{onderwerp, titel, htmlToText(snip), s.docs[r.nr]}, " ")
		if r.cat == "Verslag" {
			r.text += " " + htmlToText(string(vb))
		}
		r.doc = newDoc(r.text)
	}
	// Newest indexed first: by bijgewerkt, as OpenTK's rowid order.
	sort.SliceStable(s.rows, func(i, j int) bool {
		a, _ := s.rows[i].raw["bijgewerkt"].(string)
		b, _ := s.rows[j].raw["bijgewerkt"].(string)
		return a > b
	})
	return s, nil
}

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }

func baseName(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// htmlToText strips tags, scripts and styles from recorded HTML.
func htmlToText(s string) string {
	for _, tag := range []string{"script", "style"} {
		for {
			i := strings.Index(strings.ToLower(s), "<"+tag)
			if i < 0 {
				break
			}
			j := strings.Index(strings.ToLower(s[i:]), "</"+tag+">")
			if j < 0 {
				s = s[:i]
				break
			}
			s = s[:i] + s[i+j+len(tag)+3:]
		}
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}

func (s *openTKSim) cost(*http.Request) float64 { return 1 }

func openTKError(w http.ResponseWriter, status int, msg string) {
	writeBody(w, status, "text/html", []byte(fmt.Sprintf("<h1>Error %d</h1><p>%s</p>", status, html.EscapeString(msg))))
}

func (s *openTKSim) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/tkconv")
	if !ok {
		writeBody(w, http.StatusNotFound, "text/plain", []byte("Found nothing!!"))
		return
	}
	switch {
	case rest == "/search" && r.Method == "POST":
		s.search(w, r)
	case rest == "/search":
		openTKError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	case strings.HasPrefix(rest, "/getdoc/"):
		nr := strings.TrimPrefix(rest, "/getdoc/")
		if d := longDocFor("opentk", nr); d != nil {
			writeBody(w, http.StatusOK, "text/html; charset=utf-8", d.bytes())
			return
		}
		if b, ok := s.getdoc[nr]; ok {
			writeBody(w, http.StatusOK, "text/html; charset=utf-8", b)
			return
		}
		text, ok := s.docs[nr]
		if !ok {
			writeBody(w, http.StatusNotFound, "text/plain", []byte("Found nothing!!"))
			return
		}
		writeBody(w, http.StatusOK, "text/html; charset=utf-8", getdocHTML(firstNonEmptyStr(s.titles[nr], nr), text))
	case rest == "/document.html":
		row := s.row(r.URL.Query().Get("nummer"))
		if row == nil {
			writeBody(w, http.StatusNotFound, "text/plain", []byte("Found nothing in document.html!!"))
			return
		}
		writeBody(w, http.StatusOK, "text/html; charset=utf-8", documentPage(row))
	case rest == "/verslag.html":
		b, ok := s.verslag[r.URL.Query().Get("vergaderingid")]
		if !ok {
			writeBody(w, http.StatusNotFound, "text/plain", []byte("Found nothing!!"))
			return
		}
		writeBody(w, http.StatusOK, "text/html; charset=utf-8", b)
	default:
		if b, ok := s.pages[rest]; ok {
			writeBody(w, http.StatusOK, "text/html; charset=utf-8", b)
			return
		}
		writeBody(w, http.StatusNotFound, "text/plain", []byte("Found nothing!!"))
	}
}

// row is the Document row of a number, or nil.
func (s *openTKSim) row(nr string) *openTKRow {
	for _, r := range s.rows {
		if r.nr == nr && r.cat == "Document" {
			return r
		}
	}
	return nil
}

// documentPage is a document's page as tkconv renders it
// (partials/getorig.html in base.html): the subject in <title> and <h2>,
// the title in <h4>, the kind in <p><em>, number and date, and the
// official publication's link when the row names one.
func documentPage(r *openTKRow) []byte {
	str := func(k string) string { v, _ := r.raw[k].(string); return html.EscapeString(v) }
	date := str("datum")
	if len(date) > 10 {
		date = date[:10]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html>\n<head>\n<title>%s</title>\n<meta charset=\"utf-8\">\n</head>\n<body>\n<main class=\"container\">\n", str("onderwerp"))
	fmt.Fprintf(&b, "<hblock>\n  <h2>%s</h2>\n  <h4>%s</h4>\n  <p><em>%s</em>\n  </p>\n</hblock>\n", str("onderwerp"), str("titel"), str("soort"))
	fmt.Fprintf(&b, "<p>Nummer: <b>%s</b>, datum: <b>%s</b>, bijgewerkt: <b>%s</b>, versie: 1\n</p>\n", html.EscapeString(r.nr), date, str("bijgewerkt"))
	b.WriteString("<p>\n  <a href=\"getraw/" + html.EscapeString(r.nr) + "\">Directe link naar document</a>")
	if ext := str("externeidentifier"); ext != "" {
		fmt.Fprintf(&b, ", <a href=\"https://zoek.officielebekendmakingen.nl/%s.html\">officiële HTML versie</a>  (%s)", ext, ext)
	}
	b.WriteString(".\n</p>\n</main>\n</body>\n</html>\n")
	return []byte(b.String())
}

// getdocHTML renders text the way OpenTK's getdoc renders a PDF
// (pdftohtml): the PDF's title (a TK PDF's is its onderwerp, as in the
// recorded getdoc page) as the page's, one positioned div per page, one
// paragraph per line.
func getdocHTML(title, text string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"\" xml:lang=\"\">\n<head>\n<title>%s</title>\n<meta http-equiv=\"Content-Type\" content=\"text/html; charset=UTF-8\"/>\n</head>\n<body bgcolor=\"#A0A0A0\" vlink=\"blue\" link=\"blue\">\n", html.EscapeString(title))
	for i, page := range strings.Split(text, "\f") {
		if i > 0 {
			b.WriteString("<hr/>\n")
		}
		fmt.Fprintf(&b, "<div id=\"page%d-div\" style=\"position:relative;width:892px;height:1262px;\">\n", i+1)
		for j, line := range wrapLines(page, 90) {
			fmt.Fprintf(&b, "<p style=\"position:absolute;top:%dpx;left:108px;white-space:nowrap\" class=\"ft10\">%s</p>\n", 100+30*j, html.EscapeString(line))
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

func (s *openTKSim) search(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		openTKError(w, http.StatusBadRequest, "expected multipart/form-data: "+err.Error())
		return
	}
	start := time.Now()
	q := strings.TrimSpace(r.FormValue("q"))
	match, err := parseFTS(q)
	if err != nil {
		openTKError(w, http.StatusInternalServerError, "fts5: "+err.Error())
		return
	}
	soorten := r.FormValue("soorten")
	twomonths := r.FormValue("twomonths") == "true"
	cut := s.now().AddDate(0, 0, -60).Format("2006-01-02")
	results := []map[string]any{}
	for _, row := range s.rows {
		if len(results) >= openTKMaxRows {
			break
		}
		switch soorten {
		case "moties":
			if row.soort != "Motie" {
				continue
			}
		case "vragenantwoorden":
			if !strings.Contains(strings.ToLower(row.soort), "vragen") {
				continue
			}
		case "activiteiten":
			if row.cat != "Activiteit" {
				continue
			}
		}
		if twomonths && (row.date == "" || row.date[:min(10, len(row.date))] < cut) {
			continue
		}
		sc, ts := match(row.doc)
		if sc == 0 {
			continue
		}
		out := map[string]any{}
		for k, v := range row.raw {
			out[k] = v
		}
		out["score"] = -float64(sc) * 4.2
		out["snip"] = snippet(row.text, ts, "<b>", "</b>", 120, true)
		results = append(results, out)
	}
	ms := float64(time.Since(start).Microseconds())/1000 + 1.5
	b, _ := json.Marshal(map[string]any{"results": results, "milliseconds": ms})
	writeBody(w, http.StatusOK, "application/json", b)
}

func (s *openTKSim) serverError(string) (int, string, []byte) {
	return http.StatusInternalServerError, "text/html", []byte("<h1>Error 500</h1><p>database is locked</p>")
}

func (s *openTKSim) tooMany(retryAfter int) (string, []byte) {
	return "text/html", []byte(fmt.Sprintf("<h1>Error 429</h1><p>Too many requests, retry after %d seconds</p>", retryAfter))
}

// generatedOpenTKText is the text of a Document row without a recorded
// one, pages split by form feeds as getdocHTML takes them: the heading a
// Kamerstuk prints, then a body of the row's kind (a motion's considerans
// and request, else a letter) about its subject.
func generatedOpenTKText(r *openTKRow) string {
	onderwerp, _ := r.raw["onderwerp"].(string)
	titel, _ := r.raw["titel"].(string)
	onderwerp = strings.TrimSuffix(strings.TrimSpace(onderwerp), ".")
	soort := firstNonEmptyStr(r.soort, "Document")
	date := ""
	if len(r.date) >= 10 {
		date = dutchLongDate(r.date[:10])
	}
	about := onderwerp
	if _, over, ok := strings.Cut(onderwerp, " over "); ok {
		about = over
	}
	var b strings.Builder
	b.WriteString("Tweede Kamer der Staten-Generaal\n")
	if titel != "" {
		b.WriteString(titel + "\n")
	}
	fmt.Fprintf(&b, "%s (%s)\n%s\n", soort, r.nr, onderwerp)
	if date != "" {
		fmt.Fprintf(&b, "Datum: %s\n", date)
	}
	b.WriteString("\f")
	switch soort {
	case "Motie":
		fmt.Fprintf(&b, "De Kamer,\ngehoord de beraadslaging,\nconstaterende dat er zorgen bestaan over %s;\n", about)
		b.WriteString("verzoekt de regering, de Kamer vóór de volgende begrotingsbehandeling te informeren over de uitvoering hiervan,\nen gaat over tot de orde van de dag.")
	default:
		fmt.Fprintf(&b, "Geachte voorzitter,\nMet deze %s informeer ik uw Kamer over %s.\nIk ga graag met uw Kamer in gesprek over de vervolgstappen.", strings.ToLower(soort), about)
	}
	return b.String()
}
