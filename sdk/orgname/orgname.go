package orgname

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Org is one organisation of a platform's list, as the organisation
// resolver reads it.
type Org struct {
	// Key is what the platform's organisation argument takes: ORI's index
	// key (bergen_nh), OBV's source key.
	Key string
	// Name is the platform's own name for it: "Bergen (NH)", "Bergen Nh",
	// "Provincie Utrecht", "Limburg".
	Name string
	// Kind is KindMunicipality, KindProvince, KindWaterBoard or "" (see
	// [OrgKind]).
	Kind string
	// CBS is the CBS code (GM0373) when the platform gives one.
	CBS string
	// Abbrev is an abbreviation the platform's list gives (a court's
	// "HR"): the argument matches it exactly, after names and before
	// starts of names.
	Abbrev string
}

// Kinds of organisation, as Dutch names them.
const (
	KindMunicipality = "gemeente"
	KindProvince     = "provincie"
	KindWaterBoard   = "waterschap"
)

// OrgKind maps a platform's type of organisation to a kind: OBV's
// gemeente, provincie and waterschap, ORI's municipality, province and
// water. Anything else (OBV's "verzameling" of a supplier's sources) has
// no kind.
func OrgKind(t string) string {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "gemeente", "municipality":
		return KindMunicipality
	case "provincie", "province":
		return KindProvince
	case "waterschap", "water", "water board":
		return KindWaterBoard
	}
	return ""
}

// kindWords are the words a name may start with to say what kind of body
// it is ("Gemeente Soest", "Gemeenteraad Soest", "Provinciale Staten
// Utrecht"); longer phrases first.
var kindWords = []struct{ words, kind string }{
	{"provinciale staten", KindProvince},
	{"gemeenteraad", KindMunicipality},
	{"gemeente", KindMunicipality},
	{"provincie", KindProvince},
	{"waterschap", KindWaterBoard},
	{"hoogheemraadschap", KindWaterBoard},
	{"wetterskip", KindWaterBoard},
}

// provinces are the twelve provinces by their folded names and the
// abbreviations Dutch lists put after a shared place name: "Bergen (NH)",
// "Bergen (L.)", ORI's "Bergen (L)", OBV's "Bergen Nh".
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
// name without brackets ("Bergen Nh"): only ones of two letters or more
// that no municipality's name ends with.
var trailingAbbrev = map[string]bool{"nh": true, "zh": true, "nb": true, "gld": true, "lb": true, "ov": true, "frl": true, "zl": true, "fld": true}

// knownRegions names the province of municipalities that share a name
// with another, where the platform's name for them does not say it (OBV
// lists Bergen in Limburg as plain "Bergen"). Bergen is the only such pair
// among today's municipalities; both platforms key them bergen (Limburg,
// CBS GM0893) and bergen_nh (Noord-Holland, GM0373), as ORI's
// ocd_backend/sources/*.yaml and OBV's src/sources/catalog.data.ts do.
var knownRegions = map[string]string{
	"GM0893": "Limburg", "GM0373": "Noord-Holland",
	"key:bergen": "Limburg", "key:bergen_nh": "Noord-Holland",
}

// orgName is a name read as kind, base name and province: "Gemeente
// Bergen (NH)" is {gemeente, "bergen", Noord-Holland}.
type orgName struct {
	kind, base, region string
}

// FoldName lower-cases, drops diacritics and punctuation, and treats -, _
// and spaces alike: "Den Helder", "den_helder" and "den-helder" fold
// equal, as do "Fryslân" and "fryslan".
func FoldName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		r = unicode.ToLower(r)
		if f, ok := plainLetters[r]; ok {
			r = f
		}
		switch {
		case r == '\'' || r == '’' || r == '.':
			// 's-Hertogenbosch is one word; N.H. is nh.
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

// plainLetters are the accented letters of Dutch and Frisian place names
// without their accents (no Unicode tables in a small module).
var plainLetters = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ä': 'a', 'ã': 'a', 'å': 'a',
	'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ì': 'i', 'î': 'i', 'ï': 'i',
	'ó': 'o', 'ò': 'o', 'ô': 'o', 'ö': 'o', 'õ': 'o',
	'ú': 'u', 'ù': 'u', 'û': 'u', 'ü': 'u',
	'ý': 'y', 'ÿ': 'y', 'ç': 'c', 'ñ': 'n',
}

