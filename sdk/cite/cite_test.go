package cite

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, id string
		kind   Kind
		asID   bool
		kst    *Kamerstuk
	}{
		{"ECLI:NL:HR:2024:123", "ECLI:NL:HR:2024:123", ECLI, true, nil},
		{" ecli:nl:hr:2024:123 ", "ECLI:NL:HR:2024:123", ECLI, true, nil},
		{"ECLI : NL : GHAMS : 2020 : 3025", "ECLI:NL:GHAMS:2020:3025", ECLI, true, nil},
		{"2025D05511", "2025D05511", TKDocument, true, nil},
		{"2025d05511", "2025D05511", TKDocument, true, nil},
		{"Stcrt-2025-18220", "stcrt-2025-18220", Publication, true, nil},
		{"STCRT-2025-18220", "stcrt-2025-18220", Publication, true, nil},
		{"Stcrt. 2025, 18220", "stcrt-2025-18220", Publication, false, nil},
		{"stcrt 2025 18220", "stcrt-2025-18220", Publication, false, nil},
		{"Staatscourant 2025, nr. 18220", "stcrt-2025-18220", Publication, false, nil},
		{"Gmb. 2024, 512034", "gmb-2024-512034", Publication, false, nil},
		{"Stb. 2024, 12", "stb-2024-12", Publication, false, nil},
		{"Trb. 2023, 7", "trb-2023-7", Publication, false, nil},
		{"Prb. 2024, 3301", "prb-2024-3301", Publication, false, nil},
		{"Wsb. 2024, 015", "wsb-2024-15", Publication, false, nil},
		{"Provinciaal blad 2024, 3301", "prb-2024-3301", Publication, false, nil},
		{"kst-36800-vii-14", "kst-36800-VII-14", Publication, true, &Kamerstuk{36800, "VII", 14}},
		{"KST-36800-VII-14", "kst-36800-VII-14", Publication, true, &Kamerstuk{36800, "VII", 14}},
		{"kst-33328-AI", "kst-33328-AI", Publication, true, nil},
		{"kst-36725-3", "kst-36725-3", Publication, true, &Kamerstuk{36725, "", 3}},
		{"Kamerstukken II 2025/26, 36800-VII, nr. 14", "kst-36800-VII-14", Publication, false, &Kamerstuk{36800, "VII", 14}},
		{"kamerstukken ii 2025/26 36800 vii nr 14", "kst-36800-VII-14", Publication, false, &Kamerstuk{36800, "VII", 14}},
		{"Kamerstukken I 2023/24, 33328, nr. AI", "kst-33328-AI", Publication, false, nil},
		{"Kamerstuk 36 800-VII, nr. 14", "kst-36800-VII-14", Publication, false, &Kamerstuk{36800, "VII", 14}},
		{"h-tk-20242025-12-3", "h-tk-20242025-12-3", Publication, true, nil},
		{"kv-tk-2024z12345", "kv-tk-2024Z12345", Publication, true, nil},
	} {
		got, ok := Parse(c.in)
		if !ok {
			t.Errorf("Parse(%q): not a citation", c.in)
			continue
		}
		if got.ID != c.id || got.Kind != c.kind || got.AsID != c.asID {
			t.Errorf("Parse(%q) = %q %s asID=%v, want %q %s asID=%v", c.in, got.ID, got.Kind, got.AsID, c.id, c.kind, c.asID)
		}
		if (got.Kamerstuk == nil) != (c.kst == nil) || got.Kamerstuk != nil && *got.Kamerstuk != *c.kst {
			t.Errorf("Parse(%q).Kamerstuk = %+v, want %+v", c.in, got.Kamerstuk, c.kst)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{
		"", "document:notubiz:gemeente:soest:12345", "3f7a1c2e-5b6d-4e8f-9a0b-1c2d3e4f5a6b",
		"2025Z01234", "36800", "ECLI:EU:C:2019:123", "ECLI:NL:HR", "foo-2024-1", "stcrt", "Stcrt. 2025",
		"oa-12345", strings.Repeat("kst-1-", 50),
	} {
		if c, ok := Parse(in); ok {
			t.Errorf("Parse(%q) = %+v, want no citation", in, c)
		}
	}
}

func TestElsewhere(t *testing.T) {
	c, _ := Parse("kst-36800-vii-14")
	if got, want := c.Elsewhere("kst-36800-vii-14").Error(), "kst-36800-vii-14 is an Officiële Bekendmakingen publication: call obk_get_document with id=kst-36800-VII-14"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c, _ = Parse("ecli:nl:hr:2024:123")
	if got := c.Elsewhere("ecli:nl:hr:2024:123").Error(); !strings.Contains(got, "rechtspraak_get_document with id=ECLI:NL:HR:2024:123") {
		t.Errorf("got %q", got)
	}
	if c.Platform() != "rechtspraak" {
		t.Errorf("Platform %q", c.Platform())
	}
}

func TestArg(t *testing.T) {
	if v, err := Arg("", "ecli", "ECLI:NL:HR:2024:1"); err != nil || v != "ECLI:NL:HR:2024:1" {
		t.Errorf("old name: %q %v", v, err)
	}
	if v, err := Arg("a", "ecli", " a "); err != nil || v != "a" {
		t.Errorf("both equal: %q %v", v, err)
	}
	if _, err := Arg("a", "ecli", "b"); err == nil || !strings.Contains(err.Error(), `"ecli"`) {
		t.Errorf("both different: %v", err)
	}
	if _, err := Arg(" ", "ecli", ""); err == nil {
		t.Error("neither: no error")
	}
}

// FuzzParse: whatever is read, Parse never panics, and a citation it
// returns is stable: its id parses again to itself, of the same kind.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"ECLI:NL:HR:2024:123", "Stcrt. 2025, 18220", "Kamerstukken II 2025/26, 36800-VII, nr. 14", "kst-33328-AI", "2025D05511", "Gmb. 2024, 512034", "h-tk-20242025-12-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := Parse(s)
		if !ok {
			return
		}
		if c.ID == "" || c.Platform() == "" {
			t.Fatalf("Parse(%q) = %+v: no id or platform", s, c)
		}
		again, ok := Parse(c.ID)
		if !ok || again.ID != c.ID || again.Kind != c.Kind {
			t.Fatalf("Parse(%q).ID %q parses to %+v (ok=%v)", s, c.ID, again, ok)
		}
		if c.Elsewhere(s) == nil {
			t.Fatal("no error")
		}
	})
}

