package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
)

// documentData is the document view's template data.
type documentData struct {
	Platform *Platform
	ID       string
	Doc      *sdk.Document
	Blocks   []block
	Kind     string // as a section's: ok, slow, queued, busy, down, error, invalid
	Message  string
	Position int
	ETA      int
	Back     string
	Self     url.Values
}

// block is one paragraph or heading of a document's text.
type block struct {
	Heading int // 0 = paragraph, else the heading level (2 or 3)
	Text    string
}

// blocks splits markdown-ish text into headings and paragraphs; the text
// is shown as text, never as HTML.
func blocks(text string) []block {
	var out []block
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, block{Text: strings.Join(para, "\n")})
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
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
		default:
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
	case pc.res.IsError:
		d.Message = resultText(pc.res)
		d.Kind = classify(d.Message)
		status = http.StatusBadGateway
		if d.Kind == kindInvalid || strings.Contains(d.Message, "no entity") || strings.Contains(d.Message, "not found") {
			status = http.StatusNotFound
		}
	default:
		var doc sdk.Document
		if err := json.Unmarshal(payload(pc.res, resultText(pc.res)), &doc); err != nil || doc.Pages < 1 {
			d.Kind, d.Message = kindError, p.Title+": the answer is not a document"
			status = http.StatusBadGateway
			break
		}
		d.Kind, d.Doc, d.Blocks = kindOK, &doc, blocks(doc.Text)
		pg.Title = doc.Title
	}
	pg.Data = d
	s.render(w, "document", "layout", status, pg)
}

// safeBack keeps a back link on this site.
func safeBack(v string) string {
	if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && !strings.Contains(v, "\\") {
		return v
	}
	return ""
}