// province reads a qualifier as a province ("NH", "N.H.", "L",
// "Noord-Holland"), or "".
func province(q string) string {
	return provinces[strings.ReplaceAll(FoldName(q), " ", "")]
}

// SplitQualifier takes a province qualifier off the end of a name: in
// brackets ("Bergen (NH)"), after a comma ("Bergen, Limburg") or, when
// loose, as the name's last words ("Bergen Limburg"); and always the
// unbracketed abbreviations of trailingAbbrev ("Bergen Nh"). It returns
// the name without it and the province, or the name as it was and "".
func SplitQualifier(s string, loose bool) (string, string) {
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
	if last := FoldName(ws[len(ws)-1]); trailingAbbrev[last] {
		return strings.Join(ws[:len(ws)-1], " "), provinces[last]
	}
	if loose {
		for n := 2; n >= 1; n-- {
			if len(ws) > n {
				tail := strings.Join(ws[len(ws)-n:], " ")
				if len(FoldName(tail)) > 3 {
					if p := province(tail); p != "" {
						return strings.Join(ws[:len(ws)-n], " "), p
					}
				}
			}
		}
	}
	return s, ""
}

// splitKind takes the words saying what kind of body it is off the start
// of a folded name, when a name remains.
func splitKind(folded string) (kind, rest string) {
	for _, k := range kindWords {
		if r, ok := strings.CutPrefix(folded, k.words+" "); ok && r != "" {
			return k.kind, r
		}
	}
	return "", folded
}

// parseOrgName reads a name (or a key, whose _ and - fold to spaces).
func parseOrgName(s string, loose bool) orgName {
	rest, region := SplitQualifier(s, loose)
	kind, base := splitKind(FoldName(rest))
	return orgName{kind: kind, base: base, region: region}
}

// names are the ways o can be named: its name and its key read as one.
func (o Org) names() []orgName {
	out := []orgName{parseOrgName(o.Name, false)}
	if k := parseOrgName(o.Key, false); k != out[0] {
		out = append(out, k)
	}
	for i := range out {
		if out[i].kind == "" {
			out[i].kind = o.Kind
		}
		if out[i].region == "" {
			out[i].region = o.region()
		}
	}
	return out
}

// region is o's province as far as its name or [knownRegions] say.
func (o Org) region() string {
	if _, p := SplitQualifier(o.Name, false); p != "" {
		return p
	}
	if p := knownRegions[strings.ToUpper(o.CBS)]; p != "" && o.CBS != "" {
		return p
	}
	return knownRegions["key:"+o.Key]
}

// Label is how a person tells o apart from its namesakes: its kind, name
// and province where known, "Gemeente Bergen (Noord-Holland)",
// "Provincie Limburg", "Waterschap Limburg".
func (o Org) Label() string {
	name := strings.TrimSpace(o.Name)
	if name == "" {
		name = o.Key
	}
	name, _ = SplitQualifier(name, false)
	if k, _ := splitKind(FoldName(name)); k == "" && o.Kind != "" && !namesItsBody(name) {
		name = strings.ToUpper(o.Kind[:1]) + o.Kind[1:] + " " + name
	}
	if p := o.region(); p != "" {
		name += " (" + p + ")"
	}
	return clip(name, 100)
}

// bodyWords start names that already say what body they are without
// being a kind of [kindWords] ("Staten van Fryslân", "Raad van
// Bestuur"); bodyInside are words that say it anywhere in a water
// board's name ("Hoogheemraadschap van Delfland", "Het Waterschap").
var (
	bodyWords  = []string{"staten", "raad", "college", "provinciale", "waterschappen"}
	bodyInside = []string{"waterschap", "hoogheemraadschap", "wetterskip"}
)

