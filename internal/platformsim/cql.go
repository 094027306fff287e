package platformsim

import (
	"fmt"
	"strings"
)

// The CQL subset of KOOP's SRU service as the Officiële Bekendmakingen
// connector and its documentation use it: clauses "index rel value" with
// rel =, ==, exact, any, all, <, <=, >, >=; and, or, not; parentheses;
// quoted values with \-escapes; a trailing sortBy index/sort.(a|de)scending.

// cqlClause is one index/relation/value triple.
type cqlClause struct {
	index, rel, value string
}

// cqlNode is a parsed query: a clause or a boolean of two nodes.
type cqlNode struct {
	clause *cqlClause
	op     string // and, or, not
	l, r   *cqlNode
}

// cqlQuery is a parsed searchRetrieve query.
type cqlQuery struct {
	root     *cqlNode
	sortBy   string
	sortDesc bool
}

// cqlDiag is an SRU diagnostic: its number (info:srw/diagnostic/1/N),
// message and details.
type cqlDiag struct {
	num     int
	message string
	details string
}

func (d *cqlDiag) Error() string { return d.message + ": " + d.details }

func parseCQL(q string) (*cqlQuery, error) {
	toks, err := cqlTokens(q)
	if err != nil {
		return nil, err
	}
	out := &cqlQuery{}
	for i, t := range toks {
		if strings.EqualFold(t, "sortBy") {
			if i+1 >= len(toks) {
				return nil, &cqlDiag{10, "Query syntax error", "sortBy without an index"}
			}
			key := toks[i+1]
			idx, mod, _ := strings.Cut(key, "/")
			out.sortBy = idx
			out.sortDesc = strings.Contains(mod, "descending")
			toks = toks[:i]
			break
		}
	}
	p := &cqlParser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, &cqlDiag{10, "Query syntax error", fmt.Sprintf("mismatched input '%s' expecting <EOF>", p.toks[p.pos])}
	}
	out.root = n
	return out, nil
}

type cqlParser struct {
	toks []string
	pos  int
}

func (p *cqlParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *cqlParser) or() (*cqlNode, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for strings.EqualFold(p.peek(), "or") {
		p.pos++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &cqlNode{op: "or", l: l, r: r}
	}
	return l, nil
}

func (p *cqlParser) and() (*cqlNode, error) {
	l, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		op := strings.ToLower(p.peek())
		if op != "and" && op != "not" {
			return l, nil
		}
		p.pos++
		r, err := p.primary()
		if err != nil {
			return nil, err
		}
		l = &cqlNode{op: op, l: l, r: r}
	}
}

var cqlRelations = map[string]bool{"=": true, "==": true, "exact": true, "any": true, "all": true, "<": true, "<=": true, ">": true, ">=": true, "<>": true, "adj": true}

func (p *cqlParser) primary() (*cqlNode, error) {
	t := p.peek()
	if t == "" {
		return nil, &cqlDiag{10, "Query syntax error", "unexpected end of query"}
	}
	p.pos++
	if t == "(" {
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, &cqlDiag{10, "Query syntax error", fmt.Sprintf("missing ')' at '%s'", p.peek())}
		}
		p.pos++
		return n, nil
	}
	if rel := strings.ToLower(p.peek()); cqlRelations[rel] && p.pos+1 < len(p.toks) {
		p.pos++
		v := p.toks[p.pos]
		p.pos++
		return &cqlNode{clause: &cqlClause{index: t, rel: rel, value: unquoteCQL(v)}}, nil
	}
	// A bare term searches the default index.
	return &cqlNode{clause: &cqlClause{index: "cql.serverChoice", rel: "=", value: unquoteCQL(t)}}, nil
}

func unquoteCQL(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		var b strings.Builder
		esc := false
		for _, r := range v {
			if esc {
				b.WriteRune(r)
				esc = false
				continue
			}
			if r == '\\' {
				esc = true
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return v
}

// cqlTokens splits a query into quoted strings, parentheses, relation
// symbols and words.
func cqlTokens(q string) ([]string, error) {
	var out []string
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			i++
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(rs) {
				return nil, &cqlDiag{10, "Query syntax error", "token recognition error: unterminated string"}
			}
			out = append(out, string(rs[i:j+1]))
			i = j + 1
		case r == '(' || r == ')':
			out = append(out, string(r))
			i++
		case r == '=' || r == '<' || r == '>':
			j := i + 1
			for j < len(rs) && strings.ContainsRune("=<>", rs[j]) {
				j++
			}
			out = append(out, string(rs[i:j]))
			i = j
		case r == '{' || r == '}':
			return nil, &cqlDiag{10, "Query syntax error", fmt.Sprintf("token recognition error at: '%c'", r)}
		default:
			j := i
			for j < len(rs) && !strings.ContainsRune(" \t\n\"()=<>", rs[j]) {
				j++
			}
			out = append(out, string(rs[i:j]))
			i = j
		}
	}
	return out, nil
}
