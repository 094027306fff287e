package platformsim

import (
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// rechtspraakSim serves Rechtspraak open data from testdata/rechtspraak:
// the ECLI index (/uitspraken/zoeken, Atom, metadata filters only), the
// documents (/uitspraken/content?id=) and the value lists (/Waardelijst/).
type rechtspraakSim struct {
	decisions []*decision
	byECLI    map[string]*decision
	lists     map[string][]byte // list name, lower-case → XML
	errorPage []byte
}

// decision is what the index knows of one ECLI, read from its document.
type decision struct {
	ecli, court, courtID, date, typ, modified, caseNr, summary string
	subjects                                                   []string
	hasText                                                    bool
	raw                                                        []byte
}

func newRechtspraak(d dataDir) (backend, error) {
	s := &rechtspraakSim{byECLI: map[string]*decision{}, lists: map[string][]byte{}}
	files := d.glob("rechtspraak", "sim/ECLI_*.xml")
	for _, f := range []string{"rechtspraak-content.xml", "rechtspraak-conclusie.xml", "rechtspraak-metadata-only.xml"} {
		files = append(files, d.path("rechtspraak", f))
	}
	for _, f := range files {
		b, err := readFile(f)
		if err != nil {
			return nil, err
		}
		dc, err := parseDecision(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if s.byECLI[dc.ecli] != nil {
			continue
		}
		s.byECLI[dc.ecli] = dc
		s.decisions = append(s.decisions, dc)
	}
	for _, dc := range longDecisions() {
		s.byECLI[dc.ecli] = dc
		s.decisions = append(s.decisions, dc)
	}
	for _, name := range []string{"instanties", "rechtsgebieden", "proceduresoorten"} {
		file := "rechtspraak-waardelijst-" + name + ".xml"
		if name == "rechtsgebieden" {
			// The whole two-level list, so that the areas a judgement
			// shows ("Civiel recht; Arbeidsrecht") are in it.
			file = "rechtspraak-waardelijst-rechtsgebieden-full.xml"
		}
		b, err := d.read("rechtspraak", file)
		if err != nil {
			return nil, err
		}
		s.lists[name] = b
	}
	b, err := d.read("rechtspraak", "sim/waardelijst-instantiesbuitenlands.xml")
	if err != nil {
		return nil, err
	}
	s.lists["instantiesbuitenlands"] = b
	if s.errorPage, err = d.read("rechtspraak", "rechtspraak-error.html"); err != nil {
		return nil, err
	}
	return s, nil
}

// parseDecision reads the first rdf:Description of a document and whether
// it has a text.
func parseDecision(b []byte) (*decision, error) {
	var doc struct {
		Descriptions []struct {
			Identifier string `xml:"identifier"`
			Modified   string `xml:"modified"`
			Creator    struct {
				ID   string `xml:"resourceIdentifier,attr"`
				Name string `xml:",chardata"`
			} `xml:"creator"`
			Date     string `xml:"date"`
			Zaaknr   string `xml:"zaaknummer"`
			Type     string `xml:"type"`
			Subjects []struct {
				ID string `xml:"resourceIdentifier,attr"`
			} `xml:"subject"`
		} `xml:"RDF>Description"`
		Inhoud struct {
			Inner string `xml:",innerxml"`
		} `xml:"inhoudsindicatie"`
		Uitspraak *struct{} `xml:"uitspraak"`
		Conclusie *struct{} `xml:"conclusie"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Descriptions) == 0 || doc.Descriptions[0].Identifier == "" {
		return nil, fmt.Errorf("no rdf:Description with an identifier")
	}
	ds := doc.Descriptions[0]
	dc := &decision{ecli: ds.Identifier, court: strings.TrimSpace(ds.Creator.Name), courtID: ds.Creator.ID, date: ds.Date,
		typ: ds.Type, modified: ds.Modified, caseNr: ds.Zaaknr, raw: b, hasText: doc.Uitspraak != nil || doc.Conclusie != nil}
	dc.summary = htmlToText(doc.Inhoud.Inner)
	for _, sub := range ds.Subjects {
		dc.subjects = append(dc.subjects, sub.ID)
	}
	return dc, nil
}

func (s *rechtspraakSim) cost(*http.Request) float64 { return 1 }

func (s *rechtspraakSim) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/uitspraken/zoeken":
		s.search(w, r)
	case p == "/uitspraken/content":
		id := strings.ToUpper(strings.TrimSpace(r.URL.Query().Get("id")))
		if d := longDocFor("rechtspraak", id); d != nil {
			writeBody(w, http.StatusOK, "application/xml; charset=utf-8", d.bytes())
			return
		}
		dc := s.byECLI[id]
		if dc == nil {
			writeBody(w, http.StatusNotFound, "text/html", []byte("<html><head><title>404 - Niet gevonden</title></head><body><h1>Uitspraak niet gevonden</h1></body></html>"))
			return
		}
		writeBody(w, http.StatusOK, "application/xml; charset=utf-8", dc.raw)
	case strings.HasPrefix(p, "/Waardelijst/"):
		b, ok := s.lists[strings.ToLower(strings.TrimPrefix(p, "/Waardelijst/"))]
		if !ok {
			writeBody(w, http.StatusNotFound, "text/html", []byte("<html><head><title>404 - Niet gevonden</title></head><body></body></html>"))
			return
		}
		writeBody(w, http.StatusOK, "application/xml; charset=utf-8", b)
	default:
		writeBody(w, http.StatusNotFound, "text/html", []byte("<html><head><title>404 - Niet gevonden</title></head><body></body></html>"))
	}
}

func (s *rechtspraakSim) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	bad := func() { writeBody(w, http.StatusInternalServerError, "text/html; charset=utf-8", s.errorPage) }
	maxN, from := 1000, 0
	for _, p := range []struct {
		name string
		dst  *int
	}{{"max", &maxN}, {"from", &from}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				bad()
				return
			}
			*p.dst = n
		}
	}
	dates := q["date"]
	for _, d := range dates {
		if _, err := time.Parse("2006-01-02", d); err != nil {
			bad() // "String was not recognized as a valid DateTime."
			return
		}
	}
	mods := q["modified"]
	for _, m := range mods {
		if _, err := time.Parse("2006-01-02T15:04:05", m); err != nil {
			if _, err := time.Parse("2006-01-02", m); err != nil {
				bad()
				return
			}
		}
	}
	var hits []*decision
	for _, dc := range s.decisions {
		if v := q.Get("creator"); v != "" && dc.courtID != v {
			continue
		}
		if v := q.Get("subject"); v != "" && !hasSubject(dc.subjects, v) {
			continue
		}
		if v := q.Get("type"); v != "" && !strings.EqualFold(dc.typ, v) {
			continue
		}
		if q.Get("return") == "DOC" && !dc.hasText {
			continue
		}
		switch len(dates) {
		case 1:
			if dc.date != dates[0] {
				continue
			}
		case 2:
			if dc.date < dates[0] || dc.date > dates[1] {
				continue
			}
		}
		if len(mods) >= 1 && dc.modified < mods[0] {
			continue
		}
		if len(mods) >= 2 && dc.modified > mods[1] {
			continue
		}
		hits = append(hits, dc)
	}
	desc := strings.EqualFold(q.Get("sort"), "DESC")
	sort.SliceStable(hits, func(i, j int) bool {
		if desc {
			return hits[i].modified > hits[j].modified
		}
		return hits[i].modified < hits[j].modified
	})
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n")
	b.WriteString("  <title type=\"text\">Rechtspraak Open Data (Uitspraken)</title>\n")
	fmt.Fprintf(&b, "  <subtitle type=\"text\">Aantal gevonden ECLI's: %d</subtitle>\n", len(hits))
	fmt.Fprintf(&b, "  <id>http://data.rechtspraak.nl/uitspraken/zoeken?%s</id>\n", html.EscapeString(r.URL.RawQuery))
	for _, dc := range window(hits, from, maxN) {
		summary := dc.summary
		if summary == "" {
			summary = "-"
		}
		title := dc.ecli + ", " + dc.court + ", " + dutchDate(dc.date) + ", " + dc.caseNr
		fmt.Fprintf(&b, "  <entry>\n    <id>%s</id>\n    <title type=\"text\">%s</title>\n    <summary type=\"text\">%s</summary>\n    <updated>%s</updated>\n    <link rel=\"alternate\" type=\"text/html\" href=\"https://uitspraken.rechtspraak.nl/details?id=%s\" />\n  </entry>\n",
			html.EscapeString(dc.ecli), html.EscapeString(title), html.EscapeString(summary), withDutchOffset(dc.modified), html.EscapeString(dc.ecli))
	}
	b.WriteString("</feed>\n")
	writeBody(w, http.StatusOK, "application/atom+xml; charset=utf-8", []byte(b.String()))
}

// hasSubject matches an area of law and its sub-areas
// (…#bestuursrecht matches …#bestuursrecht_belastingrecht).
func hasSubject(subjects []string, want string) bool {
	for _, s := range subjects {
		if s == want || strings.HasPrefix(s, want+"_") {
			return true
		}
	}
	return false
}

// dutchDate writes 2020-07-23 as 23-07-2020, as the feed's titles do.
func dutchDate(iso string) string {
	t, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return iso
	}
	return t.Format("02-01-2006")
}

// withDutchOffset adds the Netherlands' UTC offset to a local timestamp
// (summer time from the last Sunday of March to the last Sunday of
// October).
func withDutchOffset(local string) string {
	t, err := time.Parse("2006-01-02T15:04:05", local)
	if err != nil {
		return local
	}
	last := func(m time.Month) time.Time {
		d := time.Date(t.Year(), m+1, 0, 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -int(d.Weekday()))
	}
	if t.After(last(time.March)) && t.Before(last(time.October)) {
		return local + "+02:00"
	}
	return local + "+01:00"
}

func (s *rechtspraakSim) serverError(string) (int, string, []byte) {
	return http.StatusServiceUnavailable, "text/html", []byte("<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>HTTP Error 503. The service is unavailable.</p></body></html>\n")
}

func (s *rechtspraakSim) tooMany(int) (string, []byte) {
	return "text/html", []byte("<!DOCTYPE html>\n<html><head><title>Too Many Requests</title></head><body><h1>Too Many Requests</h1></body></html>\n")
}
