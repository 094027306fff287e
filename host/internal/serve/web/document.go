package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// documentData is the document view's template data.
type documentData struct {
	Platform *Platform
	ID       string
	Doc      *connector.Document
	Blocks   []block
	Kind     string // as a section's: ok, slow, queued, busy, down, error, invalid
	Message  string
	NotFound bool // the platform does not know the id (or refused it)
	Position int
	ETA      int
	Back     string
	Self     url.Values
}

// block is one paragraph, heading or list of a document's text.
type block struct {
	Heading int // 0 = paragraph or list, else the heading level (2 or 3)
	Text    string
	Items   []listItem // a list, when set
}

// listItem is one line of a list: its depth (0 = top), its words, and,
// when the line ended in a record's id ("document: Motie X (document:…)"),
// that id, which the page links instead of showing it.
type listItem struct {
	Depth int
	Label string // the line's leading "type:" label in the page's words, if any
	Text  string
	ID    string
}

var (
	listLine  = regexp.MustCompile(`^(\s*)[-*+]\s+(.*)$`)
	trailID   = regexp.MustCompile(`^(.*\S)\s+\(([^\s()]*:[^\s()]+|[0-9]{5,})\)$`)
	typeLabel = regexp.MustCompile(`^([\p{L}_ ]{2,30}):\s+(.+)$`)
)

// blocks splits markdown-ish text into headings, lists and paragraphs;
// the text is shown as text, never as HTML. Emphasis markers go; a list
// line's "- " becomes a list item, and a trailing record id becomes a
// link (documents list the records they mention by id, which says
// nothing to a reader). A line's leading "type:" label is named in the
// platform's words when pl labels that type.
func blocks(lang string, pl *Platform, text string) []block {
	var out []block
	var para []string
	var items []listItem
	flush := func() {
		if len(para) > 0 {
			out = append(out, block{Text: strings.Join(para, "\n")})
			para = nil
		}
		if len(items) > 0 {
			out = append(out, block{Items: items})
			items = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.NewReplacer("**", "", "__", "").Replace(line)
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "#"):
			flush()
			level := len(t) - len(strings.TrimLeft(t, "#"))
			h := 2
			if level >= 3 {
				h = 3
			}
			out = append(out, block{Heading: h, Text: strings.TrimSpace(strings.TrimLeft(t, "#"))})
		case listLine.MatchString(line):
			if len(para) > 0 {
				out = append(out, block{Text: strings.Join(para, "\n")})
				para = nil
			}
			m := listLine.FindStringSubmatch(line)
			it := listItem{Depth: min(len(strings.ReplaceAll(m[1], "\t", "  "))/2, 4), Text: strings.TrimSpace(m[2])}
			if id := trailID.FindStringSubmatch(it.Text); id != nil {
				it.Text, it.ID = id[1], id[2]
			}
			if lb := typeLabel.FindStringSubmatch(it.Text); lb != nil && pl != nil {
				if _, known := pl.Types.Of(lb[1]); known {
					it.Label, it.Text = pl.typeWord(lang, lb[1], true), lb[2]
				}
			}
			items = append(items, it)
		default:
			if len(items) > 0 {
				out = append(out, block{Items: items})
				items = nil
			}
			para = append(para, strings.TrimRight(line, " \t"))
		}
	}
	flush()
	return out
}

func (s *Server) handleDocument(w http.ResponseWriter, r *http.Request) {
	pg := s.newPage(w, r, "title.document")
	q := r.URL.Query()
	p := s.byID[q.Get("p")]
	id := strings.TrimSpace(q.Get("id"))
	page := 1
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100000 {
			pg.Data = &documentData{Kind: kindInvalid, Message: pg.T("err.page"), Back: q.Get("terug")}
			s.render(w, "document", "layout", http.StatusBadRequest, pg)
			return
		}
		page = n
	}
	if p == nil || p.DocumentTool == "" || id == "" || len(id) > 300 {
		pg.Data = &documentData{Kind: kindInvalid, Message: pg.T("err.document"), Back: q.Get("terug")}
		s.render(w, "document", "layout", http.StatusBadRequest, pg)
		return
	}
	d := &documentData{Platform: p, ID: id, Back: safeBack(q.Get("terug")), Self: q}
	args := map[string]any{p.DocumentArg: id}
	if page > 1 {
		args["page"] = page
	}
	if c := q.Get("soort"); c != "" && contains(p.DocumentCategories, c) {
		args["category"] = c
	}
	raw, _ := json.Marshal(args)
	pc, err := s.calls.start(p.DocumentTool, raw)
	status := http.StatusOK
	switch {
	case errors.Is(err, errBusy):
		d.Kind = kindBusy
		status = http.StatusServiceUnavailable
	case !pc.wait(r.Context(), s.o.Wait):
		d.Kind = kindSlow
		if pos, eta := pc.queued(); pos > 0 {
			d.Kind, d.Position, d.ETA = kindQueued, pos, int(eta.Seconds()+0.5)
		}
	case pc.ans.Err != nil:
		d.Message = pc.ans.Err.Error()
		d.Kind = classify(d.Message)
		status = http.StatusBadGateway
		if d.Kind == kindInvalid || strings.Contains(d.Message, "no entity") || strings.Contains(d.Message, "not found") {
			status, d.NotFound = http.StatusNotFound, true
		}
	default:
		var doc connector.Document
		if err := json.Unmarshal(pc.ans.JSON(), &doc); err != nil || doc.Pages < 1 {
			d.Kind, d.Message = kindError, p.Title+": the answer is not a document"
			status = http.StatusBadGateway
			break
		}
		d.Kind, d.Doc, d.Blocks = kindOK, &doc, blocks(pg.Lang, p, doc.Text)
		pg.Title = docTitle(pg, p, &doc)
	}
	pg.Data = d
	s.render(w, "document", "layout", status, pg)
}

// docTitle is a document's title, or, when the platform gave none, its
// type (in platform pl's words) and date in words rather than its id.
func docTitle(p *page, pl *Platform, d *connector.Document) string {
	if t := strings.TrimSpace(d.Title); t != "" {
		return t
	}
	t := p.T("title.document")
	if d.Type != "" {
		t = pl.typeWord(p.Lang, d.Type, true)
	}
	if d.Date != "" {
		t += ", " + formatDate(p.Lang, d.Date)
	}
	return t
}

// safeBack keeps a back link on this site.
func safeBack(v string) string {
	if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && !strings.Contains(v, "\\") {
		return v
	}
	return ""
}
