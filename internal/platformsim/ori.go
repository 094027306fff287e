package platformsim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
)

// oriSim serves Open Raadsinformatie Classic: an Elasticsearch 7 _search
// behind nginx, from testdata/ori.
type oriSim struct {
	hits    []*oriHit
	indexes []string
}

type oriHit struct {
	Index  string         `json:"_index"`
	Type   string         `json:"_type"`
	ID     string         `json:"_id"`
	Source map[string]any `json:"_source"`
	doc    doc
	text   string
}

func newORI(d dataDir) (backend, error) {
	s := &oriSim{}
	var sim struct {
		Hits []*oriHit `json:"hits"`
	}
	if err := d.json("ori", "sim/hits.json", &sim); err != nil {
		return nil, err
	}
	all := sim.Hits
	for _, f := range []string{"ori-document.json", "ori-search-soest.json"} {
		var rec struct {
			Hits struct {
				Hits []*oriHit `json:"hits"`
			} `json:"hits"`
		}
		if err := d.json("ori", f, &rec); err != nil {
			return nil, err
		}
		all = append(all, rec.Hits.Hits...)
	}
	seen := map[string]bool{}
	idx := map[string]bool{}
	for _, h := range all {
		if h.ID == "" || h.Index == "" || h.Source == nil {
			return nil, fmt.Errorf("a hit without _id, _index or _source")
		}
		if seen[h.Index+"/"+h.ID] {
			continue
		}
		seen[h.Index+"/"+h.ID] = true
		var parts []string
		for _, k := range []string{"name", "title", "description"} {
			if v, ok := h.Source[k].(string); ok {
				parts = append(parts, v)
			}
		}
		for _, k := range []string{"md_text", "text"} {
			switch v := h.Source[k].(type) {
			case string:
				parts = append(parts, v)
			case []any:
				for _, p := range v {
					if s, ok := p.(string); ok {
						parts = append(parts, s)
					}
				}
			}
		}
		h.text = strings.Join(parts[min(len(parts), 1):], " ")
		h.doc = newDoc(parts...)
		s.hits = append(s.hits, h)
		idx[h.Index] = true
	}
	for k := range idx {
		s.indexes = append(s.indexes, k)
	}
	sort.Strings(s.indexes)
	return s, nil
}

func (s *oriSim) cost(*http.Request) float64 { return 1 }

const nginxPage = "<html>\r\n<head><title>%d %s</title></head>\r\n<body>\r\n<center><h1>%d %s</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

func nginx(status int) []byte {
	t := http.StatusText(status)
	return []byte(fmt.Sprintf(nginxPage, status, t, status, t))
}

// esError writes Elasticsearch's error body.
func esError(w http.ResponseWriter, status int, typ, reason string) {
	writeJSON(w, status, map[string]any{
		"error":  map[string]any{"root_cause": []any{map[string]any{"type": typ, "reason": reason}}, "type": typ, "reason": reason},
		"status": status,
	})
}

func (s *oriSim) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/elastic/")
	if !ok {
		writeBody(w, http.StatusNotFound, "text/html", nginx(404))
		return
	}
	// The proxy's rules: read-only, POST only to _search/_msearch.
	switch r.Method {
	case "GET", "HEAD", "OPTIONS":
	case "POST":
		if !strings.HasSuffix(rest, "_search") && !strings.HasSuffix(rest, "_msearch") {
			writeBody(w, http.StatusForbidden, "text/html", nginx(403))
			return
		}
	default:
		writeBody(w, http.StatusForbidden, "text/html", nginx(403))
		return
	}
	if strings.Contains(rest, "_cluster") || strings.Contains(rest, "_shutdown") {
		writeBody(w, http.StatusForbidden, "text/html", nginx(403))
		return
	}
	pattern, op, found := strings.Cut(rest, "/")
	if !found || op != "_search" {
		esError(w, http.StatusBadRequest, "illegal_argument_exception", "the simulator serves only <index>/_search")
		return
	}
	indexes, err := s.matchIndexes(pattern)
	if err != nil {
		esError(w, http.StatusNotFound, "index_not_found_exception", err.Error())
		return
	}
	var body esBody
	if r.Method == "POST" {
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			esError(w, http.StatusBadRequest, "parsing_exception", "could not read the request body")
			return
		}
		if len(strings.TrimSpace(string(b))) > 0 {
			if err := json.Unmarshal(b, &body); err != nil {
				esError(w, http.StatusBadRequest, "parsing_exception", "Unknown key or malformed JSON: "+err.Error())
				return
			}
		}
	} else {
		if err := body.fromQuery(r); err != nil {
			esError(w, http.StatusBadRequest, "query_shard_exception", err.Error())
			return
		}
	}
	s.search(w, indexes, &body)
}

