package cite

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Doc is what a result says of a document, from which its citation is
// written: its normalised document keys by kind (connector.Item.Keys:
// "ecli", "kamerstuk", "publication_id", "tk_document_number",
// "source_url") and the title, organisation, ISO date and address every
// result has. Nothing in it names a platform: the keys say what the
// document is.
type Doc struct {
	Keys         map[string]string
	ID           string
	Title        string
	Organization string
	Date         string
	URL          string
}

// The key kinds a Doc's Keys are read by (connector.Key*; spelt here so
// that this package stays free of the connector contract).
const (
	keyECLI        = "ecli"
	keyKamerstuk   = "kamerstuk"
	keyPublication = "publication_id"
	keyTKDocument  = "tk_document_number"
)

// WorkKind is what kind of document a [Work] is, which decides the form
// of its citation and its type in CSL-JSON, BibTeX and RIS.
type WorkKind string

// The kinds of work a citation is written for.
const (
	// WorkCase is a court decision, cited by court, date and ECLI.
	WorkCase WorkKind = "case"
	// WorkParliamentary is a Kamerstuk or the Handelingen, cited by
	// chamber, session year, dossier and number.
	WorkParliamentary WorkKind = "parliamentary"
	// WorkOfficialJournal is a publication in an official journal
	// (Staatscourant, Staatsblad, Gemeenteblad…), cited by journal, year
	// and number.
	WorkOfficialJournal WorkKind = "official_journal"
	// WorkDocument is any other document (a council's, a Tweede Kamer
	// document without a Kamerstuk), cited by organisation, title, date
	// and address.
	WorkDocument WorkKind = "document"
)

// Work is a document as a citation describes it: the Dutch citation
// and the parts a reference manager files it by.
type Work struct {
	Kind WorkKind
	// Text is the citation as Dutch legal and journalistic practice
	// writes it: "Rechtbank Den Haag 19 december 2024,
	// ECLI:NL:RBDHA:2024:19901", "Kamerstukken II 2025/26, 36800-VII,
	// nr. 14", "Stcrt. 2025, 18220", or organisation, title, date and
	// address for any other document.
	Text string
	// Identifier is what identifies the document outside any platform:
	// its ECLI, its publication id, its Tweede Kamer document number, or
	// "" when it has none but its address.
	Identifier string
	// Authority is the court or organisation that made it.
	Authority string
	// Container is the series it appeared in: "Staatscourant",
	// "Kamerstukken II 2025/26", "" when none.
	Container string
	// Number is its number in that series ("36800-VII, nr. 14",
	// "18220"), or the ECLI of a court decision.
	Number string
	// Title, Date (ISO) and URL are the result's.
	Title, Date, URL string
}

// journalNames are the official journals by publication id family:
// abbreviation as cited, and full name.
var journalNames = map[string][2]string{
	"stcrt": {"Stcrt.", "Staatscourant"},
	"stb":   {"Stb.", "Staatsblad"},
	"trb":   {"Trb.", "Tractatenblad"},
	"gmb":   {"Gmb.", "Gemeenteblad"},
	"prb":   {"Prb.", "Provinciaal blad"},
	"wsb":   {"Wsb.", "Waterschapsblad"},
	"bgr":   {"Bgr.", "Blad gemeenschappelijke regeling"},
}

// courts names the courts by their ECLI code, for a decision whose
// result names no court.
var courts = map[string]string{
	"HR": "Hoge Raad", "PHR": "Parket bij de Hoge Raad", "RVS": "Raad van State", "CRVB": "Centrale Raad van Beroep",
	"CBB": "College van Beroep voor het bedrijfsleven", "GHAMS": "Gerechtshof Amsterdam", "GHARL": "Gerechtshof Arnhem-Leeuwarden",
	"GHDHA": "Gerechtshof Den Haag", "GHSHE": "Gerechtshof 's-Hertogenbosch", "RBAMS": "Rechtbank Amsterdam",
	"RBDHA": "Rechtbank Den Haag", "RBGEL": "Rechtbank Gelderland", "RBLIM": "Rechtbank Limburg", "RBMNE": "Rechtbank Midden-Nederland",
	"RBNHO": "Rechtbank Noord-Holland", "RBNNE": "Rechtbank Noord-Nederland", "RBOBR": "Rechtbank Oost-Brabant",
	"RBOVE": "Rechtbank Overijssel", "RBROT": "Rechtbank Rotterdam", "RBZWB": "Rechtbank Zeeland-West-Brabant",
}

