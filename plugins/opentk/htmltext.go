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
func HTMLText(s string) string {
	var b strings.Builder
	skip := ""
	pre := 0 // inside <pre>, line breaks in the source are text
	text := func(t string) {
		if skip != "" {
			return
		}
		if pre == 0 {
			t = strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(t)
		}
		b.WriteString(t)
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
			b.WriteString("\n")
		case name == "li" && !closing:
			b.WriteString("\n- ")
		case (name == "td" || name == "th") && !closing:
			b.WriteString(" | ")
		case name == "hr":
			b.WriteString("\n\n---\n\n")
		case blockTags[name]:
			b.WriteString("\n")
		}
	}
	return tidy(html.UnescapeString(b.String()))
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

// tidy collapses spaces within lines and drops empty lines: block tags
// nest, so the number of line breaks between two texts says nothing.
func tidy(s string) string {
	s = strings.ReplaceAll(s, "\u00a0", " ")
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" || line == "|" {
			continue
		}
		out = append(out, strings.TrimPrefix(line, "| "))
	}
	return strings.Join(out, "\n")
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	mainRE  = regexp.MustCompile(`(?is)<main[^>]*>(.*)</main>`)
)

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
	if m := mainRE.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}
