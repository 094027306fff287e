package platformsim

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// openArchivarisSim serves the API the Open Archivaris connector assumes
// (plugins/openarchivaris/mapping.go; the real one is unverified) from
// testdata/openarchivaris: /api/search, /api/documents/{id},
// /api/governments.
type openArchivarisSim struct {
	docs        []*oaDoc
	byID        map[string]*oaDoc
	governments []map[string]any
	err429      []byte
	err500      []byte
}

type oaDoc struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Date           string `json:"date"`
	Government     string `json:"government"`
	GovernmentType string `json:"governmentType"`
	Author         string `json:"author,omitempty"`
	Pages          int    `json:"pages,omitempty"`
	URL            string `json:"url,omitempty"`
	Text           string `json:"text,omitempty"`
	doc            doc
}

func newOpenArchivaris(d dataDir) (backend, error) {
	s := &openArchivarisSim{byID: map[string]*oaDoc{}}
	var sim struct {
		Documents   []*oaDoc         `json:"documents"`
		Governments []map[string]any `json:"governments"`
	}
	if err := d.json("openarchivaris", "sim/documents.json", &sim); err != nil {
		return nil, err
	}
	var rec struct {
		Document *oaDoc `json:"document"`
	}
	if err := d.json("openarchivaris", "oa-document.json", &rec); err != nil {
		return nil, err
	}
	docs := append(sim.Documents, rec.Document)
	for _, dc := range docs {
		if dc == nil || dc.ID == "" {
			return nil, fmt.Errorf("a document without id")
		}
		if s.byID[dc.ID] != nil {
			continue
		}
		dc.doc = newDoc(dc.Title, dc.Author, dc.Text)
		s.byID[dc.ID] = dc
		s.docs = append(s.docs, dc)
	}
	s.governments = sim.Governments
	var err error
	if s.err429, err = d.read("openarchivaris", "oa-429.json"); err != nil {
		return nil, err
	}
	if s.err500, err = d.read("openarchivaris", "oa-error-500.json"); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *openArchivarisSim) cost(*http.Request) float64 { return 1 }

// spaPage is what the site serves for paths it does not know: its
// single-page app, HTML.
const spaPage = `<!doctype html>
<html lang="nl"><head><meta charset="utf-8"><title>Open Archivaris</title><script type="module" src="/assets/index.js"></script></head>
<body><div id="app"></div></body></html>
`

func (s *openArchivarisSim) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/api/search":
		s.search(w, r)
	case strings.HasPrefix(p, "/api/documents/"):
		id, _ := url.PathUnescape(strings.TrimPrefix(p, "/api/documents/"))
		if d := longDocFor("openarchivaris", id); d != nil {
			writeBody(w, http.StatusOK, "application/json", d.bytes())
			return
		}
		dc := s.byID[id]
		if dc == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "Document niet gevonden"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"document": dc})
	case p == "/api/governments":
		typ := r.URL.Query().Get("type")
		items := []map[string]any{}
		for _, g := range s.governments {
			if typ == "" || g["type"] == typ {
				items = append(items, g)
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"items": items})
	default:
		writeBody(w, http.StatusOK, "text/html", []byte(spaPage))
	}
}

func (s *openArchivarisSim) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("q"))
	if query == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "Geef zoekwoorden op (q)."})
		return
	}
	ints := map[string]int{"limit": 20, "offset": 0, "min_pages": 0, "max_pages": 0}
	for k := range ints {
		if v := q.Get(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("Ongeldige waarde voor %s: %q", k, v)})
				return
			}
			ints[k] = n
		}
	}
	gov, typ := q.Get("government"), q.Get("type")
	from, to := q.Get("date_from"), q.Get("date_to")
	terms := queryTerms(query)
	type hit struct {
		d        *oaDoc
		matched  int
		occurred int
	}
	var hits []hit
	for _, dc := range s.docs {
		if gov != "" && !strings.EqualFold(dc.Government, gov) && !strings.EqualFold(strings.TrimPrefix(fold(dc.Government), "gemeente "), fold(gov)) {
			continue
		}
		if typ != "" && dc.GovernmentType != typ {
			continue
		}
		if from != "" && dc.Date < from || to != "" && dc.Date > to {
			continue
		}
		if ints["min_pages"] > 0 && dc.Pages < ints["min_pages"] || ints["max_pages"] > 0 && dc.Pages > ints["max_pages"] {
			continue
		}
		// Documents with all words first, then those with fewer.
		m := dc.doc.matched(terms, prefixMatch)
		if m == 0 {
			continue
		}
		occ := 0
		for _, t := range terms {
			occ += dc.doc.count(t, prefixMatch)
		}
		hits = append(hits, hit{dc, m, occ})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].matched != hits[j].matched {
			return hits[i].matched > hits[j].matched
		}
		return hits[i].occurred > hits[j].occurred
	})
	limit := ints["limit"]
	if limit == 0 {
		limit = 20
	}
	results := []map[string]any{}
	for _, h := range window(hits, ints["offset"], limit) {
		dc := h.d
		results = append(results, map[string]any{
			"id": dc.ID, "title": dc.Title, "date": dc.Date, "government": dc.Government, "governmentType": dc.GovernmentType,
			"author": dc.Author, "pages": dc.Pages, "url": dc.URL,
			"snippet": snippet(dc.Text, terms, "<em>", "</em>", 160, true),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": len(hits), "results": results})
}

func (s *openArchivarisSim) serverError(string) (int, string, []byte) {
	return http.StatusInternalServerError, "application/json", s.err500
}

func (s *openArchivarisSim) tooMany(int) (string, []byte) {
	return "application/json", s.err429
}
