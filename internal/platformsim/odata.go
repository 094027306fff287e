package platformsim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The OData $filter subset the Tweede Kamer connector and its users send:
// comparisons (eq ne gt ge lt le) of properties with string, number,
// Boolean, null and DateTimeOffset literals; contains, startswith,
// endswith; year(); bare Guid literals; and, or, not, parentheses; and a
// lambda any() over a navigation collection (Zaak/any(z:z/Nummer eq
// '2025Z12846')).

type odataNode interface {
	eval(env odataEnv) (any, error)
}

// odataEnv resolves a path: the record, and lambda variables.
type odataEnv struct {
	rec  map[string]any
	vars map[string]map[string]any
}

type (
	odataLit  struct{ v any }
	odataPath struct{ parts []string }
	odataBin  struct {
		op   string
		l, r odataNode
	}
	odataNot  struct{ x odataNode }
	odataCall struct {
		fn   string
		args []odataNode
	}
	odataAny struct {
		coll  odataPath
		v     string
		body  odataNode
		isAll bool
	}
)

func (n odataLit) eval(odataEnv) (any, error) { return n.v, nil }

func (n odataPath) eval(env odataEnv) (any, error) {
	var cur any = env.rec
	parts := n.parts
	if m, ok := env.vars[parts[0]]; ok {
		cur = m
		parts = parts[1:]
	}
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil
		}
		cur = m[p]
	}
	return cur, nil
}

func (n odataNot) eval(env odataEnv) (any, error) {
	v, err := n.x.eval(env)
	if err != nil {
		return nil, err
	}
	b, _ := v.(bool)
	return !b, nil
}

func (n odataAny) eval(env odataEnv) (any, error) {
	coll, err := n.coll.eval(env)
	if err != nil {
		return nil, err
	}
	items, _ := coll.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		vars := map[string]map[string]any{}
		for k, v := range env.vars {
			vars[k] = v
		}
		vars[n.v] = m
		v, err := n.body.eval(odataEnv{rec: env.rec, vars: vars})
		if err != nil {
			return nil, err
		}
		b, _ := v.(bool)
		if b != n.isAll {
			return !n.isAll, nil
		}
	}
	return n.isAll, nil
}

func (n odataCall) eval(env odataEnv) (any, error) {
	var vals []any
	for _, a := range n.args {
		v, err := a.eval(env)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	str := func(i int) (string, bool) {
		s, ok := vals[i].(string)
		return s, ok
	}
	switch n.fn {
	case "contains", "startswith", "endswith":
		a, ok1 := str(0)
		b, ok2 := str(1)
		if !ok1 || !ok2 {
			return false, nil
		}
		// The platform's collation is case- and accent-insensitive.
		a, b = fold(a), fold(b)
		switch n.fn {
		case "contains":
			return strings.Contains(a, b), nil
		case "startswith":
			return strings.HasPrefix(a, b), nil
		}
		return strings.HasSuffix(a, b), nil
	case "year", "month", "day":
		s, ok := str(0)
		t, err := time.Parse(time.RFC3339, s)
		if !ok || err != nil {
			return nil, nil
		}
		switch n.fn {
		case "year":
			return float64(t.Year()), nil
		case "month":
			return float64(t.Month()), nil
		}
		return float64(t.Day()), nil
	case "tolower", "toupper":
		s, _ := str(0)
		if n.fn == "tolower" {
			return strings.ToLower(s), nil
		}
		return strings.ToUpper(s), nil
	}
	return nil, fmt.Errorf("Unknown function '%s'.", n.fn)
}

func (n odataBin) eval(env odataEnv) (any, error) {
	l, err := n.l.eval(env)
	if err != nil {
		return nil, err
	}
	if n.op == "and" || n.op == "or" {
		lb, _ := l.(bool)
		if n.op == "and" && !lb {
			return false, nil
		}
		if n.op == "or" && lb {
			return true, nil
		}
		r, err := n.r.eval(env)
		if err != nil {
			return nil, err
		}
		rb, _ := r.(bool)
		return rb, nil
	}
	r, err := n.r.eval(env)
	if err != nil {
		return nil, err
	}
	c, ok := odataCompare(l, r)
	switch n.op {
	case "eq":
		return ok && c == 0 || l == nil && r == nil, nil
	case "ne":
		return !(ok && c == 0 || l == nil && r == nil), nil
	case "gt":
		return ok && c > 0, nil
	case "ge":
		return ok && c >= 0, nil
	case "lt":
		return ok && c < 0, nil
	case "le":
		return ok && c <= 0, nil
	}
	return nil, fmt.Errorf("unknown operator '%s'", n.op)
}

// odataCompare orders two values of the same kind; DateTimeOffsets compare
// as instants whatever their offsets. ok is false for incomparable ones.
func odataCompare(a, b any) (int, bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		if tx, err := time.Parse(time.RFC3339, x); err == nil {
			if ty, err := time.Parse(time.RFC3339, y); err == nil {
				return tx.Compare(ty), true
			}
		}
		return strings.Compare(x, y), true
	case float64:
		y, ok := b.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	case bool:
		y, ok := b.(bool)
		if !ok || x != y {
			return 1, ok
		}
		return 0, true
	}
	return 0, false
}