// matchIndexes resolves a comma-separated index pattern with * wildcards.
// A wildcard that matches nothing is fine (allow_no_indices); a concrete
// name that does not exist is not.
func (s *oriSim) matchIndexes(pattern string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range strings.Split(pattern, ",") {
		n := 0
		for _, idx := range s.indexes {
			if ok, _ := path.Match(p, idx); ok {
				out[idx] = true
				n++
			}
		}
		if n == 0 && !strings.Contains(p, "*") {
			return nil, fmt.Errorf("no such index [%s]", p)
		}
	}
	return out, nil
}

// esBody is the part of a _search request the simulator understands.
type esBody struct {
	Query     map[string]any  `json:"query"`
	Size      *int            `json:"size"`
	From      *int            `json:"from"`
	Sort      []any           `json:"sort"`
	Source    json.RawMessage `json:"_source"`
	Highlight *struct {
		PreTags  []string       `json:"pre_tags"`
		PostTags []string       `json:"post_tags"`
		Fields   map[string]any `json:"fields"`
		Size     int            `json:"fragment_size"`
	} `json:"highlight"`
	excludes []string
}

// fromQuery reads a GET _search: q (the Lucene query, of which the
// simulator knows _id:N and plain words), size, from, _source_excludes.
func (b *esBody) fromQuery(r *http.Request) error {
	q := r.URL.Query()
	for _, k := range []string{"size", "from"} {
		if v := q.Get(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("failed to parse [%s]: %q", k, v)
			}
			if k == "size" {
				b.Size = &n
			} else {
				b.From = &n
			}
		}
	}
	if v := q.Get("_source_excludes"); v != "" {
		b.excludes = strings.Split(v, ",")
	}
	lq := strings.TrimSpace(q.Get("q"))
	switch {
	case lq == "":
		b.Query = map[string]any{"match_all": map[string]any{}}
	case strings.HasPrefix(lq, "_id:"):
		b.Query = map[string]any{"ids": map[string]any{"values": []any{strings.TrimPrefix(lq, "_id:")}}}
	default:
		if strings.Count(lq, `"`)%2 == 1 {
			return fmt.Errorf("Failed to parse query [%s]", lq)
		}
		b.Query = map[string]any{"simple_query_string": map[string]any{"query": lq, "default_operator": "or"}}
	}
	return nil
}

