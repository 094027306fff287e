package connector

import (
	"strings"
	"testing"
)

// The Dutch page shows TitleNL where a connector gives one, and the one
// title otherwise; an oversized title_nl is refused by name.
func TestTitleIn(t *testing.T) {
	m := Manifest{Title: "Example (statistics)", TitleNL: "Voorbeeld (statistieken)"}
	if got := m.TitleIn("nl"); got != "Voorbeeld (statistieken)" {
		t.Errorf("nl: %q", got)
	}
	if got := m.TitleIn("en"); got != "Example (statistics)" {
		t.Errorf("en: %q", got)
	}
	m.TitleNL = ""
	if got := m.TitleIn("nl"); got != "Example (statistics)" {
		t.Errorf("nl without title_nl: %q", got)
	}
	m.TitleNL = strings.Repeat("x", 201)
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "title_nl") {
		t.Errorf("oversized title_nl: %v", err)
	}
}
