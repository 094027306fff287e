package platformsim

import (
	"fmt"
	"strings"
)

// ftsNode matches a document and says how well.
type ftsNode func(d doc) int

// parseFTS reads OpenTK's query syntax (converted by tkconv to SQLite
// FTS5): words ANDed, "phrases", AND / OR / NOT, NEAR(a b), prefix*,
// parentheses. A syntax error reads as FTS5's own message. The returned
// function gives a row's score (0 = no match) and the positive terms, for
// snippets.
func parseFTS(q string) (func(d doc) (int, []term), error) {
	toks, err := ftsTokens(q)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("syntax error near \"\"")
	}
	p := &ftsParser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, fmt.Errorf("syntax error near %q", p.toks[p.pos])
	}
	terms := p.terms
	return func(d doc) (int, []term) { return n(d), terms }, nil
}

type ftsParser struct {
	toks  []string
	pos   int
	terms []term
}

func (p *ftsParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *ftsParser) or() (ftsNode, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "OR" {
		p.pos++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		a, b := l, r
		l = func(d doc) int { return a(d) + b(d) }
	}
	return l, nil
}

func (p *ftsParser) and() (ftsNode, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t == "AND" {
			p.pos++
		} else if t == "" || t == "OR" || t == ")" || t == "NOT" {
			return l, nil
		}
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		a, b := l, r
		l = func(d doc) int {
			x := a(d)
			if x == 0 {
				return 0
			}
			y := b(d)
			if y == 0 {
				return 0
			}
			return x + y
		}
	}
}

func (p *ftsParser) not() (ftsNode, error) {
	l, err := p.primary(true)
	if err != nil {
		return nil, err
	}
	for p.peek() == "NOT" {
		p.pos++
		r, err := p.primary(false)
		if err != nil {
			return nil, err
		}
		a, b := l, r
		l = func(d doc) int {
			if b(d) > 0 {
				return 0
			}
			return a(d)
		}
	}
	return l, nil
}

func (p *ftsParser) primary(positive bool) (ftsNode, error) {
	t := p.peek()
	switch {
	case t == "" || t == "AND" || t == "OR" || t == "NOT" || t == ")":
		return nil, fmt.Errorf("syntax error near %q", t)
	case t == "(":
		p.pos++
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("syntax error near %q", p.peek())
		}
		p.pos++
		return n, nil
	case t == "NEAR(":
		p.pos++
		var ts []term
		for p.peek() != ")" {
			if p.peek() == "" {
				return nil, fmt.Errorf("syntax error near \"NEAR\"")
			}
			ts = append(ts, queryTerms(strings.TrimSuffix(p.toks[p.pos], "*"))...)
			p.pos++
		}
		p.pos++
		if positive {
			p.terms = append(p.terms, ts...)
		}
		return func(d doc) int { return d.score(ts, prefixMatch) }, nil
	}
	p.pos++
	ts := queryTerms(strings.TrimSuffix(t, "*"))
	if len(ts) == 0 {
		return nil, fmt.Errorf("syntax error near %q", t)
	}
	if strings.HasPrefix(t, `"`) || len(ts) > 1 {
		// A phrase (or an auto-quoted word with - or .): consecutive words.
		var ws []string
		for _, x := range ts {
			ws = append(ws, x.words...)
		}
		ts = []term{{words: ws}}
	}
	if positive {
		p.terms = append(p.terms, ts...)
	}
	return func(d doc) int { return d.score(ts, prefixMatch) }, nil
}

// ftsTokens splits a query: "phrases" (quotes kept), ( ), NEAR( and words.
func ftsTokens(q string) ([]string, error) {
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
				j++
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated string")
			}
			out = append(out, string(rs[i:j+1]))
			i = j + 1
		case r == '(' || r == ')':
			out = append(out, string(r))
			i++
		default:
			j := i
			for j < len(rs) && !strings.ContainsRune(" \t\n\"()", rs[j]) {
				j++
			}
			w := string(rs[i:j])
			if w == "NEAR" && j < len(rs) && rs[j] == '(' {
				out = append(out, "NEAR(")
				j++
			} else {
				out = append(out, w)
			}
			i = j
		}
	}
	return out, nil
}
