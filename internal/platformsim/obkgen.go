package platformsim

import (
	"fmt"
	"strings"
)

// Publications for SRU records without a recorded file. On the platform
// every record that repository.overheid.nl's SRU search returns has its
// publication XML on zoek.officielebekendmakingen.nl; the repository
// records only two such files. So that every id obk_search gives in the
// demo opens with obk_get_document, the zoek host serves, for every other
// record, a short publication generated from the record itself: the
// journal's masthead and body element, the record's title, date, body and
// abstract, and the fixed parts a publication of its kind carries
// (inwerkingtreding, bezwaar, ondertekening; for a Kamerstuk the kop,
// dossier and stuk; for Kamervragen the vragen and antwoorden). The same
// record gives the same bytes, and the SRU search indexes the generated
// text as it indexes a recorded file's.

// obkJournal is how a journal's publication XML opens.
type obkJournal struct {
	element  string // body element below officiele-publicatie
	masthead string // the kop's titel
	schema   string // op-xsd version in the root's schema location
}

// obkJournals by the identifier's prefix (gmb-2024-512034 → gmb). The
// element names follow KOOP's op-xml schema; Kamerstukken and Kamervragen
// have their own renderers.
var obkJournals = map[string]obkJournal{
	"stcrt": {"staatscourant", "STAATSCOURANT", "op-xsd-2012-3"},
	"stb":   {"staatsblad", "STAATSBLAD VAN HET KONINKRIJK DER NEDERLANDEN", "op-xsd-2012-3"},
	"trb":   {"tractatenblad", "TRACTATENBLAD VAN HET KONINKRIJK DER NEDERLANDEN", "op-xsd-2012-3"},
	"gmb":   {"gemeenteblad", "GEMEENTEBLAD", "op-xsd-2012-3"},
	"prb":   {"provinciaalblad", "PROVINCIAAL BLAD", "op-xsd-2012-3"},
	"wsb":   {"waterschapsblad", "WATERSCHAPSBLAD", "op-xsd-2012-3"},
	"bgr":   {"bladgemeenschappelijkeregeling", "BLAD GEMEENSCHAPPELIJKE REGELING", "op-xsd-2012-3"},
}

// obkScheme is the DC.creator scheme of a record's organisation type.
func (r *obkRecord) scheme() string {
	if r.CreatorScheme != "" {
		return r.CreatorScheme
	}
	switch r.Organisatietype {
	case "gemeente":
		return "OVERHEID.Gemeente"
	case "provincie":
		return "OVERHEID.Provincie"
	case "waterschap":
		return "OVERHEID.Waterschap"
	case "staten generaal":
		return "OVERHEID.StatenGeneraal"
	}
	return "OVERHEID.Ministerie"
}

// issued is the record's publication date (ISO).
func (r *obkRecord) issued() string {
	return firstNonEmptyStr(r.Available, r.Date, r.Modified)
}

// creator is the record's first organisation.
func (r *obkRecord) creator() string {
	if len(r.Creator) > 0 {
		return r.Creator[0]
	}
	return ""
}

// bestuur names who decides for the record's organisation, as a
// publication's opening sentence does.
func (r *obkRecord) bestuur() string {
	c := r.creator()
	switch r.Organisatietype {
	case "gemeente":
		if strings.Contains(strings.ToLower(r.Title), "raad") {
			return "De raad van de gemeente " + c
		}
		return "Het college van burgemeester en wethouders van " + c
	case "provincie":
		if strings.Contains(r.Title, "Provinciale Staten") {
			return "Provinciale Staten van " + c
		}
		return "Gedeputeerde Staten van " + c
	case "waterschap":
		return "Het dagelijks bestuur van " + c
	case "ministerie":
		if m, ok := strings.CutPrefix(c, "Ministerie van "); ok {
			return "De minister van " + m
		}
	}
	return c
}

