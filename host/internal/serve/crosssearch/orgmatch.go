package crosssearch

// How besluitbron_search reads an organisation name in a platform's list:
// by the rules the council connectors use too (sdk/orgname), so a name
// means the same through besluitbron_search as through <platform>_search.
// The list's items are read here (orgsOf), with a court's abbreviation
// ("HR", "RBAMS") where the list gives one.
//
// Several organisations that fit are never settled by order: the
// platform's part of the answer lists them instead (see [ambiguous]).

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// maxListed is the most candidates a section lists.
const maxListed = 8

// orgsOf reads a platform's list items as organisations, and the items by
// key; id is the platform's connector id, under which an item's extras
// are kept.
func orgsOf(id string, items []connector.Item) ([]orgname.Org, map[string]connector.Item) {
	out := make([]orgname.Org, 0, len(items))
	byKey := make(map[string]connector.Item, len(items))
	for _, it := range items {
		o := orgname.Org{Key: it.ID, Name: it.Title, Kind: orgname.OrgKind(it.Type)}
		o.CBS, _ = it.Extra[id]["cbs_id"].(string)
		o.Abbrev, _ = it.Extra[id]["abbreviation"].(string)
		out = append(out, o)
		byKey[it.ID] = it
	}
	return out, byKey
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
func newAmbiguous(orgs []orgname.Org, m orgname.OrgMatch, given, platform string) *ambiguous {
	e := &ambiguous{given: given, platform: platform, by: m.By, total: len(m.Candidates)}
	for i, o := range m.Candidates {
		if i == maxListed {
			break
		}
		c := Candidate{Label: o.Label(), Key: o.Key, Pass: o.Key}
		if again := orgname.MatchOrg(orgs, c.Label); len(again.Candidates) == 1 && again.Candidates[0].Key == o.Key {
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
	if e.by == orgname.ByPrefix || e.by == orgname.ByWords {
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
