package platformsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// tkSim serves the Tweede Kamer Gegevensmagazijn's OData v4 API from
// testdata/tk: entity sets with $filter, $select, $expand, $orderby, $top,
// $skip and $count, entities by key, and documents' files.
type tkSim struct {
	sets  map[string][]map[string]any // canonical set name → entities
	names map[string]string           // lower-case → canonical
	props map[string]map[string]bool
	files map[string][]string // Document Id → pages of text (served as PDF)
	xml   map[string][]byte   // Document Id → XML file
}

const tkContext = "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/$metadata#"

// tkPageSize is the platform's server-driven page.
const tkPageSize = 250

func newTK(d dataDir) (backend, error) {
	s := &tkSim{sets: map[string][]map[string]any{}, names: map[string]string{}, props: map[string]map[string]bool{}, xml: map[string][]byte{}}
	sources := map[string][]string{
		"Document": {"sim/documents.json", "tk-search-documents.json", "tk-document-kst.json", "tk-document-docx.json"},
		"Zaak":     {"sim/zaken.json", "sim/moties.json", "tk-search-zaak.json"},
		// Decisions with their votes, cases and meeting embedded, as
		// Besluit?$expand=Stemming,Zaak,Agendapunt($expand=Activiteit)
		// returns them: the simulator's motions (sim/besluiten.json) and
		// the recorded ones (tk_get_votes' contract cases).
		"Besluit":    {"sim/besluiten.json", "tk-votes-besluit.json"},
		"Activiteit": {"sim/activiteiten.json", "tk-search-activiteit.json"},
		// The recorded lists hold one or two entries (the current ones
		// none, for Fractie): sim/ has the sitting Kamer's groups,
		// committees and members, so that every list tool lists some.
		"Fractie":   {"sim/fracties.json", "tk-odata-fractie.json"},
		"Commissie": {"sim/commissies.json", "tk-commissie.json"},
		"Persoon":   {"sim/personen.json", "tk-odata-persoon.json"},
	}
	for set, files := range sources {
		seen := map[string]bool{}
		props := map[string]bool{"Verwijderd": true}
		for _, f := range files {
			var raw map[string]json.RawMessage
			if err := d.json("tk", f, &raw); err != nil {
				return nil, err
			}
			var recs []map[string]any
			if v, ok := raw["value"]; ok {
				if err := json.Unmarshal(v, &recs); err != nil {
					return nil, fmt.Errorf("%s: value: %v", f, err)
				}
			} else {
				var one map[string]any
				b, _ := json.Marshal(raw)
				json.Unmarshal(b, &one)
				recs = []map[string]any{one}
			}
			for _, r := range recs {
				for k := range r {
					if strings.HasPrefix(k, "@") {
						delete(r, k)
					}
				}
				id, _ := r["Id"].(string)
				if id == "" {
					return nil, fmt.Errorf("%s: an entity without Id", f)
				}
				if seen[id] {
					continue
				}
				seen[id] = true
				if _, ok := r["Verwijderd"]; !ok {
					r["Verwijderd"] = false
				}
				for k := range r {
					props[k] = true
				}
				s.sets[set] = append(s.sets[set], r)
			}
		}
		s.names[strings.ToLower(set)] = set
		s.props[set] = props
	}
	if err := s.linkDocuments(d); err != nil {
		return nil, err
	}
	for _, e := range longTKEntities() {
		s.sets["Document"] = append(s.sets["Document"], e)
		for k := range e {
			s.props["Document"][k] = true
		}
	}
	if err := d.json("tk", "sim/files.json", &s.files); err != nil {
		return nil, err
	}
	for _, f := range d.glob("tk", "sim/*.xml") {
		b, err := readFile(f)
		if err != nil {
			return nil, err
		}
		id := strings.TrimSuffix(f[strings.LastIndexAny(f, `/\`)+1:], ".xml")
		s.xml[id] = b
	}
	return s, nil
}

// linkDocuments completes the documents' cases: a case a document names
// only by number gets the fields of the Zaak entity with that number, as
// $expand=Zaak returns them; and the recorded motion of tk_get_votes'
// contract cases (tk-votes-document.json) gets its case, which the
// recorded search response it also appears in does not carry.
func (s *tkSim) linkDocuments(d dataDir) error {
	var votes struct {
		Value []map[string]any `json:"value"`
	}
	if err := d.json("tk", "tk-votes-document.json", &votes); err != nil {
		return err
	}
	for _, v := range votes.Value {
		id, _ := v["Id"].(string)
		if e := s.find("Document", id); e != nil && e["Zaak"] == nil {
			e["Zaak"] = v["Zaak"]
		}
	}
	zaken := map[string]map[string]any{}
	for _, z := range s.sets["Zaak"] {
		if n, _ := z["Nummer"].(string); n != "" {
			zaken[n] = z
		}
	}
	for _, e := range s.sets["Document"] {
		refs, _ := e["Zaak"].([]any)
		for i, r := range refs {
			ref, _ := r.(map[string]any)
			n, _ := ref["Nummer"].(string)
			if z, ok := zaken[n]; ok && len(ref) == 1 {
				full := map[string]any{}
				for k, v := range z {
					full[k] = v
				}
				refs[i] = full
			}
		}
	}
	return nil
}

func (s *tkSim) cost(*http.Request) float64 { return 1 }

func tkError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": "", "message": msg}})
}

var tkKeyPath = regexp.MustCompile(`^/([A-Za-z]+)(?:\(([^)]*)\))?(/[A-Za-z.]+(?:\(\))?)?$`)

func (s *tkSim) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/OData/v4/2.0")
	if !ok {
		writeBody(w, http.StatusNotFound, "text/html", []byte("<html><body><h1>404 - Not Found</h1></body></html>"))
		return
	}
	m := tkKeyPath.FindStringSubmatch(rest)
	if m == nil {
		tkError(w, http.StatusNotFound, fmt.Sprintf("No HTTP resource was found that matches the request URI '%s'.", r.URL.String()))
		return
	}
	set, ok := s.names[strings.ToLower(m[1])]
	if !ok {
		tkError(w, http.StatusNotFound, fmt.Sprintf("No HTTP resource was found that matches the request URI '%s'.", r.URL.String()))
		return
	}
	key, action := m[2], m[3]
	if m[0] != rest || (key == "" && strings.Contains(rest, "(")) {
		tkError(w, http.StatusBadRequest, "The request URI is not valid.")
		return
	}
	if key != "" {
		s.entity(w, r, set, key, action)
		return
	}
	if action != "" {
		tkError(w, http.StatusBadRequest, "The request URI is not valid. '"+action+"' cannot follow a collection.")
		return
	}
	s.collection(w, r, set)
}

var guidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func (s *tkSim) find(set, id string) map[string]any {
	for _, e := range s.sets[set] {
		if strings.EqualFold(e["Id"].(string), id) {
			return e
		}
	}
	return nil
}

func (s *tkSim) entity(w http.ResponseWriter, r *http.Request, set, key, action string) {
	if !guidRE.MatchString(key) {
		tkError(w, http.StatusBadRequest, fmt.Sprintf("The request URI is not valid. The key value '%s' is not a valid Guid.", key))
		return
	}
	e := s.find(set, key)
	if e == nil {
		tkError(w, http.StatusNotFound, fmt.Sprintf("No entity found for key '%s'.", key))
		return
	}
	switch action {
	case "":
		sel, exp, err := s.shape(r, set)
		if err != nil {
			tkError(w, http.StatusBadRequest, err.Error())
			return
		}
		out := project(e, sel, exp)
		out["@odata.context"] = tkContext + set + "/$entity"
		writeJSON(w, http.StatusOK, out)
	case "/resource", "/TK.DA.GGM.OData.Resource()":
		s.resource(w, e)
	default:
		tkError(w, http.StatusNotFound, fmt.Sprintf("No HTTP resource was found for '%s'.", action))
	}
}

// resource serves a document's file: recorded XML as is, recorded text as
// a PDF, and nothing (404) for a document whose file is not recorded.
func (s *tkSim) resource(w http.ResponseWriter, e map[string]any) {
	id := strings.ToLower(e["Id"].(string))
	ct, _ := e["ContentType"].(string)
	if d := longDocFor("tk", id); d != nil {
		writeBody(w, http.StatusOK, "application/pdf", d.tkFile())
		return
	}
	if b, ok := s.xml[id]; ok {
		writeBody(w, http.StatusOK, "text/xml", b)
		return
	}
	pages, ok := s.files[id]
	if !ok && strings.Contains(ct, "pdf") {
		// A recorded document without recorded text: its file is its
		// own recorded subject and title, which is what the record says.
		onderwerp, _ := e["Onderwerp"].(string)
		titel, _ := e["Titel"].(string)
		pages, ok = []string{strings.TrimSpace(titel + "\n" + onderwerp)}, true
	}
	if !ok || !strings.Contains(ct, "pdf") {
		tkError(w, http.StatusNotFound, "The document has no resource.")
		return
	}
	writeBody(w, http.StatusOK, "application/pdf", makePDF(pages))
}

// expandOpts are the options of one expanded navigation property: its
// $select (nil: all) and its own $expand, as in
// Agendapunt($select=Id;$expand=Activiteit($select=Datum)).
type expandOpts struct {
	sel map[string]bool
	exp map[string]*expandOpts
}

// shape reads $select and $expand.
func (s *tkSim) shape(r *http.Request, set string) (map[string]bool, map[string]*expandOpts, error) {
	q := r.URL.Query()
	var sel map[string]bool
	if v := q.Get("$select"); v != "" {
		sel = map[string]bool{}
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if !s.props[set][f] {
				return nil, nil, fmt.Errorf("The query specified in the URI is not valid. Could not find a property named '%s' on type 'TK.DA.GGM.OData.%s'.", f, set)
			}
			sel[f] = true
		}
	}
	exp := map[string]*expandOpts{}
	if v := q.Get("$expand"); v != "" {
		var err error
		if exp, err = parseExpand(v, func(name string) bool { return s.props[set][name] }, set, 0); err != nil {
			return nil, nil, err
		}
	}
	return sel, exp, nil
}

// parseExpand reads an $expand value; known checks the top level's
// navigation properties (nested ones are not checked). Nesting deeper than
// two levels is refused, as ASP.NET OData's default MaxExpansionDepth does.
func parseExpand(v string, known func(string) bool, set string, depth int) (map[string]*expandOpts, error) {
	if depth >= 2 {
		return nil, fmt.Errorf("The query specified in the URI is not valid. The request includes a $expand path which is too deep. The maximum depth allowed is 2.")
	}
	exp := map[string]*expandOpts{}
	for _, part := range splitTop(v, ',') {
		name, inner, _ := strings.Cut(part, "(")
		name = strings.TrimSpace(name)
		if known != nil && !known(name) {
			return nil, fmt.Errorf("The query specified in the URI is not valid. Could not find a property named '%s' on type 'TK.DA.GGM.OData.%s'.", name, set)
		}
		opts := &expandOpts{}
		for _, o := range splitTop(strings.TrimSuffix(inner, ")"), ';') {
			switch k, val, _ := strings.Cut(strings.TrimSpace(o), "="); k {
			case "":
			case "$select":
				opts.sel = map[string]bool{}
				for _, f := range strings.Split(val, ",") {
					opts.sel[strings.TrimSpace(f)] = true
				}
			case "$expand":
				sub, err := parseExpand(val, nil, name, depth+1)
				if err != nil {
					return nil, err
				}
				opts.exp = sub
			default:
				return nil, fmt.Errorf("The query specified in the URI is not valid. The option '%s' of the expansion of '%s' is not supported here.", k, name)
			}
		}
		exp[name] = opts
	}
	return exp, nil
}

// splitTop splits on sep outside parentheses.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// project returns the selected structural properties and the expanded
// navigation properties of an entity; navigation properties (objects and
// lists) appear only when expanded, as on the platform. An expansion with
// options is projected in turn; one without is returned whole.
func project(e map[string]any, sel map[string]bool, exp map[string]*expandOpts) map[string]any {
	out := map[string]any{}
	for k, v := range e {
		switch v.(type) {
		case map[string]any, []any:
			opts, ok := exp[k]
			if !ok {
				continue
			}
			if opts.sel != nil || opts.exp != nil {
				switch x := v.(type) {
				case map[string]any:
					v = project(x, opts.sel, opts.exp)
				case []any:
					items := make([]any, 0, len(x))
					for _, it := range x {
						if m, isMap := it.(map[string]any); isMap {
							items = append(items, project(m, opts.sel, opts.exp))
						}
					}
					v = items
				}
			}
			out[k] = v
		default:
			if sel == nil || sel[k] {
				out[k] = v
			}
		}
	}
	return out
}

func (s *tkSim) collection(w http.ResponseWriter, r *http.Request, set string) {
	q := r.URL.Query()
	for k := range q {
		switch k {
		case "$filter", "$select", "$expand", "$orderby", "$top", "$skip", "$count", "$format":
		default:
			if strings.HasPrefix(k, "$") {
				tkError(w, http.StatusBadRequest, fmt.Sprintf("The query parameter '%s' is not supported.", k))
				return
			}
		}
	}
	var filter odataNode
	if f := q.Get("$filter"); f != "" {
		n, nodes, err := parseODataFilter(f, set, func(p string) bool { return s.props[set][p] })
		if err != nil {
			tkError(w, http.StatusBadRequest, err.Error())
			return
		}
		if nodes > 100 {
			tkError(w, http.StatusBadRequest, "The query specified in the URI is not valid. The node count limit of '100' has been exceeded. To increase the limit, set the 'MaxNodeCount' property on EnableQueryAttribute or ODataValidationSettings.")
			return
		}
		filter = n
	}
	sel, exp, err := s.shape(r, set)
	if err != nil {
		tkError(w, http.StatusBadRequest, err.Error())
		return
	}
	top, skip := -1, 0
	for _, p := range []struct {
		name string
		dst  *int
	}{{"$top", &top}, {"$skip", &skip}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				tkError(w, http.StatusBadRequest, fmt.Sprintf("Invalid value '%s' for %s query option found.", v, p.name))
				return
			}
			*p.dst = n
		}
	}
	var matched []map[string]any
	for _, e := range s.sets[set] {
		if filter != nil {
			v, err := filter.eval(odataEnv{rec: e})
			if err != nil {
				tkError(w, http.StatusBadRequest, err.Error())
				return
			}
			if b, _ := v.(bool); !b {
				continue
			}
		}
		matched = append(matched, e)
	}
	if ob := q.Get("$orderby"); ob != "" {
		var keys [][2]string
		for _, part := range strings.Split(ob, ",") {
			f := strings.Fields(part)
			if len(f) == 0 || len(f) > 2 || !s.props[set][f[0]] {
				tkError(w, http.StatusBadRequest, fmt.Sprintf("The query specified in the URI is not valid. Could not find a property named '%s' on type 'TK.DA.GGM.OData.%s'.", strings.TrimSpace(part), set))
				return
			}
			dir := "asc"
			if len(f) == 2 {
				dir = f[1]
			}
			keys = append(keys, [2]string{f[0], dir})
		}
		sort.SliceStable(matched, func(i, j int) bool {
			for _, k := range keys {
				c, ok := odataCompare(matched[i][k[0]], matched[j][k[0]])
				if !ok {
					// null sorts first ascending, as SQL Server does.
					ai, aj := matched[i][k[0]] == nil, matched[j][k[0]] == nil
					if ai == aj {
						continue
					}
					c = 1
					if ai {
						c = -1
					}
				}
				if c == 0 {
					continue
				}
				if k[1] == "desc" {
					return c > 0
				}
				return c < 0
			}
			return false
		})
	}
	size := tkPageSize
	if top >= 0 && top < size {
		size = top
	}
	page := window(matched, skip, size)
	value := []any{}
	for _, e := range page {
		value = append(value, project(e, sel, exp))
	}
	out := map[string]any{"@odata.context": tkContext + set, "value": value}
	if q.Get("$count") == "true" {
		out["@odata.count"] = len(matched)
	}
	limit := len(matched)
	if top >= 0 {
		limit = min(limit, skip+top)
	}
	if next := skip + len(page); next < limit {
		nq := r.URL.Query()
		nq.Set("$skip", strconv.Itoa(next))
		out["@odata.nextLink"] = "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/" + set + "?" + nq.Encode()
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *tkSim) serverError(string) (int, string, []byte) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "", "message": "An error has occurred."}})
	return http.StatusInternalServerError, "application/json; odata.metadata=minimal", b
}

func (s *tkSim) tooMany(retryAfter int) (string, []byte) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "429", "message": fmt.Sprintf("Too many requests. Retry after %d seconds.", retryAfter)}})
	return "application/json", b
}