// kindOf is the record's kind with its article, for the body ("de
// verordening", "het omgevingsplan").
func (r *obkRecord) kindOf() string {
	kind := "besluit"
	if len(r.Type) > 0 && r.Type[0] != "" {
		kind = strings.ToLower(r.Type[0])
	}
	for _, neuter := range []string{"besluit", "plan", "reglement", "bericht"} {
		if strings.HasSuffix(kind, neuter) {
			return "het " + kind
		}
	}
	return "de " + kind
}

// makesKnown is the opening verb for the body: "maakt bekend", or "maken
// bekend" for Staten (plural).
func makesKnown(bestuur string) string {
	if strings.Contains(bestuur, "Staten") {
		return "maken bekend"
	}
	return "maakt bekend"
}

// generatedPublication is the publication XML of a record without a
// recorded file, or nil for a record whose journal has no renderer.
func generatedPublication(r *obkRecord) []byte {
	prefix, _, _ := strings.Cut(r.Identifier, "-")
	switch {
	case prefix == "kst":
		return generatedKamerstuk(r)
	case prefix == "ah":
		return generatedAanhangsel(r)
	}
	j, ok := obkJournals[prefix]
	if !ok {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<officiele-publicatie xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"http://technische-documentatie.oep.overheid.nl/schema/%s\">\n", j.schema)
	date := r.issued()
	pubMetadata(&b, r.Identifier, r.Title, r.creator(), r.scheme(), date)
	sub := "Officiële uitgave van het Koninkrijk der Nederlanden sinds 1814."
	switch r.Organisatietype {
	case "gemeente":
		sub = "Officieel elektronisch publicatieblad van de gemeente " + r.creator()
	case "provincie":
		sub = "Officieel elektronisch publicatieblad van de provincie " + r.creator()
	case "waterschap":
		sub = "Officieel elektronisch publicatieblad van " + r.creator()
	}
	fmt.Fprintf(&b, "  <kop>\n    <titel>%s</titel>\n    <subtitel>%s</subtitel>\n  </kop>\n", j.masthead, xmlEsc(sub))
	fmt.Fprintf(&b, "  <%s>\n    <kop>\n      <titel>%s</titel>\n    </kop>\n    <zakelijke-mededeling>\n      <zakelijke-mededeling-tekst>\n        <tekst>\n", j.element, xmlEsc(r.Title))
	al := func(s string) { fmt.Fprintf(&b, "          <al>%s</al>\n", xmlEsc(s)) }
	kop := func(s string) { fmt.Fprintf(&b, "          <tussenkop>%s</tussenkop>\n", xmlEsc(s)) }
	when := dutchLongDate(firstNonEmptyStr(r.Date, date))
	al(fmt.Sprintf("%s %s dat op %s is vastgesteld: %s.", r.bestuur(), makesKnown(r.bestuur()), when, strings.TrimSuffix(r.Title, ".")))
	if r.Abstract != "" {
		kop("Inhoud")
		al(r.Abstract)
	}
	if len(r.Subject) > 0 && r.Subject[0] != "" {
		al("Onderwerp: " + strings.Join(r.Subject, "; ") + ".")
	}
	kop("Inwerkingtreding")
	journal := "het " + firstNonEmptyStr(r.Publicatienaam, "publicatieblad")
	if r.Publicatienaam == "Staatscourant" {
		journal = "de Staatscourant"
	}
	al(fmt.Sprintf("%s treedt in werking op de dag na die van de bekendmaking in %s.", upperFirst(r.kindOf()), journal))
	// Against a besluit one objects; a wet or a ministerial regeling is
	// not open to bezwaar.
	if k := r.kindOf(); r.Organisatietype != "ministerie" || strings.HasSuffix(k, "besluit") || strings.HasSuffix(k, "beleidsregel") {
		kop("Bezwaar en beroep")
		al(fmt.Sprintf("Belanghebbenden kunnen binnen zes weken na de dag van bekendmaking bezwaar maken bij %s. Het bezwaarschrift bevat ten minste de naam en het adres van de indiener, de datum, een omschrijving van het besluit en de gronden van het bezwaar.", lowerFirst(r.bestuur())))
	}
	kop("Ondertekening")
	al(fmt.Sprintf("%s, %s.", firstNonEmptyStr(r.creator(), "'s-Gravenhage"), dutchLongDate(date)))
	fmt.Fprintf(&b, "        </tekst>\n      </zakelijke-mededeling-tekst>\n    </zakelijke-mededeling>\n  </%s>\n</officiele-publicatie>\n", j.element)
	return []byte(b.String())
}