var (
	// kstParts splits a Kamerstuk publication id: dossier, addition,
	// number (a letter for an Eerste Kamer paper: kst-33328-AI).
	kstParts = regexp.MustCompile(`^kst-([0-9]{1,6})(?:-([0-9A-Z]{1,10}))??-([0-9]{1,5}|[A-Z]{1,3})$`)
	// handelingenParts splits a Handelingen id: chamber, session years,
	// number, item.
	handelingenParts = regexp.MustCompile(`^h-(tk|ek)-([0-9]{4})([0-9]{4})-([0-9]{1,4})(?:-([0-9]{1,4}))?$`)
	// aanhangselParts splits an Aanhangsel der Handelingen id.
	aanhangselParts = regexp.MustCompile(`^ah-(tk|ek)-([0-9]{4})([0-9]{4})-([0-9]{1,6})$`)
	// journalParts splits an official journal's id: family, year, number.
	journalParts = regexp.MustCompile(`^([a-z]+)-([0-9]{4})-([0-9]{1,7})$`)
)

// Describe writes the citation of d: by its ECLI, its Kamerstuk, its
// publication id, its Tweede Kamer document number, in that order of
// precedence; any document without one is cited by organisation, title,
// date and address. It makes no request and reads no clock: the date a
// document was retrieved is the caller's to add.
func Describe(d Doc) Work {
	w := Work{Kind: WorkDocument, Authority: clean(d.Organization), Title: clean(d.Title), Date: isoDate(d.Date), URL: strings.TrimSpace(d.URL)}
	keys := d.Keys
	if keys[keyECLI] == "" && keys[keyPublication] == "" && keys[keyTKDocument] == "" {
		// A result without keys may still have a citable id (a document
		// read by its ECLI or publication id).
		if c, ok := Parse(d.ID); ok && c.AsID {
			keys = map[string]string{}
			switch c.Kind {
			case ECLI:
				keys[keyECLI] = c.ID
			case Publication:
				keys[keyPublication] = c.ID
			case TKDocument:
				keys[keyTKDocument] = c.ID
			}
		}
	}
	if e := keys[keyECLI]; e != "" {
		if c, ok := Parse(e); ok && c.Kind == ECLI {
			return w.courtCase(c.ID)
		}
	}
	pub := keys[keyPublication]
	if pub == "" && keys[keyKamerstuk] != "" {
		pub = "kst-" + keys[keyKamerstuk]
	}
	if pub != "" {
		if c, ok := Parse(pub); ok && c.Kind == Publication && w.publication(c.ID) {
			return w
		}
	}
	if n := keys[keyTKDocument]; n != "" {
		if c, ok := Parse(n); ok && c.Kind == TKDocument {
			w.Identifier, w.Number = c.ID, c.ID
			if w.Authority == "" {
				w.Authority = "Tweede Kamer"
			}
			w.Text = join(w.Authority, quoted(w.Title), dutchDate(w.Date), c.ID)
			return w
		}
	}
	if pub != "" {
		w.Identifier = pub
	}
	w.Text = join(w.Authority, quoted(w.Title), dutchDate(w.Date), first(w.URL, w.Identifier))
	return w
}

// courtCase is a court decision: "Rechtbank Den Haag 19 december 2024,
// ECLI:NL:RBDHA:2024:19901".
func (w Work) courtCase(ecli string) Work {
	w.Kind, w.Identifier, w.Number = WorkCase, ecli, ecli
	if w.Authority == "" {
		parts := strings.Split(ecli, ":")
		w.Authority = courts[parts[2]]
	}
	head := strings.TrimSpace(w.Authority + " " + dutchDate(w.Date))
	w.Text = join(head, ecli)
	return w
}

