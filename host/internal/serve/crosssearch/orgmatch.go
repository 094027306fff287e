package crosssearch

// How besluitbron_search reads an organisation name in a platform's list.
// The rules are those of the council connectors' own resolver (the file
// orgmatch.go they share): an exact key first, then a name read as kind
// words ("Gemeente", "Provincie", "Waterschap"), base name and province
// qualifier ("Bergen (NH)", "Bergen, Limburg"), then the start of a name,
// then whole words of one. The host may import no connector, so the rules
// are kept here a second time; TestOrgMatchAgreesWithConnectors holds the
// two to the same answers on the recorded and simulated lists. The host
// adds one rule of its own between names and starts: a court's
// abbreviation ("HR", "RBAMS") as the platform's list gives it.
//
// Several organisations that fit are never settled by order: the
// platform's part of the answer lists them instead (see [ambiguous]).

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// org is one organisation of a platform's list as the matcher reads it.
type org struct {
	item   connector.Item
	key    string // the list item's id: what the platform's argument takes
	name   string // the list item's title
	kind   string // kindMunicipality, kindProvince, kindWaterBoard or ""
	cbs    string // the CBS code when the list gives one (GM0373)
	abbrev string // the abbreviation the list gives (courts)
}

// Kinds of organisation, as Dutch names them.
const (
	kindMunicipality = "gemeente"
	kindProvince     = "provincie"
	kindWaterBoard   = "waterschap"
)

// orgKind maps a list's type of organisation to a kind: gemeente,
// provincie and waterschap, or municipality, province and water, as the
// council platforms write them. Anything else has no kind.
func orgKind(t string) string {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "gemeente", "municipality":
		return kindMunicipality
	case "provincie", "province":
		return kindProvince
	case "waterschap", "water", "water board":
		return kindWaterBoard
	}
	return ""
}

// orgsOf reads a platform's list items; id is the platform's connector
// id, under which an item's extras are kept.
func orgsOf(id string, items []connector.Item) []org {
	out := make([]org, 0, len(items))
	for _, it := range items {
		o := org{item: it, key: it.ID, name: it.Title, kind: orgKind(it.Type)}
		o.cbs, _ = it.Extra[id]["cbs_id"].(string)
		o.abbrev, _ = it.Extra[id]["abbreviation"].(string)
		out = append(out, o)
	}
	return out
}

// kindWords are the words a name may start with to say what kind of body
// it is; longer phrases first.
var kindWords = []struct{ words, kind string }{
	{"provinciale staten", kindProvince},
	{"gemeenteraad", kindMunicipality},
	{"gemeente", kindMunicipality},
	{"provincie", kindProvince},
	{"waterschap", kindWaterBoard},
	{"hoogheemraadschap", kindWaterBoard},
	{"wetterskip", kindWaterBoard},
}

// provinces are the twelve provinces by their folded names and the
// abbreviations Dutch lists put after a shared place name.
var provinces = map[string]string{
	"groningen": "Groningen", "gr": "Groningen", "gn": "Groningen",
	"friesland": "Fryslân", "fryslan": "Fryslân", "fr": "Fryslân", "frl": "Fryslân",
	"drenthe": "Drenthe", "dr": "Drenthe",
	"overijssel": "Overijssel", "ov": "Overijssel", "o": "Overijssel",
	"flevoland": "Flevoland", "fl": "Flevoland", "fld": "Flevoland",
	"gelderland": "Gelderland", "gld": "Gelderland", "gl": "Gelderland", "g": "Gelderland",
	"utrecht": "Utrecht", "ut": "Utrecht", "utr": "Utrecht", "u": "Utrecht",
	"noordholland": "Noord-Holland", "nh": "Noord-Holland",
	"zuidholland": "Zuid-Holland", "zh": "Zuid-Holland",
	"zeeland": "Zeeland", "zl": "Zeeland", "z": "Zeeland",
	"noordbrabant": "Noord-Brabant", "brabant": "Noord-Brabant", "nb": "Noord-Brabant",
	"limburg": "Limburg", "l": "Limburg", "lb": "Limburg", "li": "Limburg", "lim": "Limburg",
}

// trailingAbbrev are the abbreviations read as a province when they end a
// name without brackets ("Bergen Nh"): only ones no municipality's name
// ends with.
var trailingAbbrev = map[string]bool{"nh": true, "zh": true, "nb": true, "gld": true, "lb": true, "ov": true, "frl": true, "zl": true, "fld": true}

// knownRegions names the province of the municipalities that share a name
// where a platform's name for them does not say it (one platform lists
// Bergen in Limburg as plain "Bergen"): by CBS code and by the key both
// council platforms give them.
var knownRegions = map[string]string{
	"GM0893": "Limburg", "GM0373": "Noord-Holland",
	"key:bergen": "Limburg", "key:bergen_nh": "Noord-Holland",
}

