package opentk

import (
	"html"
	"regexp"
	"strings"
)

// blockTags end a line of text; everything else is inline.
var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "tr": true, "li": true, "ul": true, "ol": true, "table": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "hr": true, "pre": true,
	"blockquote": true, "section": true, "article": true, "header": true, "footer": true, "main": true,
	"dt": true, "dd": true, "dl": true, "center": true, "title": true, "body": true, "html": true,
}

// skipTags are dropped with their content: nothing in them is text.
var skipTags = map[string]bool{"head": true, "script": true, "style": true, "svg": true, "noscript": true, "template": true}

// HTMLText turns an HTML rendition (pdftohtml, pandoc, xslt output, or a
// tkconv page) into plain text: block elements become line breaks, list
// items get "- ", cells are separated by " | ", entities are decoded and
// empty lines are dropped; line breaks in the source only count inside <pre>
// (catdoc output). Images (often inline data: URLs) vanish.
// It never fails: any byte string gives some text.
//
// The text is built in one pass, line by line, so a multi-MB rendition
// costs about one more copy of its text, not several of the page.
func HTMLText(s string) string {
	var t tidier
	skip := ""
	pre := 0 // inside <pre>, line breaks in the source are text
	text := func(x string) {
		if skip != "" {
			return
		}
		if pre == 0 {
			x = sourceSpace.Replace(x)
		}
		t.write(html.UnescapeString(x))
	}
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			text(s)
			break
		}
		text(s[:lt])
		s = s[lt:]
		if strings.HasPrefix(s, "<!--") {
			end := strings.Index(s, "-->")
			if end < 0 {
				break
			}
			s = s[end+3:]
			continue
		}
		gt := strings.IndexByte(s, '>')
		if gt < 0 || !isTagStart(s[1:]) {
			// A "<" in running text ("a < b"), not a tag.
			text("<")
			s = s[1:]
			continue
		}
		name, closing := tagName(s[1:gt])
		s = s[gt+1:]
		if name == "" { // <!DOCTYPE …>, <?xml …?>
			continue
		}
		if skip != "" {
			if closing && name == skip {
				skip = ""
			}
			continue
		}
		switch {
		case skipTags[name] && !closing:
			skip = name
		case name == "pre":
			if closing {
				pre = max(0, pre-1)
			} else {
				pre++
			}
			t.write("\n")
		case name == "li" && !closing:
			t.write("\n- ")
		case (name == "td" || name == "th") && !closing:
			t.write(" | ")
		case name == "hr":
			t.write("\n\n---\n\n")
		case blockTags[name]:
			t.write("\n")
		}
	}
	t.endLine()
	return t.out.String()
}

// sourceSpace folds the line breaks and tabs of HTML source to spaces.
var sourceSpace = strings.NewReplacer("\r", " ", "\n", " ", "\t", " ")

// tidier collects text into lines, collapsing spaces within a line and
// dropping empty lines: block tags nest, so the number of line breaks
// between two texts says nothing. Cell separators open a line ("| a"), and
// a line of only a separator is empty.
type tidier struct {
	out, line strings.Builder
}

func (t *tidier) write(s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.line.WriteString(s)
			return
		}
		t.line.WriteString(s[:i])
		t.endLine()
		s = s[i+1:]
	}
}

// endLine ends the current line; strings.Fields counts a no-break space
// as a space.
func (t *tidier) endLine() {
	line := strings.Join(strings.Fields(t.line.String()), " ")
	t.line.Reset()
	if line == "" || line == "|" {
		return
	}
	if t.out.Len() > 0 {
		t.out.WriteByte('\n')
	}
	t.out.WriteString(strings.TrimPrefix(line, "| "))
}

// isTagStart tells a tag ("p>", "/p>", "!DOCTYPE") from a literal "<".
func isTagStart(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if c == '/' && len(s) > 1 {
		c = s[1]
	} else if c == '!' || c == '?' {
		return true
	}
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tagName reads "p class=x" or "/p" or "br/" into ("p", closing); a
// declaration ("!DOCTYPE html") has no name.
func tagName(t string) (string, bool) {
	closing := strings.HasPrefix(t, "/")
	t = strings.TrimPrefix(t, "/")
	if strings.HasPrefix(t, "!") || strings.HasPrefix(t, "?") {
		return "", closing
	}
	end := 0
	for end < len(t) && (t[end] >= 'a' && t[end] <= 'z' || t[end] >= 'A' && t[end] <= 'Z' || t[end] >= '0' && t[end] <= '9') {
		end++
	}
	if end == 0 {
		return "", closing
	}
	return strings.ToLower(t[:end]), closing
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// htmlTitle is the text of the page's <title>, or "".
func htmlTitle(s string) string {
	if m := titleRE.FindStringSubmatch(s); m != nil {
		return strings.Join(strings.Fields(html.UnescapeString(m[1])), " ")
	}
	return ""
}

// mainPart is the content of a tkconv page's <main>, without the site's
// navigation and footer, or the whole page when it has none.
func mainPart(s string) string {
	_, main, _ := mainParts(s)
	return main
}

// mainParts cuts a page into what precedes the content of its <main>
// (from the first <main…> to the last </main>), that content, and what
// follows; a page without <main> is all content. It scans for the tags
// rather than matching a regular expression over a multi-MB page.
func mainParts(s string) (before, main, after string) {
	open := indexFold(s, "<main", 0)
	if open < 0 {
		return "", s, ""
	}
	gt := strings.IndexByte(s[open:], '>')
	if gt < 0 {
		return "", s, ""
	}
	start := open + gt + 1
	end := lastIndexFold(s[start:], "</main>")
	if end < 0 {
		return "", s, ""
	}
	end += start
	return s[:start], s[start:end], s[end:]
}

// indexFold is strings.Index for an ASCII tag starting with '<', matched
// without regard to case, from byte from on.
func indexFold(s, tag string, from int) int {
	for i := from; i <= len(s)-len(tag); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 || i+j > len(s)-len(tag) {
			return -1
		}
		i += j
		if strings.EqualFold(s[i:i+len(tag)], tag) {
			return i
		}
		i++
	}
	return -1
}

// lastIndexFold is strings.LastIndex for an ASCII tag starting with '<',
// matched without regard to case.
func lastIndexFold(s, tag string) int {
	for end := len(s); ; {
		i := strings.LastIndexByte(s[:end], '<')
		if i < 0 {
			return -1
		}
		if i+len(tag) <= len(s) && strings.EqualFold(s[i:i+len(tag)], tag) {
			return i
		}
		end = i
	}
}
