package sdk

import (
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestKeysSpellOneDocumentOneWay: the forms in which platforms give one
// document's keys come out the same, and what is not a key of its kind
// comes out empty rather than guessed.
func TestKeysSpellOneDocumentOneWay(t *testing.T) {
	for _, c := range []struct {
		f        func(string) string
		in, want string
	}{
		{SourceURLKey, "https://api1.ibabs.eu/publicdownload.aspx?site=rotterdam&id=100", "https://api1.ibabs.eu/publicdownload.aspx?id=100&site=rotterdam"},
		{SourceURLKey, "http://API1.iBabs.eu:80/publicdownload.aspx?id=100&site=rotterdam#p3", "https://api1.ibabs.eu/publicdownload.aspx?id=100&site=rotterdam"},
		{SourceURLKey, "https://www.Notubiz.nl/doc/Soest/12345/", "https://notubiz.nl/doc/Soest/12345"},
		{SourceURLKey, "https://notubiz.nl:8443/doc/a%20b", "https://notubiz.nl:8443/doc/a%20b"},
		{SourceURLKey, "https://...", ""},
		{SourceURLKey, "https://api1.ibabs.eu/publicdownload.aspx?site=rotterdam&id=...", ""},
		{SourceURLKey, "/api/documents/12", ""},
		{SourceURLKey, "ftp://example.org/x", ""},
		{SourceURLKey, "", ""},
		{TKDocumentKey, " 2025d05511 ", "2025D05511"},
		{TKDocumentKey, "2025Z12846x", ""},
		{KamerstukKey, "36800-vii-14", "36800-VII-14"},
		{KamerstukKey, "kst-36800-VII-14", "36800-VII-14"},
		{KamerstukKey, "Kamerstukken II 2025/26, 36800-VII, nr. 14", "36800-VII-14"},
		{KamerstukKey, "kst-33328-AI", ""},
		{KamerstukKey, "stcrt-2025-18220", ""},
		{ECLIKey, "ecli:nl:hr:2024:123", "ECLI:NL:HR:2024:123"},
		{ECLIKey, "ECLI:EU:C:2020:1", ""},
		{PublicationKey, "Stcrt-2025-18220", "stcrt-2025-18220"},
		{PublicationKey, "Stcrt. 2025, 18220", ""}, // a reference, not the id the platform gives
	} {
		if got := c.f(c.in); got != c.want {
			t.Errorf("%q -> %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDocKeysMap(t *testing.T) {
	if m := (DocKeys{SourceURL: "https://..."}).Map(); m != nil {
		t.Errorf("a placeholder gave keys %v", m)
	}
	m := DocKeys{Publication: "kst-36800-vii-14", Kamerstuk: "kst-36800-vii-14"}.Map()
	if m[connector.KeyPublication] != "kst-36800-VII-14" || m[connector.KeyKamerstuk] != "36800-VII-14" || len(m) != 2 {
		t.Errorf("%v", m)
	}
	if got := KamerstukOf(36800, "vii", 14); got != "36800-VII-14" {
		t.Errorf("KamerstukOf: %q", got)
	}
	if got := KamerstukOf(36800, "", 0); got != "" {
		t.Errorf("KamerstukOf without a number: %q", got)
	}
}

// FuzzSourceURLKey: a key is its own key (normalising twice changes
// nothing), so that a platform that hands out an already normal address
// meets one that does not; anything is read without a panic.
func FuzzSourceURLKey(f *testing.F) {
	for _, s := range []string{"https://api1.ibabs.eu/publicdownload.aspx?site=soest&id=7", "http://WWW.Example.org:80/a/b/?x=1&x=2#f",
		"https://x.nl/a%2Fb", "https://x.nl/?q=%zz", "https://www.www.x.nl/", "https://x.nl/a b", "https://[::1]:8080/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := SourceURLKey(s)
		if k == "" {
			return
		}
		if again := SourceURLKey(k); again != k {
			t.Errorf("%q -> %q -> %q", s, k, again)
		}
	})
}