// odataParser is a recursive-descent parser over tokens.
type odataParser struct {
	toks  []string
	pos   int
	props func(name string) bool // known properties of the entity set
	set   string
	vars  map[string]bool
	nodes int
}

// parseODataFilter parses a $filter. known says which property names the
// entity set has; an unknown one is the platform's 400 message.
func parseODataFilter(s, set string, known func(string) bool) (odataNode, int, error) {
	toks, err := odataTokens(s)
	if err != nil {
		return nil, 0, err
	}
	p := &odataParser{toks: toks, props: known, set: set, vars: map[string]bool{}}
	n, err := p.expr()
	if err != nil {
		return nil, 0, err
	}
	if p.pos < len(p.toks) {
		return nil, 0, fmt.Errorf("Syntax error at position %d in '%s'.", p.pos, s)
	}
	return n, p.nodes, nil
}

func (p *odataParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *odataParser) next() string {
	t := p.peek()
	p.pos++
	return t
}

func (p *odataParser) expect(t string) error {
	if got := p.next(); got != t {
		return fmt.Errorf("Syntax error: '%s' expected, found '%s'.", t, got)
	}
	return nil
}

func (p *odataParser) expr() (odataNode, error) {
	l, err := p.andExpr()
	if err != nil {
		return nil, err
	}
	for p.peek() == "or" {
		p.next()
		r, err := p.andExpr()
		if err != nil {
			return nil, err
		}
		p.nodes++
		l = odataBin{"or", l, r}
	}
	return l, nil
}

func (p *odataParser) andExpr() (odataNode, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek() == "and" {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		p.nodes++
		l = odataBin{"and", l, r}
	}
	return l, nil
}

func (p *odataParser) unary() (odataNode, error) {
	if p.peek() == "not" {
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		p.nodes++
		return odataNot{x}, nil
	}
	l, err := p.operand()
	if err != nil {
		return nil, err
	}
	switch op := p.peek(); op {
	case "eq", "ne", "gt", "ge", "lt", "le":
		p.next()
		r, err := p.operand()
		if err != nil {
			return nil, err
		}
		p.nodes += 3
		return odataBin{op, l, r}, nil
	}
	return l, nil
}