// generatedKamerstuk renders a Kamerstuk record in the structure of the
// recorded kst-33328-AI: kamerstukkop, dossier, stuk.
func generatedKamerstuk(r *obkRecord) []byte {
	// Kamerstuk titles read "dossier; soort; stuk".
	parts := strings.Split(r.Title, "; ")
	dossierTitle, stukTitle := r.Title, r.Title
	if len(parts) >= 2 {
		dossierTitle, stukTitle = parts[0], parts[len(parts)-1]
	}
	soort := ""
	if len(parts) >= 3 {
		soort = parts[1]
	}
	date := r.issued()
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<officiele-publicatie xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"http://technische-documentatie.oep.overheid.nl/schema/op-xsd-2012-3\">\n")
	pubMetadata(&b, r.Identifier, r.Title, r.creator(), r.scheme(), date)
	fmt.Fprintf(&b, "  <kamerstuk>\n    <kamerstukkop>\n      <tekstregel inhoud=\"kameraanduiding\">%s</tekstregel>\n      <tekstregel inhoud=\"vergaderjaar\">Vergaderjaar %s</tekstregel>\n    </kamerstukkop>\n",
		xmlEsc(firstNonEmptyStr(r.creator(), "Tweede Kamer der Staten-Generaal")), xmlEsc(strings.ReplaceAll(r.Vergaderjaar, "-", "–")))
	fmt.Fprintf(&b, "    <dossier><dossiernummer><dossiernr>%s</dossiernr></dossiernummer><titel>%s</titel></dossier>\n", xmlEsc(spacedDossier(r.Dossiernummer)), xmlEsc(dossierTitle))
	fmt.Fprintf(&b, "    <stuk>\n      <stuknr>Nr. <ondernummer>%s</ondernummer></stuknr>\n", xmlEsc(r.Ondernummer))
	if soort != "" {
		fmt.Fprintf(&b, "      <titel>%s</titel>\n", xmlEsc(strings.ToUpper(soort)))
	}
	fmt.Fprintf(&b, "      <datumtekst>Ontvangen <datum isodatum=\"%s\">%s</datum></datumtekst>\n", firstNonEmptyStr(r.Date, date), dutchLongDate(firstNonEmptyStr(r.Date, date)))
	b.WriteString("      <algemeen><vrije-tekst><tekst>\n")
	al := func(s string) { fmt.Fprintf(&b, "        <al>%s</al>\n", xmlEsc(s)) }
	switch strings.ToLower(soort) {
	case "motie":
		al("De Kamer,")
		al("gehoord de beraadslaging,")
		al(fmt.Sprintf("constaterende dat de Kamer debatteert over het dossier %s (%s);", dossierTitle, spacedDossier(r.Dossiernummer)))
		verzoek := "verzoekt de regering, de Kamer voor de behandeling van de volgende begroting te informeren over de uitvoering van deze motie"
		if a := strings.TrimSuffix(r.Abstract, "."); strings.HasPrefix(strings.ToLower(a), "verzoekt ") {
			verzoek = "verzoekt" + a[len("verzoekt"):]
		}
		al(verzoek + ",")
		al("en gaat over tot de orde van de dag.")
	default:
		al("Geachte voorzitter,")
		al(stukTitle + ".")
		if r.Abstract != "" {
			al(r.Abstract)
		}
		al("Met deze brief informeer ik uw Kamer, zoals toegezegd, over de stand van zaken. Ik ga graag met uw Kamer in gesprek over de vervolgstappen.")
	}
	b.WriteString("      </tekst></vrije-tekst></algemeen>\n    </stuk>\n  </kamerstuk>\n</officiele-publicatie>\n")
	return []byte(b.String())
}

