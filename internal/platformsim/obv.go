package platformsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// obvSim serves OpenBesluitvorming's REST API (/api/search,
// /api/entities/{id}, /api/sources, /api/stats) from testdata/obv.
type obvSim struct {
	// mu guards entities and byID, which AddOBVEntity extends while the
	// simulator serves.
	mu       sync.RWMutex
	entities []*obvEntity
	byID     map[string]*obvEntity
	sources  []obvSource
	stats    []byte
	status   []byte // nil when not recorded
}

type obvEntity struct {
	raw       json.RawMessage
	id        string
	typ       string
	typeLabel string
	title     string
	org       string
	date      string // as the platform writes it ("7 november 2024")
	sortDate  string
	iso       string
	text      string
	download  string
	doc       doc
}

// obvSource is one /api/sources row. The platform's own rows carry
// sourceRef (supplier:type:key); the simulator's older rows lack it.
type obvSource struct {
	Key              string `json:"key"`
	SourceRef        string `json:"sourceRef,omitempty"`
	Label            string `json:"label"`
	Supplier         string `json:"supplier"`
	OrganizationType string `json:"organizationType"`
	Implemented      bool   `json:"implemented"`
	IsAggregate      bool   `json:"isAggregate"`
	Discontinued     bool   `json:"discontinued,omitempty"`
	CBSID            string `json:"cbsId,omitempty"`
}

func newOBV(d dataDir) (backend, error) {
	s := &obvSim{byID: map[string]*obvEntity{}}
	var sim struct {
		Entities []json.RawMessage `json:"entities"`
	}
	if err := d.json("obv", "sim/entities.json", &sim); err != nil {
		return nil, err
	}
	raws := sim.Entities
	for _, f := range []string{"obv-entity-document.json", "obv-entity-meeting.json", "obv-entity-motion.json"} {
		b, err := d.read("obv", f)
		if err != nil {
			return nil, err
		}
		raws = append(raws, b)
	}
	for i, raw := range raws {
		e, err := parseOBVEntity(raw)
		if err != nil {
			return nil, fmt.Errorf("entity %d: %v", i+1, err)
		}
		if s.byID[e.id] != nil {
			continue
		}
		s.byID[e.id] = e
		s.entities = append(s.entities, e)
	}
	var src struct {
		Sources []obvSource `json:"sources"`
	}
	if err := d.json("obv", "sim/sources.json", &src); err != nil {
		return nil, err
	}
	s.sources = src.Sources
	var err error
	if s.stats, err = d.read("obv", "obv-stats.json"); err != nil {
		return nil, err
	}
	if s.status, err = d.read("obv", "obv-status.json"); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return s, nil
}