func (s *oriSim) search(w http.ResponseWriter, indexes map[string]bool, b *esBody) {
	size, from := 10, 0
	if b.Size != nil {
		size = *b.Size
	}
	if b.From != nil {
		from = *b.From
	}
	if from+size > 10000 {
		esError(w, http.StatusBadRequest, "illegal_argument_exception",
			fmt.Sprintf("Result window is too large, from + size must be less than or equal to: [10000] but was [%d].", from+size))
		return
	}
	if b.Query == nil {
		b.Query = map[string]any{"match_all": map[string]any{}}
	}
	includes, excludes := sourceFilter(b.Source)
	excludes = append(excludes, b.excludes...)
	type scored struct {
		h     *oriHit
		score float64
	}
	var found []scored
	var hlTerms []term
	for _, h := range append(s.hits[:len(s.hits):len(s.hits)], longORIHits(b.Query)...) {
		if !indexes[h.Index] {
			continue
		}
		ok, sc, ts, err := evalES(b.Query, h)
		if err != nil {
			esError(w, http.StatusBadRequest, "parsing_exception", err.Error())
			return
		}
		if ok {
			found = append(found, scored{h, sc})
			hlTerms = ts
		}
	}
	byDate := ""
	for _, sk := range b.Sort {
		if m, ok := sk.(map[string]any); ok {
			for k, v := range m {
				if k != "_score" && byDate == "" {
					byDate = "desc"
					if o, ok := v.(map[string]any); ok && o["order"] == "asc" {
						byDate = "asc"
					}
					byDate = k + " " + byDate
				}
			}
		}
		break // the first sort key decides; _score breaks ties below
	}
	sort.SliceStable(found, func(i, j int) bool {
		if byDate != "" {
			field, dir, _ := strings.Cut(byDate, " ")
			a, _ := found[i].h.Source[field].(string)
			c, _ := found[j].h.Source[field].(string)
			if a != c {
				if a == "" || c == "" { // unmapped or missing sorts last
					return c == ""
				}
				if dir == "asc" {
					return a < c
				}
				return a > c
			}
		}
		return found[i].score > found[j].score
	})
	page := window(found, from, size)
	var maxScore any
	hits := []any{}
	for _, f := range page {
		if ms, ok := maxScore.(float64); !ok || f.score > ms {
			maxScore = f.score
		}
		src := map[string]any{}
		for k, v := range f.h.Source {
			if keepField(k, includes, excludes) {
				src[k] = v
			}
		}
		hit := map[string]any{"_index": f.h.Index, "_type": "_doc", "_id": f.h.ID, "_score": f.score, "_source": src}
		if b.Highlight != nil && len(hlTerms) > 0 {
			pre, post := "<em>", "</em>"
			if len(b.Highlight.PreTags) > 0 {
				pre = b.Highlight.PreTags[0]
			}
			if len(b.Highlight.PostTags) > 0 {
				post = b.Highlight.PostTags[0]
			}
			width := b.Highlight.Size
			if width <= 0 {
				width = 100
			}
			hl := map[string]any{}
			name, _ := f.h.Source["name"].(string)
			if _, ok := b.Highlight.Fields["name"]; ok && newDoc(name).matched(hlTerms, prefixMatch) > 0 {
				hl["name"] = []string{snippet(name, hlTerms, pre, post, len(name)+10, true)}
			}
			if _, ok := b.Highlight.Fields["text"]; ok && newDoc(f.h.text).matched(hlTerms, prefixMatch) > 0 {
				hl["text"] = []string{snippet(f.h.text, hlTerms, pre, post, width, true)}
			}
			if len(hl) > 0 {
				hit["highlight"] = hl
			}
		}
		hits = append(hits, hit)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"took": 3 + len(indexes), "timed_out": false,
		"_shards": map[string]any{"total": len(indexes), "successful": len(indexes), "skipped": 0, "failed": 0},
		"hits":    map[string]any{"total": map[string]any{"value": len(found), "relation": "eq"}, "max_score": maxScore, "hits": hits},
	})
}

// sourceFilter reads _source: false, ["a","b"], or {includes, excludes}.
func sourceFilter(raw json.RawMessage) (includes, excludes []string) {
	if len(raw) == 0 {
		return nil, nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var obj struct {
		Includes []string `json:"includes"`
		Excludes []string `json:"excludes"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Includes, obj.Excludes
	}
	return nil, nil
}

func keepField(k string, includes, excludes []string) bool {
	for _, e := range excludes {
		if ok, _ := path.Match(e, k); ok {
			return false
		}
	}
	if len(includes) == 0 {
		return true
	}
	for _, i := range includes {
		if ok, _ := path.Match(i, k); ok {
			return true
		}
	}
	return false
}

// serverError is Elasticsearch's answer when every shard failed.
func (s *oriSim) serverError(string) (int, string, []byte) {
	b, _ := json.Marshal(map[string]any{
		"error":  map[string]any{"root_cause": []any{}, "type": "search_phase_execution_exception", "reason": "all shards failed", "phase": "query", "grouped": true, "failed_shards": []any{}},
		"status": 503,
	})
	return http.StatusServiceUnavailable, "application/json; charset=UTF-8", b
}

func (s *oriSim) tooMany(int) (string, []byte) { return "text/html", nginx(429) }
