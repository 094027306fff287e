package cite

import "testing"

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Doc
		kind WorkKind
		text string
	}{
		{"ecli", Doc{Keys: map[string]string{"ecli": "ECLI:NL:RBDHA:2024:19901"}, Organization: "Rechtbank Den Haag", Date: "2024-12-19"},
			WorkCase, "Rechtbank Den Haag 19 december 2024, ECLI:NL:RBDHA:2024:19901"},
		{"ecli without court", Doc{Keys: map[string]string{"ecli": "ECLI:NL:HR:2023:1"}, Date: "2023-01-06T00:00:00Z"},
			WorkCase, "Hoge Raad 6 januari 2023, ECLI:NL:HR:2023:1"},
		{"ecli by id alone", Doc{ID: "ecli:nl:rvs:2022:5", Organization: "Raad van State"},
			WorkCase, "Raad van State, ECLI:NL:RVS:2022:5"},
		{"kamerstuk", Doc{Keys: map[string]string{"publication_id": "kst-36800-VII-14", "kamerstuk": "36800-VII-14"}, Date: "2025-10-01"},
			WorkParliamentary, "Kamerstukken II 2025/26, 36800-VII, nr. 14"},
		{"kamerstuk before prinsjesdag", Doc{Keys: map[string]string{"kamerstuk": "36800-VII-14"}, Date: "2025-09-15"},
			WorkParliamentary, "Kamerstukken II 2024/25, 36800-VII, nr. 14"},
		{"kamerstuk on prinsjesdag", Doc{Keys: map[string]string{"kamerstuk": "36800-3"}, Date: "2025-09-16"},
			WorkParliamentary, "Kamerstukken II 2025/26, 36800, nr. 3"},
		{"eerste kamer", Doc{Keys: map[string]string{"publication_id": "kst-33328-AI"}, Date: "2024-02-01"},
			WorkParliamentary, "Kamerstukken I 2023/24, 33328, AI"},
		{"kamerstuk and tk number", Doc{Keys: map[string]string{"tk_document_number": "2025D05511", "kamerstuk": "36725-3"}},
			WorkParliamentary, "Kamerstukken II, 36725, nr. 3"},
		{"handelingen", Doc{Keys: map[string]string{"publication_id": "h-tk-20242025-12-3"}},
			WorkParliamentary, "Handelingen II 2024/25, nr. 12, item 3"},
		{"staatscourant", Doc{Keys: map[string]string{"publication_id": "stcrt-2025-18220"}, Title: "Regeling"},
			WorkOfficialJournal, "Stcrt. 2025, 18220"},
		{"gemeenteblad", Doc{Keys: map[string]string{"publication_id": "gmb-2024-512034"}},
			WorkOfficialJournal, "Gmb. 2024, 512034"},
		{"tk document", Doc{Keys: map[string]string{"tk_document_number": "2025D05511"}, Title: "Brief over stikstof", Date: "2025-03-12"},
			WorkDocument, "Tweede Kamer, ‘Brief over stikstof’, 12 maart 2025, 2025D05511"},
		{"council", Doc{Keys: map[string]string{"source_url": "https://example.org/a.pdf"}, Organization: "Gemeente Soest", Title: " Raadsvoorstel\n woningbouw ", Date: "2025-03-12", URL: "https://example.org/a.pdf"},
			WorkDocument, "Gemeente Soest, ‘Raadsvoorstel woningbouw’, 12 maart 2025, https://example.org/a.pdf"},
		{"nothing but a title", Doc{Title: "Notulen"}, WorkDocument, "‘Notulen’"},
	} {
		w := Describe(c.d)
		if w.Kind != c.kind || w.Text != c.text {
			t.Errorf("%s: %s %q, want %s %q", c.name, w.Kind, w.Text, c.kind, c.text)
		}
	}
}

func TestDutchDate(t *testing.T) {
	for in, want := range map[string]string{"2024-12-19": "19 december 2024", "2024-01-01T10:00:00Z": "1 januari 2024", "2024-13-01": "", "": "", "gisteren": ""} {
		if got := DutchDate(in); got != want {
			t.Errorf("DutchDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDescribe: whatever a result says, Describe never panics and always
// writes some citation for a result with a title.
func FuzzDescribe(f *testing.F) {
	f.Add("kst-36800-VII-14", "", "2025-10-01", "t")
	f.Add("", "ECLI:NL:HR:2024:1", "x", "t")
	f.Fuzz(func(t *testing.T, pub, ecli, date, title string) {
		w := Describe(Doc{Keys: map[string]string{"publication_id": pub, "ecli": ecli}, Date: date, Title: title + "x"})
		if w.Text == "" {
			t.Fatalf("no citation for %q %q %q", pub, ecli, date)
		}
	})
}