// generatedAanhangsel renders Kamervragen with their answer (Aanhangsel
// van de Handelingen): the vragen as the record's title gives them, the
// antwoord its abstract.
func generatedAanhangsel(r *obkRecord) []byte {
	date := r.issued()
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<officiele-publicatie xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"http://technische-documentatie.oep.overheid.nl/schema/op-xsd-2012-3\">\n")
	pubMetadata(&b, r.Identifier, r.Title, r.creator(), r.scheme(), date)
	fmt.Fprintf(&b, "  <aanhangsel>\n    <kop><titel>Aanhangsel van de Handelingen</titel><subtitel>Vragen gesteld door de leden der Kamer, met de daarop door de regering gegeven antwoorden</subtitel></kop>\n")
	fmt.Fprintf(&b, "    <kamervragen>\n      <kamervraagkop><kamervraagnummer>%s</kamervraagnummer><kamervraagonderwerp>%s</kamervraagonderwerp></kamervraagkop>\n", xmlEsc(r.Publicatienummer), xmlEsc(r.Title))
	topic := "dit onderwerp"
	if _, over, ok := strings.Cut(r.Title, " over "); ok {
		topic = strings.TrimSuffix(over, ".")
	}
	fmt.Fprintf(&b, "      <vraag><nr>Vraag 1</nr><al>%s</al></vraag>\n", xmlEsc("Bent u bekend met de berichtgeving over "+topic+", en wat is uw reactie daarop?"))
	fmt.Fprintf(&b, "      <antwoord><nr>Antwoord 1</nr><al>%s</al></antwoord>\n", xmlEsc(firstNonEmptyStr(r.Abstract, "Ja. Ik informeer uw Kamer binnenkort over de uitkomsten.")))
	fmt.Fprintf(&b, "      <vraag><nr>Vraag 2</nr><al>%s</al></vraag>\n", "Bent u bereid deze vragen te beantwoorden vóór het eerstvolgende commissiedebat?")
	fmt.Fprintf(&b, "      <antwoord><nr>Antwoord 2</nr><al>%s</al></antwoord>\n", xmlEsc("Ja, de antwoorden zijn op "+dutchLongDate(date)+" aan uw Kamer gezonden."))
	b.WriteString("    </kamervragen>\n  </aanhangsel>\n</officiele-publicatie>\n")
	return []byte(b.String())
}

// spacedDossier writes a dossier number as Kamerstukken print it: 32813 →
// "32 813", 36800-VII → "36 800 VII".
func spacedDossier(nr string) string {
	nr, suffix, _ := strings.Cut(nr, "-")
	if len(nr) == 5 {
		nr = nr[:2] + " " + nr[2:]
	}
	if suffix != "" {
		nr += " " + suffix
	}
	return nr
}

// lowerFirst lower-cases the article that opens a body's name, for the
// name inside a sentence ("bij het college …"); a name that is a proper
// noun (Provinciale Staten, a municipality) stays as it is.
func lowerFirst(s string) string {
	for _, article := range []string{"De ", "Het "} {
		if strings.HasPrefix(s, article) {
			return strings.ToLower(article) + s[len(article):]
		}
	}
	return s
}

// longZoekID reports whether the zoek host serves id as a long document
// (without generating its megabytes, as longZoekXML would).
func longZoekID(id string) bool {
	for _, d := range longDocs {
		if d.Platform == "obk" && d.ID == id || d.Platform == "tk" && d.meta["ExterneIdentifier"] == id {
			return true
		}
	}
	return false
}