func parseOBVEntity(raw json.RawMessage) (*obvEntity, error) {
	var e struct {
		EntityID        string `json:"entityId"`
		EntityType      string `json:"entityType"`
		EntityTypeLabel string `json:"entityTypeLabel"`
		Title           string `json:"title"`
		Organization    string `json:"organization"`
		Date            string `json:"date"`
		SortDate        string `json:"sortDate"`
		MarkdownText    string `json:"markdownText"`
		DownloadURL     string `json:"downloadUrl"`
		Agenda          []struct {
			Title string `json:"title"`
		} `json:"agenda"`
		Recordings []struct {
			Segments []struct {
				Text string `json:"text"`
			} `json:"segments"`
		} `json:"recordings"`
		Motion *struct {
			Name string `json:"name"`
		} `json:"motion"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	if e.EntityID == "" {
		return nil, fmt.Errorf("no entityId")
	}
	ent := &obvEntity{raw: raw, id: e.EntityID, typ: e.EntityType, typeLabel: e.EntityTypeLabel, title: e.Title, org: e.Organization,
		date: e.Date, sortDate: e.SortDate, text: e.MarkdownText, download: e.DownloadURL}
	if ent.title == "" && e.Motion != nil {
		ent.title = e.Motion.Name
	}
	parts := []string{ent.title, e.MarkdownText}
	for _, a := range e.Agenda {
		parts = append(parts, a.Title)
	}
	for _, r := range e.Recordings {
		for _, sg := range r.Segments {
			parts = append(parts, sg.Text)
		}
	}
	if e.Motion != nil {
		parts = append(parts, e.Motion.Name)
	}
	if ent.text == "" {
		ent.text = strings.Join(parts[1:], " ")
	}
	ent.doc = newDoc(parts...)
	ent.iso = isoDate(e.SortDate)
	if ent.iso == "" {
		ent.iso = isoDate(e.Date)
	}
	return ent, nil
}

func (s *obvSim) cost(r *http.Request) float64 {
	p := strings.TrimPrefix(r.URL.Path, "/obv")
	switch {
	case p == "/api/search":
		return SearchCost(r.URL.Query().Get("limit"))
	case strings.HasPrefix(p, "/api/entities/") && strings.Contains(p, "/pdf/page/"):
		return 0.125
	}
	return 1
}

func obvError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func (s *obvSim) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/api/search":
		s.search(w, r)
	case strings.HasPrefix(p, "/api/entities/"):
		id := strings.TrimPrefix(p, "/api/entities/")
		if strings.Contains(id, "/pdf/page/") {
			obvError(w, http.StatusNotFound, "Geen PDF-weergave beschikbaar in de simulator")
			return
		}
		if d := longDocFor("obv", id); d != nil {
			writeBody(w, http.StatusOK, "application/json", d.bytes())
			return
		}
		s.mu.RLock()
		e := s.byID[id]
		s.mu.RUnlock()
		if e == nil {
			obvError(w, http.StatusNotFound, "Entiteit niet gevonden: "+id)
			return
		}
		writeBody(w, http.StatusOK, "application/json", e.raw)
	case p == "/api/sources":
		impl := r.URL.Query().Get("implemented") == "true"
		out := []obvSource{}
		for _, src := range s.sources {
			if !impl || src.Implemented {
				out = append(out, src)
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"sources": out})
	case p == "/api/stats":
		writeBody(w, http.StatusOK, "application/json", s.stats)
	case p == "/api/status" && s.status != nil:
		writeBody(w, http.StatusOK, "application/json", s.status)
	default:
		obvError(w, http.StatusNotFound, "Not found")
	}
}

var obvTypes = map[string]bool{"Meeting": true, "Document": true, "Motion": true, "Recording": true}

func (s *obvSim) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	query := strings.TrimSpace(q.Get("query"))
	org := q.Get("organization")
	if query == "" && org == "" {
		obvError(w, http.StatusBadRequest, "Geef een zoekterm (query) of een organisatie (organization) op.")
		return
	}
	limit := 24
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			obvError(w, http.StatusBadRequest, fmt.Sprintf("Ongeldige waarde voor limit: %q. Gebruik een geheel getal van 1 tot 100.", v))
			return
		}
		limit = min(n, 100)
	}
	offset := 0
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			obvError(w, http.StatusBadRequest, fmt.Sprintf("Ongeldige waarde voor offset: %q.", v))
			return
		}
		offset = n
	}
	typ := q.Get("entityType")
	if typ != "" && !obvTypes[typ] {
		obvError(w, http.StatusBadRequest, fmt.Sprintf("Onbekend entityType: %s. Kies uit Meeting, Document, Motion, Recording.", typ))
		return
	}
	sortBy := q.Get("sort")
	switch sortBy {
	case "", "date_desc", "date_asc", "relevance":
	default:
		obvError(w, http.StatusBadRequest, fmt.Sprintf("Onbekende sortering: %s.", sortBy))
		return
	}
	from, to := q.Get("dateFrom"), q.Get("dateTo")
	for _, d := range []string{from, to} {
		if d != "" && isoDate(d) != d {
			obvError(w, http.StatusBadRequest, fmt.Sprintf("Ongeldige datum: %s. Gebruik JJJJ-MM-DD.", d))
			return
		}
	}
	label := ""
	if org != "" {
		for _, src := range s.sources {
			if src.Key == org {
				label = src.Label
			}
		}
		if label == "" {
			obvError(w, http.StatusBadRequest, "Onbekende organisatie: "+org)
			return
		}
	}
	terms := queryTerms(query)
	type hit struct {
		e     *obvEntity
		score int
	}
	var hits []hit
	s.mu.RLock()
	entities := s.entities
	s.mu.RUnlock()
	for _, e := range entities {
		if label != "" && e.org != label {
			continue
		}
		if typ != "" && e.typ != typ {
			continue
		}
		if from != "" && e.iso < from || to != "" && (e.iso == "" || e.iso > to) {
			continue
		}
		sc := 1
		if len(terms) > 0 {
			if sc = e.doc.score(terms, prefixMatch); sc == 0 {
				continue
			}
		}
		hits = append(hits, hit{e, sc})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		switch sortBy {
		case "relevance":
			if a.score != b.score {
				return a.score > b.score
			}
		case "date_asc":
			return a.e.sortDate < b.e.sortDate
		}
		return a.e.sortDate > b.e.sortDate
	})
	page := window(hits, offset, limit)
	results := []map[string]any{}
	for _, h := range page {
		e := h.e
		res := map[string]any{
			"entityId": e.id, "entityType": e.typ, "entityTypeLabel": e.typeLabel, "organization": e.org,
			"date": e.date, "title": e.title,
			"summary":     snippet(e.text, terms, "", "", 160, false),
			"summaryHtml": snippet(e.text, terms, "<b>", "</b>", 160, true),
		}
		if e.sortDate != "" {
			res["sortDate"] = e.sortDate
		}
		if e.download != "" {
			res["downloadUrl"] = e.download
		}
		if e.typ == "Document" {
			pages := max(1, len(e.text)/1500+1)
			res["pageCount"] = pages
			res["sourcePageCount"] = pages
			res["matchedPage"] = 1
			res["previewImageUrl"] = "/api/entities/" + strings.ReplaceAll(e.id, ":", "%3A") + "/pdf/page/1"
		}
		results = append(results, res)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"results": results, "totalCount": len(hits), "totalIsApproximate": query != "",
		"hasMore": offset+len(page) < len(hits),
	})
}

func (s *obvSim) serverError(reqID string) (int, string, []byte) {
	b, _ := json.Marshal(map[string]string{"error": "Zoeken mislukt. Probeer het opnieuw of meld deze fout met het request ID.", "request_id": reqID})
	return http.StatusInternalServerError, "application/json", b
}

// tooMany is the platform's 429 body (web/server.ts rateLimitedResponse),
// as recorded in obv-429.http.
func (s *obvSim) tooMany(retryAfter int) (string, []byte) {
	b, _ := json.Marshal(struct {
		Error          string `json:"error"`
		LimitPerMinute int    `json:"limit_per_minute"`
		RetryAfter     int    `json:"retry_after_seconds"`
		Hint           string `json:"hint"`
		Documentation  string `json:"documentation"`
	}{
		Error:          fmt.Sprintf("Te veel verzoeken. Probeer het over %d seconde(n) opnieuw.", retryAfter),
		LimitPerMinute: 60, RetryAfter: retryAfter,
		Hint:          "Zware verzoeken tellen zwaarder: een zoekopdracht kost 1 eenheid per 24 resultaten, dus limit=100 kost 5. Verlaag 'limit' of spreid je verzoeken. Elke API-response bevat RateLimit-Limit, RateLimit-Remaining en RateLimit-Reset.",
		Documentation: "https://openbesluitvorming.nl/docs/api",
	})
	return "application/json", b
}

// AddOBVEntity adds a document (an entity in the platform's own JSON, as
// GET /api/entities/{id} answers it: entityId, entityType, title,
// organization, date, sortDate, markdownText, …) to OpenBesluitvorming
// while the simulator serves: a document published after a search was
// saved, which the searches find from then on. An entity whose id is
// already there is refused.
func (s *Sim) AddOBVEntity(raw json.RawMessage) error {
	e, err := parseOBVEntity(raw)
	if err != nil {
		return fmt.Errorf("platformsim: AddOBVEntity: %v", err)
	}
	o := s.backends["obv"].(*obvSim)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byID[e.id] != nil {
		return fmt.Errorf("platformsim: AddOBVEntity: entity %q is already there", e.id)
	}
	o.byID[e.id] = e
	// A fresh slice: a search reading the old one keeps reading it whole.
	o.entities = append(o.entities[:len(o.entities):len(o.entities)], e)
	return nil
}
