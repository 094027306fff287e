package tk

import (
	"net/url"
	"strings"
)

// SiteURL is the Tweede Kamer's own site, where every citation points: the
// OData API and its files are for programs, not for a reader.
const SiteURL = "https://www.tweedekamer.nl"

// The site finds records by their numbers (Document.DocumentNummer,
// Zaak.Nummer, Activiteit.Nummer), never by the GUID of the record; so a
// record without its number has no page here (its url stays empty and the
// API link is in extra.tk).

// DocumentPageURL is a document's page on tweedekamer.nl. The page takes a
// case number (id) and a document number (did); the search results and the
// document's metadata carry only the document number, and the site opens a
// document with that number in both places, so search and get_document
// cite the same page whatever case the document belongs to.
func DocumentPageURL(documentNummer string) string {
	n := strings.TrimSpace(documentNummer)
	if n == "" {
		return ""
	}
	q := url.QueryEscape(n)
	return SiteURL + "/kamerstukken/detail?id=" + q + "&did=" + q
}

// ZaakPageURL is a case's page on tweedekamer.nl, by its number.
func ZaakPageURL(nummer string) string {
	n := strings.TrimSpace(nummer)
	if n == "" {
		return ""
	}
	return SiteURL + "/kamerstukken/detail?id=" + url.QueryEscape(n)
}

// plenaryKinds are the starts of the Activiteit.Soort values (lower case)
// of what happens in the plenary hall: "Plenair debat (wetgeving)",
// "Stemmingen", "Vragenuur" and the Kamer's own sittings. Every activity
// has a committee in the lead, plenary ones too, so only its kind tells.
var plenaryKinds = []string{"plenair", "stemmingen", "hamerstukken", "regeling van werkzaamheden", "vragenuur", "mondelinge vragen"}

// ActivityPageURL is an activity's page on tweedekamer.nl, by its number:
// the plenary debates' page for a plenary kind, the committee meetings'
// page for any other. Both answer for every activity; they differ in the
// part of the site they are shown in.
func ActivityPageURL(nummer, soort string) string {
	n := strings.TrimSpace(nummer)
	if n == "" {
		return ""
	}
	kind := strings.ToLower(strings.TrimSpace(soort))
	for _, p := range plenaryKinds {
		if strings.HasPrefix(kind, p) {
			return SiteURL + "/debat_en_vergadering/plenaire_vergaderingen/details/activiteit?id=" + url.QueryEscape(n)
		}
	}
	return SiteURL + "/debat_en_vergadering/commissievergaderingen/details?id=" + url.QueryEscape(n)
}
