package sdk

import "strings"

// TextWriter collects text extracted from markup (XML, HTML), collapsing
// runs of whitespace and turning block boundaries into line breaks, never
// more than one blank line. Its zero value is ready to use.
type TextWriter struct {
	b      strings.Builder
	breaks int    // line breaks owed before the next text
	sp     bool   // a space owed before the next text
	glued  bool   // the next block continues the current line (after "1. ")
	cells  []bool // per open table row: a cell was written
}

// BeginRow starts a table row on a line of its own.
func (w *TextWriter) BeginRow() {
	w.Block(1)
	w.cells = append(w.cells, false)
}

// Cell starts a table cell: cells of one row are separated by " | ".
// Outside a row it does nothing.
func (w *TextWriter) Cell() {
	n := len(w.cells)
	if n == 0 {
		return
	}
	if w.cells[n-1] {
		w.Text(" | ")
	}
	w.cells[n-1] = true
}

// EndRow ends the current table row.
func (w *TextWriter) EndRow() {
	if n := len(w.cells); n > 0 {
		w.cells = w.cells[:n-1]
	}
	w.Block(1)
}

// Block ends the current block: the next text starts after n line breaks
// (1 for a new line, 2 for a new paragraph).
func (w *TextWriter) Block(n int) {
	if w.b.Len() == 0 || w.glued {
		return
	}
	if n > w.breaks {
		w.breaks = n
	}
	w.sp = false
}

// Glue keeps the next block on the current line: a number and its text.
func (w *TextWriter) Glue() { w.glued = true }

// Space owes a space before the next text (within a line).
func (w *TextWriter) Space() {
	if w.b.Len() > 0 && w.breaks == 0 {
		w.sp = true
	}
}

// TrimSpace drops an owed space.
func (w *TextWriter) TrimSpace() { w.sp = false }

// Text writes s, its whitespace collapsed.
func (w *TextWriter) Text(s string) {
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u00a0' {
			w.Space()
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

// String is the text so far, without leading or trailing space.
func (w *TextWriter) String() string { return strings.TrimSpace(w.b.String()) }
