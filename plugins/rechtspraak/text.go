package rechtspraak

import "strings"

// textWriter collects text, collapsing runs of whitespace and turning
// block boundaries into line breaks, never more than one blank line.
type textWriter struct {
	b      strings.Builder
	breaks int  // line breaks owed before the next text
	sp     bool // a space owed before the next text
	glued  bool // the next block continues the current line (after "1. ")
}

func (w *textWriter) block(n int) {
	if w.b.Len() == 0 || w.glued {
		return
	}
	if n > w.breaks {
		w.breaks = n
	}
	w.sp = false
}

// glue keeps the next block on the current line: a number and its text.
func (w *textWriter) glue() { w.glued = true }

func (w *textWriter) space() {
	if w.b.Len() > 0 && w.breaks == 0 {
		w.sp = true
	}
}

func (w *textWriter) trimSpace() { w.sp = false }

func (w *textWriter) text(s string) {
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' {
			w.space()
			continue
		}
		if w.breaks > 0 {
			w.b.WriteString(strings.Repeat("\n", w.breaks))
			w.breaks, w.sp = 0, false
		} else if w.sp {
			w.b.WriteByte(' ')
			w.sp = false
		}
		w.glued = false
		w.b.WriteRune(r)
	}
}

func (w *textWriter) String() string { return strings.TrimSpace(w.b.String()) }
