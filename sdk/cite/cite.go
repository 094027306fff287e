package cite

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is what a citation names.
type Kind string

// The kinds of document a citation can name.
const (
	// ECLI is a court decision by its European Case Law Identifier.
	ECLI Kind = "ecli"
	// Publication is a publication of Officiële Bekendmakingen: a
	// Staatscourant, Staatsblad, Gemeenteblad, Kamerstuk, Handelingen…
	Publication Kind = "publication"
	// TKDocument is a Tweede Kamer document by its number (2025D05511).
	TKDocument Kind = "tk_document"
)

// Citation is a document as cited, in the spelling its platform uses.
type Citation struct {
	Kind Kind
	// ID is what to pass the platform's document tool: the ECLI in upper
	// case, the publication id with its family in lower case and the rest
	// in upper case (kst-36800-VII-14, as the platform spells it), the
	// document number in upper case.
	ID string
	// AsID says the citation was written as the platform's id
	// (kst-36800-VII-14) rather than as a reference ("Kamerstukken II
	// 2025/26, 36800-VII, nr. 14").
	AsID bool
	// Kamerstuk is set for a Kamerstuk whose number is a number: the
	// Tweede Kamer finds it by dossier and number too.
	Kamerstuk *Kamerstuk
}

// Kamerstuk is a parliamentary paper by its dossier, the dossier's
// addition (VII for a budget chapter; "" when none) and its number in the
// dossier.
type Kamerstuk struct {
	Dossier    int
	Toevoeging string
	Number     int
}

// Platform is the id of the connector that reads the cited document:
// rechtspraak, obk or tk.
func (c Citation) Platform() string {
	switch c.Kind {
	case ECLI:
		return "rechtspraak"
	case Publication:
		return "obk"
	case TKDocument:
		return "tk"
	}
	return ""
}

// Elsewhere is the tool error for a citation given to the document tool
// of another platform: what the document is, and the call that reads it.
// given is the argument as passed.
func (c Citation) Elsewhere(given string) error {
	given = clip(strings.Join(strings.Fields(given), " "), 80)
	switch c.Kind {
	case ECLI:
		return fmt.Errorf("%s is a court decision (ECLI): call rechtspraak_get_document with id=%s", given, c.ID)
	case Publication:
		return fmt.Errorf("%s is an Officiële Bekendmakingen publication: call obk_get_document with id=%s", given, c.ID)
	case TKDocument:
		return fmt.Errorf("%s is a Tweede Kamer document number: call tk_get_document (or opentk_get_document) with id=%s", given, c.ID)
	}
	return fmt.Errorf("%s is not a citation this tool reads", given)
}

// Counterpart is the same document on another platform, as a result
// names it (extra.<platform>.counterparts): the platform, the document
// tool that reads it there and the id to pass. Where the data links
// them, a Tweede Kamer document names its Officiële Bekendmakingen
// publication and back, so an assistant neither searches again nor cites
// one document as two sources.
type Counterpart struct {
	Platform string `json:"platform"`
	Tool     string `json:"tool"`
	ID       string `json:"id"`
}

// PublicationCounterpart is the Officiële Bekendmakingen publication of
// an external identifier as the Tweede Kamer and OpenTK give it
// (kst-36800-VII-14, h-tk-20242025-12-3), or false when it names none.
func PublicationCounterpart(extID string) (Counterpart, bool) {
	c, ok := Parse(extID)
	if !ok || c.Kind != Publication || !c.AsID {
		return Counterpart{}, false
	}
	return Counterpart{Platform: "obk", Tool: "obk_get_document", ID: c.ID}, true
}

// TKCounterpart is the Tweede Kamer's document for a publication id of
// Officiële Bekendmakingen: a Kamerstuk with a numbered dossier item, as
// a reference tk_get_document reads ("Kamerstukken 36800-VII, nr. 14"),
// or false for any other publication.
func TKCounterpart(pubID string) (Counterpart, bool) {
	c, ok := Parse(pubID)
	if !ok || c.Kamerstuk == nil {
		return Counterpart{}, false
	}
	return Counterpart{Platform: "tk", Tool: "tk_get_document", ID: c.Kamerstuk.Reference()}, true
}

// Reference is the Kamerstuk as people cite it without chamber and
// session year: "Kamerstukken 36800-VII, nr. 14". [Parse] reads it back.
func (k Kamerstuk) Reference() string {
	d := strconv.Itoa(k.Dossier)
	if k.Toevoeging != "" {
		d += "-" + k.Toevoeging
	}
	return "Kamerstukken " + d + ", nr. " + strconv.Itoa(k.Number)
}

// maxLen bounds what is read: the longest citation form, a Kamerstuk
// reference, is some 60 bytes.
const maxLen = 200