// namesItsBody is whether name says what kind of body it is, so that no
// kind is put in front of it.
func namesItsBody(name string) bool {
	f := FoldName(name)
	for _, w := range bodyWords {
		if f == w || strings.HasPrefix(f, w+" ") {
			return true
		}
	}
	for _, w := range bodyInside {
		if strings.Contains(" "+f+" ", " "+w+" ") {
			return true
		}
	}
	return false
}

// ResultLabel is the organisation a search or document result names, the
// same on every platform whatever the platform calls it: its kind, name
// and province where a namesake needs one, "Gemeente Bergen (Limburg)"
// for OBV's "Bergen" (key bergen), ORI's "Bergen (L)" and Open
// Archivaris' "Gemeente Bergen (L.)" alike, so that a copied citation
// keeps which Bergen. kind is the platform's type of organisation
// ([OrgKind] reads it), key its key when the result gives one; "" for
// either when unknown. An empty name gives "".
func ResultLabel(name, kind, key string) string {
	if strings.TrimSpace(name) == "" {
		return ""
	}
	return Org{Key: key, Name: name, Kind: OrgKind(kind)}.Label()
}

// compatible is whether a name asked for (a) fits one of an
// organisation's names (n) on kind and province, each unknown on either
// side fitting anything.
func compatible(a, n orgName) bool {
	return (a.kind == "" || n.kind == "" || a.kind == n.kind) && (a.region == "" || n.region == "" || a.region == n.region)
}

// How an organisation was found: [OrgMatch.By].
const (
	ByKey    = "key"          // the argument is its key, exactly
	ByName   = "name"         // its name, read as kind, name and province
	ByAbbrev = "abbreviation" // the abbreviation its list gives
	ByPrefix = "prefix"       // the start of its name
	ByWords  = "words"        // whole words of its name
)

// Bounds of the resolver's work and words.
const (
	minFuzzy  = 3  // the shortest argument matched by prefix or words
	maxChoose = 25 // the most candidates the user is asked to choose from
	maxListed = 8  // the most candidates a tool error lists
)

// OrgMatch is what an organisation argument matched.
type OrgMatch struct {
	// Candidates are the organisations that fit, sorted by label: one
	// when the argument is unambiguous, none when nothing fits.
	Candidates []Org
	// By says how they were found (ByKey, ByName, ByPrefix, ByWords).
	By string
	// Namesakes are, for a key, the other organisations its name fits:
	// key "bergen" is Bergen in Limburg, "Bergen" is also Bergen (NH).
	Namesakes []Org
}

// MatchOrg finds what an organisation argument means among orgs: an
// exact key first (a key is always unambiguous), then every organisation
// whose name is the argument (kind words and a province qualifier read
// apart: "Gemeente Bergen (NH)"), then names starting with it, then names
// holding it as whole words. The first of these that fits anything
// decides; several candidates are ambiguous and never settled by order.
func MatchOrg(orgs []Org, arg string) OrgMatch {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return OrgMatch{}
	}
	for _, o := range orgs {
		if o.Key == arg {
			m := OrgMatch{Candidates: []Org{o}, By: ByKey}
			for _, n := range matchByName(orgs, parseOrgName(arg, false)) {
				if n.Key != o.Key {
					m.Namesakes = append(m.Namesakes, n)
				}
			}
			return m
		}
	}
	a := parseOrgName(arg, false)
	if c := matchByName(orgs, a); len(c) > 0 {
		return OrgMatch{Candidates: c, By: ByName}
	}
	if l := parseOrgName(arg, true); l != a {
		if c := matchByName(orgs, l); len(c) > 0 {
			return OrgMatch{Candidates: c, By: ByName}
		}
	}
	if f := FoldName(arg); f != "" {
		var c []Org
		for _, o := range orgs {
			if o.Abbrev != "" && FoldName(o.Abbrev) == f {
				c = append(c, o)
			}
		}
		if len(c) > 0 {
			sortOrgs(c)
			return OrgMatch{Candidates: c, By: ByAbbrev}
		}
	}
	if len(a.base) < minFuzzy {
		return OrgMatch{}
	}
	for _, by := range []string{ByPrefix, ByWords} {
		c := matchWhere(orgs, func(n orgName) bool {
			// A province asked for must be known to fit here: a guess
			// from the start of a name is no place to assume one.
			if !compatible(a, n) || a.region != "" && n.region != a.region {
				return false
			}
			if by == ByPrefix {
				return strings.HasPrefix(n.base, a.base)
			}
			return strings.Contains(" "+n.base+" ", " "+a.base+" ")
		})
		if len(c) > 0 {
			return OrgMatch{Candidates: c, By: by}
		}
	}
	return OrgMatch{}
}

