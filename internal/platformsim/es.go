package platformsim

import (
	"fmt"
	"strings"
)

// evalES evaluates the Elasticsearch query DSL clauses the ORI connector
// and its documentation use against one hit: match_all, ids,
// simple_query_string, bool (must, filter, should, must_not), range, term
// and terms. It returns whether the hit matches, its score, and the
// free-text terms met on the way (for highlighting). An unknown clause is
// an error in Elasticsearch's words.
func evalES(q map[string]any, h *oriHit) (bool, float64, []term, error) {
	if len(q) != 1 {
		return false, 0, nil, fmt.Errorf("[_na] query malformed, must start with start_object with exactly one clause, got %d", len(q))
	}
	for kind, raw := range q {
		body, _ := raw.(map[string]any)
		switch kind {
		case "match_all":
			return true, 1, nil, nil
		case "ids":
			vals, _ := body["values"].([]any)
			for _, v := range vals {
				if fmt.Sprint(v) == h.ID {
					return true, 1, nil, nil
				}
			}
			return false, 0, nil, nil
		case "simple_query_string", "query_string":
			qs, _ := body["query"].(string)
			op, _ := body["default_operator"].(string)
			ok, sc, ts := simpleQuery(qs, strings.EqualFold(op, "and"), h.doc)
			return ok, float64(sc), ts, nil
		case "bool":
			return evalBool(body, h)
		case "range":
			for field, rv := range body {
				bounds, _ := rv.(map[string]any)
				v := fieldString(h, field)
				if v == "" {
					return false, 0, nil, nil
				}
				for op, bv := range bounds {
					b := fmt.Sprint(bv)
					c := v
					if len(b) == 10 && len(c) > 10 { // a date bound against a timestamp
						c = c[:10]
					}
					ok := true
					switch op {
					case "gte":
						ok = c >= b
					case "gt":
						ok = c > b
					case "lte":
						ok = c <= b
					case "lt":
						ok = c < b
					case "format", "time_zone":
					default:
						return false, 0, nil, fmt.Errorf("[range] query does not support [%s]", op)
					}
					if !ok {
						return false, 0, nil, nil
					}
				}
			}
			return true, 1, nil, nil
		case "term":
			for field, tv := range body {
				if m, ok := tv.(map[string]any); ok {
					tv = m["value"]
				}
				return fieldString(h, field) == fmt.Sprint(tv), 1, nil, nil
			}
			return false, 0, nil, nil
		case "terms":
			for field, tv := range body {
				vals, _ := tv.([]any)
				v := fieldString(h, field)
				for _, x := range vals {
					if v == fmt.Sprint(x) {
						return true, 1, nil, nil
					}
				}
				return false, 0, nil, nil
			}
			return false, 0, nil, nil
		default:
			return false, 0, nil, fmt.Errorf("unknown query [%s]", kind)
		}
	}
	return false, 0, nil, nil
}

// clauses reads a bool section: one clause object or a list of them.
func clauses(v any) []map[string]any {
	switch t := v.(type) {
	case map[string]any:
		return []map[string]any{t}
	case []any:
		var out []map[string]any
		for _, x := range t {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

func evalBool(body map[string]any, h *oriHit) (bool, float64, []term, error) {
	score := 0.0
	var terms []term
	for _, sec := range []string{"must", "filter"} {
		for _, c := range clauses(body[sec]) {
			ok, sc, ts, err := evalES(c, h)
			if err != nil || !ok {
				return false, 0, nil, err
			}
			if sec == "must" {
				score += sc
			}
			terms = append(terms, ts...)
		}
	}
	for _, c := range clauses(body["must_not"]) {
		ok, _, _, err := evalES(c, h)
		if err != nil || ok {
			return false, 0, nil, err
		}
	}
	should := clauses(body["should"])
	need := 0
	if len(should) > 0 && body["must"] == nil && body["filter"] == nil {
		need = 1
	}
	if m, ok := body["minimum_should_match"].(float64); ok {
		need = int(m)
	}
	n := 0
	for _, c := range should {
		ok, sc, ts, err := evalES(c, h)
		if err != nil {
			return false, 0, nil, err
		}
		if ok {
			n++
			score += sc
			terms = append(terms, ts...)
		}
	}
	if n < need {
		return false, 0, nil, nil
	}
	if score == 0 {
		score = 1
	}
	return true, score, terms, nil
}

// fieldString reads a field of the hit's source (or _id, _index); a
// .keyword sub-field reads its parent.
func fieldString(h *oriHit, field string) string {
	field = strings.TrimSuffix(field, ".keyword")
	switch field {
	case "_id":
		return h.ID
	case "_index":
		return h.Index
	}
	switch v := h.Source[field].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// simpleQuery evaluates Elasticsearch's simple_query_string syntax:
// words, "phrases", prefix*, -excluded, a | b for OR; the default operator
// joins the rest. It returns the match, its score and the positive terms.
func simpleQuery(qs string, and bool, d doc) (bool, int, []term) {
	var groups [][]string // OR-groups of raw tokens
	cur := []string{}
	for _, tok := range tokenizeQuery(qs) {
		if tok == "|" {
			groups = append(groups, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, tok)
	}
	groups = append(groups, cur)
	best, any := 0, false
	var all []term
	for _, g := range groups {
		ok, sc, ts := evalGroup(g, and || len(groups) > 1, d)
		all = append(all, ts...)
		if ok {
			any = true
			best += sc
		}
	}
	return any, best, all
}

// evalGroup evaluates tokens joined by the default operator.
func evalGroup(toks []string, and bool, d doc) (bool, int, []term) {
	score, pos, hits := 0, 0, 0
	var terms []term
	for _, tok := range toks {
		neg := strings.HasPrefix(tok, "-")
		tok = strings.TrimLeft(tok, "+-")
		ts := queryTerms(strings.TrimSuffix(tok, "*"))
		if len(ts) == 0 {
			continue
		}
		n := d.score(ts, prefixMatch)
		if neg {
			if n > 0 {
				return false, 0, nil
			}
			continue
		}
		pos++
		terms = append(terms, ts...)
		if n > 0 {
			hits++
			score += n
		}
	}
	if pos == 0 {
		return true, 1, nil
	}
	if and {
		return hits == pos, score, terms
	}
	return hits > 0, score, terms
}

// tokenizeQuery splits a query into tokens, keeping "quoted phrases"
// whole (quotes included, so queryTerms sees a phrase) and | alone.
func tokenizeQuery(qs string) []string {
	var out []string
	var b strings.Builder
	inQuote := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range qs {
		switch {
		case r == '"':
			b.WriteRune(r)
			inQuote = !inQuote
			if !inQuote {
				flush()
			}
		case inQuote:
			b.WriteRune(r)
		case r == ' ' || r == '\t' || r == '\n':
			flush()
		case r == '|':
			flush()
			out = append(out, "|")
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}