func (p *odataParser) operand() (odataNode, error) {
	t := p.next()
	switch {
	case t == "":
		return nil, fmt.Errorf("Syntax error: expression expected at the end of the filter.")
	case t == "(":
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		return n, p.expect(")")
	case strings.HasPrefix(t, "'"):
		p.nodes++
		return odataLit{strings.ReplaceAll(t[1:len(t)-1], "''", "'")}, nil
	case t == "true" || t == "false":
		p.nodes++
		return odataLit{t == "true"}, nil
	case t == "null":
		p.nodes++
		return odataLit{nil}, nil
	case guidRE.MatchString(t):
		// A Guid literal is bare in OData v4 (z/Id eq 3e1a9c7d-…).
		p.nodes++
		return odataLit{strings.ToLower(t)}, nil
	case t[0] >= '0' && t[0] <= '9' || t[0] == '-':
		p.nodes++
		if n, err := strconv.ParseFloat(t, 64); err == nil {
			return odataLit{n}, nil
		}
		if _, err := time.Parse(time.RFC3339, t); err == nil {
			return odataLit{t}, nil
		}
		if _, err := time.Parse("2006-01-02", t); err == nil {
			return odataLit{t + "T00:00:00Z"}, nil
		}
		return nil, fmt.Errorf("Syntax error: '%s' is not a valid literal.", t)
	case isODataIdent(t):
		if p.peek() == "(" && !strings.Contains(t, "/") {
			return p.call(t)
		}
		return p.path(t)
	}
	return nil, fmt.Errorf("Syntax error: unexpected '%s'.", t)
}

func (p *odataParser) call(fn string) (odataNode, error) {
	switch fn {
	case "contains", "startswith", "endswith", "year", "month", "day", "tolower", "toupper":
	default:
		return nil, fmt.Errorf("The query specified in the URI is not valid. An unknown function with name '%s' was found.", fn)
	}
	p.next() // (
	var args []odataNode
	for {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.peek() == "," {
			p.next()
			continue
		}
		break
	}
	p.nodes += 4
	return odataCall{fn, args}, p.expect(")")
}

// path reads Prop, Nav/Prop, var/Prop, and Nav/any(v:…).
func (p *odataParser) path(t string) (odataNode, error) {
	parts := strings.Split(t, "/")
	last := parts[len(parts)-1]
	if (last == "any" || last == "all") && p.peek() == "(" {
		coll := odataPath{parts[:len(parts)-1]}
		if err := p.checkPath(coll.parts); err != nil {
			return nil, err
		}
		p.next()
		v := p.next()
		if !isODataIdent(v) {
			return nil, fmt.Errorf("Syntax error: a lambda variable expected after '%s('.", last)
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		p.vars[v] = true
		body, err := p.expr()
		delete(p.vars, v)
		if err != nil {
			return nil, err
		}
		p.nodes += 5
		return odataAny{coll: coll, v: v, body: body, isAll: last == "all"}, p.expect(")")
	}
	if err := p.checkPath(parts); err != nil {
		return nil, err
	}
	p.nodes++
	return odataPath{parts}, nil
}

func (p *odataParser) checkPath(parts []string) error {
	if p.vars[parts[0]] {
		return nil
	}
	if !p.props(parts[0]) {
		return fmt.Errorf("The query specified in the URI is not valid. Could not find a property named '%s' on type 'TK.DA.GGM.OData.%s'.", parts[0], p.set)
	}
	return nil
}

func isODataIdent(t string) bool {
	if t == "" {
		return false
	}
	r := rune(t[0])
	return unicode.IsLetter(r) || r == '_'
}

// odataTokens splits a filter into tokens: 'strings' (quotes kept),
// identifiers and paths (a/b), literals, and ( ) , :.
func odataTokens(s string) ([]string, error) {
	var out []string
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			i++
		case r == '(' || r == ')' || r == ',' || r == ':':
			out = append(out, string(r))
			i++
		case r == '\'':
			j := i + 1
			for {
				if j >= len(rs) {
					return nil, fmt.Errorf("Syntax error: unterminated string literal at position %d in '%s'.", i, s)
				}
				if rs[j] == '\'' {
					if j+1 < len(rs) && rs[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			out = append(out, string(rs[i:j+1]))
			i = j + 1
		default:
			j := i
			for j < len(rs) && !strings.ContainsRune(" \t(),'", rs[j]) && !(rs[j] == ':' && !isLiteralStart(rs[i])) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("Syntax error: unexpected character '%c' at position %d.", r, i)
			}
			out = append(out, string(rs[i:j]))
			i = j
		}
	}
	return out, nil
}

// isLiteralStart says whether a token is a number or date, in which a
// colon belongs to the token (10:00:00) instead of ending it (z:z/Nummer).
func isLiteralStart(r rune) bool { return r >= '0' && r <= '9' || r == '-' }