func matchByName(orgs []Org, a orgName) []Org {
	return matchWhere(orgs, func(n orgName) bool { return n.base == a.base && compatible(a, n) })
}

// matchWhere are the organisations one of whose names fits, sorted by
// label, then key.
func matchWhere(orgs []Org, fits func(orgName) bool) []Org {
	var out []Org
	seen := map[string]bool{}
	for _, o := range orgs {
		if seen[o.Key] {
			continue
		}
		for _, n := range o.names() {
			if n.base != "" && fits(n) {
				out = append(out, o)
				seen[o.Key] = true
				break
			}
		}
	}
	sortOrgs(out)
	return out
}

// sortOrgs orders candidates by label, then key.
func sortOrgs(out []Org) {
	sort.SliceStable(out, func(i, j int) bool {
		if li, lj := out[i].Label(), out[j].Label(); li != lj {
			return li < lj
		}
		return out[i].Key < out[j].Key
	})
}

// OrgArg describes the argument being resolved, for the question and the
// errors: "organization", given "Bergen", listed by
// ori_list_organizations.
type OrgArg struct {
	// Arg is the argument's name.
	Arg string
	// Given is what the caller passed.
	Given string
	// ListTool is the tool listing the keys, with its prefix.
	ListTool string
	// Platform names the platform in the question ("Open Raadsinformatie").
	Platform string
	// KeyShaped, when set, says whether an argument that fits nothing in
	// the list may still be a key: it is then passed on as it is, and the
	// platform says whether it knows it (a list can lag the platform).
	KeyShaped func(string) bool
}

// ResolveOrg picks the one organisation arg means among orgs, asking the
// user when several fit. A unique match (a key, a name, or a unique
// prefix) is returned with a note saying how it was read when that was
// not by its key or exact name; an ambiguous one is put to the user as a
// single choice through elicitation ([sdk.Choose]), and when no one can
// be asked (not granted, a client without elicitation, no client) or the
// user declines, the error lists the candidates with what to pass.
func ResolveOrg(ctx context.Context, h connector.Host, orgs []Org, arg OrgArg) (Org, []string, error) {
	m := MatchOrg(orgs, arg.Given)
	if len(m.Candidates) < 2 {
		return arg.one(m)
	}
	c := m.Candidates
	given := clip(arg.Given, 100)
	what := fmt.Sprintf("%s %q matches %d organisations", arg.Arg, given, len(c))
	if len(c) > maxChoose {
		return Org{}, nil, fmt.Errorf("%s: %s; give a fuller name or a key from %s", what, ListOrgs(c, arg.Arg), arg.ListTool)
	}
	choices := make([]sdk.Choice, len(c))
	titles := map[string]int{}
	for _, o := range c {
		titles[o.Label()]++
	}
	for i, o := range c {
		t := o.Label()
		if titles[t] > 1 {
			t += " — " + o.Key // labels alike: the key tells them apart
		}
		choices[i] = sdk.Choice{Value: o.Key, Title: t}
	}
	how := "is the name of"
	if m.By != ByName {
		how = "fits the names of"
	}
	question := fmt.Sprintf("%q %s %d organisations on %s. Which one do you mean?", given, how, len(c), arg.Platform)
	key, ok, err := sdk.Choose(ctx, h, question, choices)
	switch {
	case err != nil:
		why := "the user could not be asked"
		var ce *connector.ClientError
		switch {
		case errors.Is(err, sdk.ErrNotGranted):
			why += " (the administrator has not granted this connector elicitation)"
		case errors.Is(err, sdk.ErrClientUnsupported):
			why += " (the MCP client does not support elicitation)"
		case errors.Is(err, sdk.ErrNoClient):
			why += " (the call comes from no MCP client)"
		case errors.As(err, &ce):
			why += " (" + clip(ce.Message, 200) + ")"
		default:
			why += " (" + clip(err.Error(), 200) + ")"
		}
		return Org{}, nil, fmt.Errorf("%s: %s. %s; ask which one is meant and call again with its %s", what, ListOrgs(c, arg.Arg), capital(why), arg.Arg)
	case !ok:
		return Org{}, nil, fmt.Errorf("%s: %s. The user was asked which one and chose none; call again with the %s of the one meant", what, ListOrgs(c, arg.Arg), arg.Arg)
	}
	for _, o := range c {
		if o.Key == key {
			return o, []string{fmt.Sprintf("%s %q matches %d organisations; the user chose %s (%s=%q).", arg.Arg, given, len(c), o.Label(), arg.Arg, o.Key)}, nil
		}
	}
	// sdk.Choose returns only offered values; this is a guard, not a path.
	return Org{}, nil, fmt.Errorf("%s: the answer %q is none of them", what, clip(key, 100))
}