var (
	// ecliForm is a Dutch ECLI: only Rechtspraak's are held here (an
	// ECLI:EU: judgement is no platform's).
	ecliForm = regexp.MustCompile(`(?i)^ecli\s*:\s*(nl)\s*:\s*([a-z0-9]{1,7})\s*:\s*([0-9]{4})\s*:\s*([a-z0-9.]{1,25})$`)
	tkForm   = regexp.MustCompile(`(?i)^([0-9]{4})\s*d\s*([0-9]{3,6})$`)
	// idForm is a publication id; the families are those of the platform
	// (upstreams.md §5), so that another platform's id with a dash is
	// not taken for one.
	idForm = regexp.MustCompile(`(?i)^(kst|blg|h-tk|h-ek|h-vv|ah-tk|ah-ek|kv-tk|kv-ek|nds|nds-tk|nds-ek|ag-tk|ag-ek|stcrt|stb|trb|gmb|prb|wsb|bgr)\s*-\s*([0-9a-z][0-9a-z.]*(?:-[0-9a-z.]+)*)$`)
	// kstID splits a Kamerstuk id: dossier, addition, number.
	kstID = regexp.MustCompile(`^([0-9]{1,6})(?:-([0-9A-Z]{1,10}))?-([0-9]{1,5})$`)
	// journalForm is a journal reference: "Stcrt. 2025, 18220".
	journalForm = regexp.MustCompile(`(?i)^(stcrt|stb|trb|gmb|prb|wsb|bgr|staatscourant|staatsblad|tractatenblad|gemeenteblad|provinciaal blad|waterschapsblad)\s*\.?\s*([0-9]{4})\s*,?\s*(?:nr\.?\s*|no\.?\s*)?([0-9]{1,7})$`)
	// kamerstukForm is a Kamerstuk reference: "Kamerstukken II 2025/26,
	// 36800-VII, nr. 14"; the chamber and session year are optional, the
	// number's "nr." is not (without it "36800 14" could be anything).
	kamerstukForm = regexp.MustCompile(`(?i)^(?:kamerstuk(?:ken)?\s*(?:(?:i|ii)\s+)?(?:[0-9]{4}\s*[/-]\s*[0-9]{2,4}\s*,?\s*)?)?([0-9]{1,2}\s?[0-9]{3})(?:\s*[- ]\s*([0-9a-z]{1,10}))?\s*,?\s*(?:nr|no)\.?\s*([0-9]{1,5}|[a-z]{1,3})$`)
)

var journals = map[string]string{
	"staatscourant": "stcrt", "staatsblad": "stb", "tractatenblad": "trb", "gemeenteblad": "gmb",
	"provinciaal blad": "prb", "waterschapsblad": "wsb",
}

// Parse reads a citation in any case and spacing; ok is false when s is
// none of the forms (it may still be a platform's own id).
func Parse(s string) (c Citation, ok bool) {
	if len(s) > maxLen {
		return Citation{}, false
	}
	s = strings.Join(strings.Fields(s), " ")
	if m := ecliForm.FindStringSubmatch(s); m != nil {
		return Citation{Kind: ECLI, AsID: true, ID: strings.ToUpper("ECLI:" + m[1] + ":" + m[2] + ":" + m[3] + ":" + m[4])}, true
	}
	if m := tkForm.FindStringSubmatch(s); m != nil {
		return Citation{Kind: TKDocument, AsID: true, ID: m[1] + "D" + m[2]}, true
	}
	if m := idForm.FindStringSubmatch(s); m != nil {
		family, rest := strings.ToLower(m[1]), strings.ToUpper(m[2])
		c := Citation{Kind: Publication, AsID: true, ID: family + "-" + rest}
		if family == "kst" {
			if k := kstID.FindStringSubmatch(rest); k != nil {
				c.Kamerstuk = kamerstuk(k[1], k[2], k[3])
			}
		}
		return c, true
	}
	if m := journalForm.FindStringSubmatch(s); m != nil {
		family := strings.ToLower(m[1])
		if j, ok := journals[family]; ok {
			family = j
		}
		n, _ := strconv.Atoi(m[3])
		return Citation{Kind: Publication, ID: family + "-" + m[2] + "-" + strconv.Itoa(n)}, true
	}
	if m := kamerstukForm.FindStringSubmatch(s); m != nil {
		dossier, _ := strconv.Atoi(strings.ReplaceAll(m[1], " ", ""))
		toev, nr := strings.ToUpper(m[2]), strings.ToUpper(m[3])
		id := "kst-" + strconv.Itoa(dossier)
		if toev != "" {
			id += "-" + toev
		}
		if n, err := strconv.Atoi(nr); err == nil {
			nr = strconv.Itoa(n)
		}
		return Citation{Kind: Publication, ID: id + "-" + nr, Kamerstuk: kamerstuk(strconv.Itoa(dossier), toev, nr)}, true
	}
	return Citation{}, false
}

// kamerstuk is the Kamerstuk of a dossier, addition and number, nil when
// the number is not a number (kst-33328-AI, an Eerste Kamer letter).
func kamerstuk(dossier, toev, nr string) *Kamerstuk {
	d, err1 := strconv.Atoi(dossier)
	n, err2 := strconv.Atoi(nr)
	if err1 != nil || err2 != nil || d <= 0 || n <= 0 {
		return nil
	}
	return &Kamerstuk{Dossier: d, Toevoeging: toev, Number: n}
}

// Arg is a document tool's document argument: id, or its former name old
// (entity_id, nummer, ecli), which keeps working. Both given and
// different is an error naming both.
func Arg(id, oldName, old string) (string, error) {
	id, old = strings.TrimSpace(id), strings.TrimSpace(old)
	switch {
	case id != "" && old != "" && id != old:
		return "", fmt.Errorf("arguments \"id\" and %q name different documents (%q, %q): pass only id", oldName, clip(id, 60), clip(old, 60))
	case id != "":
		return id, nil
	case old != "":
		return old, nil
	}
	return "", fmt.Errorf("argument \"id\" is required")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
