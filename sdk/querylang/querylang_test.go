package querylang

import (
	"strings"
	"testing"
)

// TestEnglish: English research queries are told from Dutch ones, and a
// mixed query or a bare name is left alone (no hint where the query may
// well be right).
func TestEnglish(t *testing.T) {
	for q, want := range map[string]bool{
		"nitrogen":                        true,
		"Nitrogen emissions":              true,
		"housing policy in Utrecht":       true,
		"the privatisation":               true,
		"immigration":                     true, // an English ending
		"stikstof":                        false,
		"woningbouw":                      false,
		"stikstof nitrogen":               true, // "stikstof" has no Dutch signal, "nitrogen" an English one
		"klimaat policy":                  false,
		"de begroting":                    false,
		"Bergen":                          false,
		"2025D05511":                      false,
		"ECLI:NL:HR:2024:123":             false,
		"parlementaire enquête":           false,
		"motie over stikstof":             false,
		"vergunning":                      false,
		"informatie":                      false,
		"handhaving en toezicht op water": false,
		"transport":                       false, // Dutch too
		"planning water":                  false,
		"budget":                          false,
	} {
		if got := English(q); got != want {
			t.Errorf("English(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestHint(t *testing.T) {
	if h := Hint("stikstof"); h != "" {
		t.Errorf("a Dutch query got a hint: %q", h)
	}
	for q, want := range map[string]string{
		"nitrogen":                 `query="stikstof"`,
		"housing for the elderly":  `query="woningbouw ouderen"`,
		"the quantification ratio": `query="stikstof"`, // unknown words: the example
	} {
		h := Hint(q)
		if !strings.Contains(h, want) || !strings.Contains(h, "in Dutch") || !strings.Contains(h, "Nederlandstalig") {
			t.Errorf("Hint(%q) = %q, want it to contain %s", q, h, want)
		}
	}
}