func TestCounterparts(t *testing.T) {
	if c, ok := PublicationCounterpart("kst-36800-VII-14"); !ok || c != (Counterpart{"obk", "obk_get_document", "kst-36800-VII-14"}) {
		t.Errorf("publication: %+v %v", c, ok)
	}
	for _, no := range []string{"", "2025D05511", "Kamerstukken II 2025/26, 36800-VII, nr. 14", "ECLI:NL:HR:2024:1"} {
		if c, ok := PublicationCounterpart(no); ok {
			t.Errorf("PublicationCounterpart(%q) = %+v", no, c)
		}
	}
	c, ok := TKCounterpart("kst-36800-VII-14")
	if !ok || c != (Counterpart{"tk", "tk_get_document", "Kamerstukken 36800-VII, nr. 14"}) {
		t.Fatalf("tk: %+v %v", c, ok)
	}
	// The reference reads back as the same Kamerstuk, not as an id (which
	// tk_get_document would send to obk).
	if back, ok := Parse(c.ID); !ok || back.AsID || back.ID != "kst-36800-VII-14" {
		t.Errorf("Parse(%q) = %+v %v", c.ID, back, ok)
	}
	for _, no := range []string{"kst-33328-AI", "stcrt-2025-18220", "h-tk-20242025-12-3"} {
		if c, ok := TKCounterpart(no); ok {
			t.Errorf("TKCounterpart(%q) = %+v", no, c)
		}
	}
}
