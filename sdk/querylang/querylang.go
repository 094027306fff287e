package querylang

import (
	"strings"
	"unicode"
)

// english maps common English words that are no Dutch words to a Dutch
// word to search for ("" when the word only signals the language: a
// function word). Words Dutch writes the same ("budget", "planning",
// "water", "transport", "meeting", "letter", "was") are not here: a Dutch
// query of them must get no hint.
var english = map[string]string{
	// Function words (not "in", "is", "of", "over", "die": Dutch too).
	"the": "", "and": "", "to": "", "for": "", "with": "", "on": "", "by": "", "from": "",
	"about": "", "what": "", "how": "", "why": "", "who": "", "which": "", "this": "", "that": "",
	"are": "", "were": "", "has": "", "have": "", "their": "", "our": "", "between": "",
	"after": "", "before": "", "against": "", "during": "", "into": "", "new": "", "all": "",
	// What people research in Dutch public decision-making.
	"nitrogen": "stikstof", "housing": "woningbouw", "homes": "woningen", "houses": "woningen", "rent": "huur",
	"climate": "klimaat", "energy": "energie", "council": "gemeenteraad", "municipality": "gemeente",
	"municipalities": "gemeenten", "court": "rechtbank", "ruling": "uitspraak", "judgment": "uitspraak",
	"judgement": "uitspraak", "parliament": "Tweede Kamer", "vote": "stemming", "votes": "stemmingen",
	"law": "wet", "government": "regering", "healthcare": "zorg", "health": "gezondheid",
	"police": "politie", "crime": "criminaliteit", "environment": "milieu", "emissions": "uitstoot",
	"farmers": "boeren", "agriculture": "landbouw", "asylum": "asiel", "refugees": "vluchtelingen",
	"migrants": "migranten", "tax": "belasting", "taxes": "belastingen", "report": "rapport",
	"minutes": "notulen", "mayor": "burgemeester", "alderman": "wethouder", "elections": "verkiezingen",
	"election": "verkiezingen", "party": "partij", "parties": "partijen", "debate": "debat", "questions": "vragen",
	"bill": "wetsvoorstel", "amendment": "amendement", "committee": "commissie",
	"cabinet": "kabinet", "ministry": "ministerie", "economy": "economie", "jobs": "banen", "wages": "lonen",
	"pension": "pensioen", "pensions": "pensioenen", "students": "studenten", "university": "universiteit",
	"research": "onderzoek", "hospital": "ziekenhuis", "safety": "veiligheid", "security": "veiligheid",
	"railway": "spoor", "train": "trein", "airport": "luchthaven", "noise": "geluid", "air": "lucht",
	"pollution": "vervuiling", "waste": "afval", "trees": "bomen", "building": "bouw", "permit": "vergunning",
	"permits": "vergunningen", "youth": "jeugd", "children": "kinderen",
	"poverty": "armoede", "welfare": "bijstand", "benefits": "toeslagen", "allowance": "toeslag",
	"fraud": "fraude", "flood": "overstroming", "flooding": "overstroming", "drought": "droogte",
	"earthquakes": "aardbevingen", "solar": "zonne-energie", "nuclear": "kernenergie",
	"livestock": "veehouderij", "nature": "natuur", "rights": "rechten", "freedom": "vrijheid",
	"prison": "gevangenis", "judge": "rechter", "appeal": "hoger beroep", "decision": "besluit",
	"decisions": "besluiten", "policy": "beleid", "traffic": "verkeer", "road": "weg",
	"roads": "wegen", "bridge": "brug", "care": "zorg", "elderly": "ouderen", "schools": "scholen",
	"education": "onderwijs", "teachers": "leraren", "defence": "defensie", "defense": "defensie",
	"war": "oorlog", "army": "leger", "spending": "uitgaven", "costs": "kosten",
	"unemployment": "werkloosheid", "labour": "arbeid", "labor": "arbeid", "culture": "cultuur",
	"library": "bibliotheek", "church": "kerk", "mental": "ggz", "addiction": "verslaving",
	"gambling": "gokken", "fire": "brand", "emergency": "noodsituatie",
	"disaster": "ramp", "accident": "ongeval", "tenants": "huurders", "landlords": "verhuurders",
	"mortgage": "hypotheek", "construction": "bouw", "infrastructure": "infrastructuur",
	"surveillance": "toezicht", "discrimination": "discriminatie", "integration": "integratie",
	"immigration": "immigratie", "inflation": "inflatie", "vaccination": "vaccinatie",
	"pandemic": "pandemie", "city": "stad", "province": "provincie", "state": "staat",
}

// dutch are Dutch function and common words that are no English words
// (not "in", "is", "of" or "over", which English writes too).
var dutch = map[string]bool{
	"de": true, "het": true, "een": true, "en": true, "van": true, "op": true, "voor": true, "met": true,
	"zijn": true, "niet": true, "bij": true, "naar": true, "uit": true, "te": true, "aan": true,
	"door": true, "als": true, "om": true, "dat": true, "dit": true, "er": true, "ook": true, "wat": true,
	"wordt": true, "worden": true, "gemeente": true, "raad": true, "motie": true, "wet": true, "kamer": true,
	"tegen": true, "onder": true, "tussen": true, "na": true, "tot": true, "welke": true, "hoe": true,
}

// englishEndings are word endings English has and Dutch writes otherwise
// (-tie, -iteit, -heid, -schap).
var englishEndings = []string{"tion", "tions", "ity", "ities", "ness", "ship"}

// dutchPairs are letter pairs common in Dutch words and rare in English.
var dutchPairs = []string{"ij", "aa", "uu", "oe"}

// words splits q into lower-case words of letters.
func words(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) })
}

// English reports whether q reads as English: some English signal and no
// Dutch one. A query of names or numbers alone is not English.
func English(q string) bool {
	en := false
	for _, w := range words(q) {
		if dutch[w] {
			return false
		}
		for _, p := range dutchPairs {
			if strings.Contains(w, p) {
				return false
			}
		}
		if _, ok := english[w]; ok {
			en = true
			continue
		}
		for _, e := range englishEndings {
			if len(w) > len(e)+2 && strings.HasSuffix(w, e) {
				en = true
			}
		}
	}
	return en
}

// Dutch is q with each English word the table knows replaced by its Dutch
// search word and English function words dropped; ok is false when a word
// is not known (then only an example can be given).
func Dutch(q string) (string, bool) {
	var out []string
	for _, w := range words(q) {
		nl, known := english[w]
		switch {
		case !known:
			return "", false
		case nl != "":
			out = append(out, nl)
		}
	}
	return strings.Join(out, " "), len(out) > 0
}

// Hint is the advice for a query that found nothing: "" when q does not
// read as English. It is in English, the language of the tool output,
// with the Dutch words to search for, and says the same in Dutch for a
// reader of the page.
func Hint(q string) string {
	if !English(q) {
		return ""
	}
	try := "stikstof"
	if nl, ok := Dutch(q); ok {
		try = nl
	}
	return "The platforms' documents are in Dutch and are searched by their words: search in Dutch, e.g. query=\"" + try + "\". (De bronnen zijn Nederlandstalig: zoek in het Nederlands.)"
}