// OrgKeys is [ResolveOrg] for a tool to which an organisation only
// narrows where to look (ORI's get_document, whose id decides): a name
// that fits several organisations means all of them, with a note, and
// no one is asked.
func OrgKeys(orgs []Org, arg OrgArg) ([]string, []string, error) {
	m := MatchOrg(orgs, arg.Given)
	if len(m.Candidates) < 2 {
		o, notes, err := arg.one(m)
		if err != nil {
			return nil, nil, err
		}
		return []string{o.Key}, notes, nil
	}
	c := m.Candidates
	what := fmt.Sprintf("%s %q matches %d organisations", arg.Arg, clip(arg.Given, 100), len(c))
	if len(c) > maxChoose {
		return nil, nil, fmt.Errorf("%s: %s; give a fuller name or a key from %s", what, ListOrgs(c, arg.Arg), arg.ListTool)
	}
	keys := make([]string, len(c))
	for i, o := range c {
		keys[i] = o.Key
	}
	return keys, []string{fmt.Sprintf("%s: %s. All of them were looked in.", what, ListOrgs(c, arg.Arg))}, nil
}

// one is the outcome of a match with at most one candidate: that one
// (with a note when it was not found by its key or name), the argument
// itself when nothing fits but it may be a key, or an error naming the
// list tool.
func (arg OrgArg) one(m OrgMatch) (Org, []string, error) {
	given := clip(arg.Given, 100)
	if len(m.Candidates) == 0 {
		if arg.KeyShaped != nil && arg.KeyShaped(arg.Given) {
			return Org{Key: arg.Given}, nil, nil
		}
		return Org{}, nil, fmt.Errorf("argument %q: no organisation %q on %s; take a key or name from %s", arg.Arg, given, arg.Platform, arg.ListTool)
	}
	o := m.Candidates[0]
	var notes []string
	switch {
	case m.By == ByKey && len(m.Namesakes) > 0:
		notes = append(notes, fmt.Sprintf("%s %q is the key of %s; the name also fits %s.", arg.Arg, given, o.Label(), ListOrgs(m.Namesakes, arg.Arg)))
	case m.By == ByPrefix || m.By == ByWords:
		notes = append(notes, fmt.Sprintf("%s %q is read as %s (%s=%q), the only organisation whose name fits.", arg.Arg, given, o.Label(), arg.Arg, o.Key))
	}
	return o, notes, nil
}

// ListOrgs lists candidates with what to pass for each, at most maxListed
// of them and how many more there are.
func ListOrgs(c []Org, arg string) string {
	var b strings.Builder
	for i, o := range c {
		if i == maxListed {
			fmt.Fprintf(&b, "; and %d more", len(c)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s — pass %s=%q", o.Label(), arg, clip(o.Key, 100))
	}
	return b.String()
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