// orgName is a name read as kind, base name and province.
type orgName struct {
	kind, base, region string
}

// foldName lower-cases, drops diacritics, apostrophes and full stops, and
// treats other punctuation and spaces alike: "Den Helder", "den_helder"
// and "den-helder" fold equal, as do "Fryslân" and "fryslan", and
// "'s-Hertogenbosch" is "shertogenbosch" as the connectors read it.
func foldName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(s) {
		r = unicode.ToLower(r)
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == '\'' || r == '’' || r == '.':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// province reads a qualifier as a province ("NH", "N.H.", "L",
// "Noord-Holland"), or "".
func province(q string) string {
	return provinces[strings.ReplaceAll(foldName(q), " ", "")]
}

// splitQualifier takes a province qualifier off the end of a name: in
// brackets ("Bergen (NH)"), after a comma ("Bergen, Limburg") or, when
// loose, as the name's last words ("Bergen Limburg"); and always the
// unbracketed abbreviations of trailingAbbrev ("Bergen Nh").
func splitQualifier(s string, loose bool) (string, string) {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ")") {
		if i := strings.LastIndex(s, "("); i > 0 {
			if p := province(s[i+1 : len(s)-1]); p != "" {
				return strings.TrimSpace(s[:i]), p
			}
		}
	}
	if i := strings.LastIndex(s, ","); i > 0 {
		if p := province(s[i+1:]); p != "" {
			return strings.TrimSpace(s[:i]), p
		}
	}
	ws := strings.Fields(s)
	if len(ws) < 2 {
		return s, ""
	}
	if last := foldName(ws[len(ws)-1]); trailingAbbrev[last] {
		return strings.Join(ws[:len(ws)-1], " "), provinces[last]
	}
	if loose {
		for n := 2; n >= 1; n-- {
			if len(ws) > n {
				tail := strings.Join(ws[len(ws)-n:], " ")
				if len(foldName(tail)) > 3 {
					if p := province(tail); p != "" {
						return strings.Join(ws[:len(ws)-n], " "), p
					}
				}
			}
		}
	}
	return s, ""
}

// splitKind takes the kind words off the start of a folded name, when a
// name remains.
func splitKind(folded string) (kind, rest string) {
	for _, k := range kindWords {
		if r, ok := strings.CutPrefix(folded, k.words+" "); ok && r != "" {
			return k.kind, r
		}
	}
	return "", folded
}

func parseOrgName(s string, loose bool) orgName {
	rest, region := splitQualifier(s, loose)
	kind, base := splitKind(foldName(rest))
	return orgName{kind: kind, base: base, region: region}
}

// names are the ways o can be named: its name and its key read as one.
func (o org) names() []orgName {
	out := []orgName{parseOrgName(o.name, false)}
	if k := parseOrgName(o.key, false); k != out[0] {
		out = append(out, k)
	}
	for i := range out {
		if out[i].kind == "" {
			out[i].kind = o.kind
		}
		if out[i].region == "" {
			out[i].region = o.region()
		}
	}
	return out
}

// region is o's province as far as its name or knownRegions say.
func (o org) region() string {
	if _, p := splitQualifier(o.name, false); p != "" {
		return p
	}
	if p := knownRegions[strings.ToUpper(o.cbs)]; p != "" && o.cbs != "" {
		return p
	}
	return knownRegions["key:"+o.key]
}

// label is how a person tells o apart from its namesakes, in Dutch words
// as the platforms' names are: "Gemeente Bergen (Noord-Holland)".
func (o org) label() string {
	name := strings.TrimSpace(o.name)
	if name == "" {
		name = o.key
	}
	name, _ = splitQualifier(name, false)
	if k, _ := splitKind(foldName(name)); k == "" && o.kind != "" {
		name = strings.ToUpper(o.kind[:1]) + o.kind[1:] + " " + name
	}
	if p := o.region(); p != "" {
		name += " (" + p + ")"
	}
	return clip(name, 100)
}

// compatible is whether a name asked for fits one of an organisation's
// names on kind and province, each unknown on either side fitting
// anything.
func compatible(a, n orgName) bool {
	return (a.kind == "" || n.kind == "" || a.kind == n.kind) && (a.region == "" || n.region == "" || a.region == n.region)
}

// How an organisation was found.
const (
	byKey    = "key"
	byName   = "name"
	byAbbrev = "abbreviation" // the host's own rule: a court's "HR"
	byPrefix = "prefix"
	byWords  = "words"
)

// Bounds of the matcher's work and words.
const (
	minFuzzy  = 3 // the shortest argument matched by prefix or words
	maxListed = 8 // the most candidates a section lists
)

// orgMatch is what an organisation argument matched: the candidates
// (sorted by label, then key), how, and for a key the other organisations
// its name fits.
type orgMatch struct {
	cands     []org
	by        string
	namesakes []org
}

