package connector_test

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestSearchProfileKeys: a profile declares only known key kinds, each
// once; the error names the entry.
func TestSearchProfileKeys(t *testing.T) {
	for _, c := range []struct {
		keys []string
		want string
	}{
		{nil, ""},
		{[]string{"tk_document_number", "kamerstuk"}, ""},
		{[]string{"doi"}, `search_profile.keys[0] "doi": want one of source_url, tk_document_number, kamerstuk, ecli, publication_id`},
		{[]string{"ecli", "ecli"}, `search_profile.keys[1] "ecli": declared twice`},
	} {
		m := quotaManifest(connector.Service{Name: "api", Units: 1, Per: connector.Duration(time.Second)})
		m.SearchProfile = &connector.SearchProfile{Tool: "search", MaxLimit: 10, Keys: c.keys}
		err := m.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.keys, err, c.want)
		}
	}
}

// TestKeyError: an item's key is used only when its kind is declared and
// its value is a bounded non-empty string.
func TestKeyError(t *testing.T) {
	decl := []string{connector.KeyECLI}
	if err := connector.KeyError(decl, connector.KeyECLI, "ECLI:NL:HR:2024:1"); err != nil {
		t.Error(err)
	}
	for _, c := range []struct{ kind, v, want string }{
		{connector.KeySourceURL, "https://x.nl/a", `key "source_url" is not among the kinds the manifest declares (ecli)`},
		{connector.KeyECLI, " ", `key "ecli": empty`},
		{connector.KeyECLI, strings.Repeat("E", 1001), `key "ecli": 1001 bytes, at most 1000`},
	} {
		if err := connector.KeyError(decl, c.kind, c.v); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.kind, err, c.want)
		}
	}
}