// publication fills w for an Officiële Bekendmakingen publication id it
// has a citation form for, and reports whether it had one.
func (w *Work) publication(id string) bool {
	if m := kstParts.FindStringSubmatch(id); m != nil {
		chamber := "II"
		if _, err := strconv.Atoi(m[3]); err != nil {
			chamber = "I" // the Eerste Kamer numbers its papers with letters
		}
		w.Container = strings.TrimSpace("Kamerstukken " + chamber + " " + sessionYear(w.Date))
		dossier := m[1]
		if m[2] != "" {
			dossier += "-" + m[2]
		}
		w.Number = dossier + ", nr. " + m[3]
		if chamber == "I" {
			w.Number = dossier + ", " + m[3]
		}
		w.Kind, w.Identifier = WorkParliamentary, id
		w.Text = join(w.Container, w.Number)
		return true
	}
	if m := handelingenParts.FindStringSubmatch(id); m != nil {
		w.Kind, w.Identifier = WorkParliamentary, id
		w.Container = "Handelingen " + chamberOf(m[1]) + " " + m[2] + "/" + m[3][2:]
		w.Number = "nr. " + strings.TrimLeft(m[4], "0")
		if m[5] != "" {
			w.Number += ", item " + strings.TrimLeft(m[5], "0")
		}
		w.Text = join(w.Container, w.Number)
		return true
	}
	if m := aanhangselParts.FindStringSubmatch(id); m != nil {
		w.Kind, w.Identifier = WorkParliamentary, id
		w.Container = "Aanhangsel Handelingen " + chamberOf(m[1]) + " " + m[2] + "/" + m[3][2:]
		w.Number = "nr. " + strings.TrimLeft(m[4], "0")
		w.Text = join(w.Container, w.Number)
		return true
	}
	if m := journalParts.FindStringSubmatch(id); m != nil {
		if j, ok := journalNames[m[1]]; ok {
			w.Kind, w.Identifier, w.Container, w.Number = WorkOfficialJournal, id, j[1], m[3]
			w.Text = j[0] + " " + m[2] + ", " + m[3]
			return true
		}
	}
	return false
}

// Abbreviation is the cited abbreviation of a [WorkOfficialJournal]'s
// journal ("Stcrt."), "" for any other work.
func (w Work) Abbreviation() string {
	for _, j := range journalNames {
		if j[1] == w.Container {
			return j[0]
		}
	}
	return ""
}

func chamberOf(code string) string {
	if code == "ek" {
		return "I"
	}
	return "II"
}

// sessionYear is the parliamentary year of an ISO date, "2025/26": a
// year opens on Prinsjesdag, the third Tuesday of September. "" for no
// date.
func sessionYear(date string) string {
	t, err := time.Parse("2006-01-02", date)
	if err != nil {
		return ""
	}
	y := t.Year()
	sep := time.Date(y, time.September, 1, 0, 0, 0, 0, time.UTC)
	firstTue := 1 + (int(time.Tuesday)-int(sep.Weekday())+7)%7
	prinsjesdag := time.Date(y, time.September, firstTue+14, 0, 0, 0, 0, time.UTC)
	if t.Before(prinsjesdag) {
		y--
	}
	return strconv.Itoa(y) + "/" + strconv.Itoa(y + 1)[2:]
}

var maanden = [...]string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"}

// DutchDate writes an ISO date as Dutch citations do: "19 december
// 2024". Anything that is not an ISO date gives "".
func DutchDate(iso string) string { return dutchDate(isoDate(iso)) }

func dutchDate(iso string) string {
	t, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return ""
	}
	return strconv.Itoa(t.Day()) + " " + maanden[t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// isoDate is the date part of an ISO date or timestamp, or "".
func isoDate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 10 {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return s[:10]
		}
	}
	return ""
}

// quoted is a title between Dutch single quotes, "" for none.
func quoted(title string) string {
	if title == "" {
		return ""
	}
	return "‘" + title + "’"
}

// clean collapses white space and bounds a field at 300 bytes.
func clean(s string) string { return clip(strings.Join(strings.Fields(s), " "), 300) }

func join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