// matchOrg finds what an organisation argument means among orgs; the
// first rule that fits anything decides.
func matchOrg(orgs []org, arg string) orgMatch {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return orgMatch{}
	}
	for _, o := range orgs {
		if o.key == arg {
			m := orgMatch{cands: []org{o}, by: byKey}
			for _, n := range matchByName(orgs, parseOrgName(arg, false)) {
				if n.key != o.key {
					m.namesakes = append(m.namesakes, n)
				}
			}
			return m
		}
	}
	a := parseOrgName(arg, false)
	if c := matchByName(orgs, a); len(c) > 0 {
		return orgMatch{cands: c, by: byName}
	}
	if l := parseOrgName(arg, true); l != a {
		if c := matchByName(orgs, l); len(c) > 0 {
			return orgMatch{cands: c, by: byName}
		}
	}
	if f := foldName(arg); f != "" {
		var c []org
		for _, o := range orgs {
			if o.abbrev != "" && foldName(o.abbrev) == f {
				c = append(c, o)
			}
		}
		if len(c) > 0 {
			sortOrgs(c)
			return orgMatch{cands: c, by: byAbbrev}
		}
	}
	if len(a.base) < minFuzzy {
		return orgMatch{}
	}
	for _, by := range []string{byPrefix, byWords} {
		c := matchWhere(orgs, func(n orgName) bool {
			// A province asked for must be known to fit here.
			if !compatible(a, n) || a.region != "" && n.region != a.region {
				return false
			}
			if by == byPrefix {
				return strings.HasPrefix(n.base, a.base)
			}
			return strings.Contains(" "+n.base+" ", " "+a.base+" ")
		})
		if len(c) > 0 {
			return orgMatch{cands: c, by: by}
		}
	}
	return orgMatch{}
}

func matchByName(orgs []org, a orgName) []org {
	return matchWhere(orgs, func(n orgName) bool { return n.base == a.base && compatible(a, n) })
}

// matchWhere are the organisations one of whose names fits, sorted.
func matchWhere(orgs []org, fits func(orgName) bool) []org {
	var out []org
	seen := map[string]bool{}
	for _, o := range orgs {
		if seen[o.key] {
			continue
		}
		for _, n := range o.names() {
			if n.base != "" && fits(n) {
				out = append(out, o)
				seen[o.key] = true
				break
			}
		}
	}
	sortOrgs(out)
	return out
}

func sortOrgs(out []org) {
	sort.SliceStable(out, func(i, j int) bool {
		if li, lj := out[i].label(), out[j].label(); li != lj {
			return li < lj
		}
		return out[i].key < out[j].key
	})
}

// Candidate is one organisation an ambiguous organization argument fits
// on a platform, in a section's candidates.
type Candidate struct {
	// Label tells it apart from its namesakes: "Gemeente Bergen (Limburg)".
	Label string `json:"label"`
	// Key is the platform's own key for it (its search tool's argument).
	Key string `json:"key"`
	// Pass is what to give besluitbron_search's organization to mean it:
	// its label when that picks it alone on this platform (a name with its
	// province narrows the other platforms too), else its key.
	Pass string `json:"pass"`
}

// ambiguous is a platform's organization argument that fits several of
// its organisations: the platform is not searched, and its section lists
// them with what to pass, never picking one.
type ambiguous struct {
	given    string
	platform string // the platform's name
	by       string
	total    int
	listed   []Candidate // at most maxListed
}

// newAmbiguous lists c (at least two) for given on the platform titled
// platform.
func newAmbiguous(orgs []org, m orgMatch, given, platform string) *ambiguous {
	e := &ambiguous{given: given, platform: platform, by: m.by, total: len(m.cands)}
	for i, o := range m.cands {
		if i == maxListed {
			break
		}
		c := Candidate{Label: o.label(), Key: o.key, Pass: o.key}
		if again := matchOrg(orgs, c.Label); len(again.cands) == 1 && again.cands[0].key == o.key {
			c.Pass = c.Label
		}
		e.listed = append(e.listed, c)
	}
	return e
}

// Error is the section's reason: the candidates with what to pass, at
// most maxListed of them and how many more there are.
func (e *ambiguous) Error() string {
	var b strings.Builder
	how := "matches"
	if e.by == byPrefix || e.by == byWords {
		how = "fits the names of"
	}
	fmt.Fprintf(&b, "organization %s %s %d organisations on %s: ", quoteCut(e.given, 100), how, e.total, e.platform)
	for i, c := range e.listed {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s — pass organization=%q", c.Label, c.Pass)
		if c.Pass != c.Key {
			fmt.Fprintf(&b, " (key %q)", clip(c.Key, 100))
		}
	}
	if more := e.total - len(e.listed); more > 0 {
		fmt.Fprintf(&b, "; and %d more (give a fuller name)", more)
	}
	b.WriteString(". None was picked: ask which one is meant and search again with it")
	return b.String()
}
