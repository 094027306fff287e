package crosssearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// translator maps the common arguments onto one connector's search tool.
type translator struct {
	// tool is the search tool's full name.
	tool string
	// freeText: the platform searches words, so it is searched by
	// default. Without it the platform is searched only when named.
	freeText bool
	// orgFilter: the platform can narrow to one organisation.
	orgFilter bool
	// maxLimit is the search tool's largest page.
	maxLimit int
	// caveat is said in the tool description.
	caveat string
	// build returns the search arguments, and notes for the section. A
	// *skip error leaves the platform out with a reason.
	build func(ctx context.Context, l lister, a *Args, limit int) (map[string]any, []string, error)
}

// skip is a reason to leave a platform out that is not a failure of the
// platform (an organisation it does not know, a question it cannot take).
type skip struct{ reason string }

func (s *skip) Error() string { return s.reason }

// lister calls one of the platform's list tools and returns its items.
type lister func(ctx context.Context, tool string, args map[string]any) ([]connector.Item, error)

// fromProfile is the translator a connector's manifest declares
// (connector.SearchProfile); id prefixes its tools.
func fromProfile(id string, sp *connector.SearchProfile) translator {
	t := translator{tool: id + "_" + sp.Tool, freeText: sp.FreeText, orgFilter: sp.Organization != nil, maxLimit: sp.MaxLimit, caveat: sp.Caveat}
	t.build = func(ctx context.Context, l lister, a *Args, limit int) (map[string]any, []string, error) {
		if sp.NeedsFilter != "" && a.Organization == "" && a.DateFrom == "" && a.DateTo == "" {
			return nil, nil, &skip{sp.NeedsFilter}
		}
		// The page asks through the same mapping (web's searchArgs).
		args := sp.Arguments(connector.SearchRequest{Query: a.Query, DateFrom: a.DateFrom, DateTo: a.DateTo, Limit: limit, Today: a.today})
		var notes []string
		if o := sp.Organization; o != nil && a.Organization != "" {
			if o.ListTool == "" {
				args[o.Arg] = stripKind(a.Organization)
			} else {
				var listArgs map[string]any
				_ = json.Unmarshal(o.ListArgs, &listArgs) // validated with the manifest
				if listArgs == nil {
					listArgs = map[string]any{}
				}
				org, orgNotes, err := resolveOrg(ctx, l, id, id+"_"+o.ListTool, listArgs, a.Organization)
				if err != nil {
					return nil, nil, err
				}
				notes = append(notes, orgNotes...)
				args[o.Arg] = org.ID
				if o.Value == connector.OrgByTitle {
					args[o.Arg] = org.Title
				}
			}
		}
		if sp.Note != "" {
			notes = append([]string{sp.Note}, notes...)
		}
		return args, notes, nil
	}
	return t
}

// kinds are the words naming the kind of a body, dropped when matching
// names ("Gemeente Soest" is "Soest").
var kinds = []string{"gemeenteraad", "gemeente", "provinciale staten", "provincie", "waterschap", "hoogheemraadschap", "wetterskip", "raad"}

func stripKind(s string) string {
	ws := strings.Fields(s)
	for _, k := range kinds {
		n := len(strings.Fields(k))
		if len(ws) > n && orgname.FoldName(strings.Join(ws[:n], " ")) == k {
			return strings.Join(ws[n:], " ")
		}
	}
	return strings.TrimSpace(s)
}

// resolveOrg finds an organisation in a platform's list by the rules of
// orgname.MatchOrg (a key, a name with or without its kind words and
// province, an abbreviation the list gives, the start or words of a name)
// and returns it, with a note when it was read from part of a name or
// when a key's name fits others too. Not found is a *skip naming the list
// tool; a name that fits several organisations is an *ambiguous listing
// them, never the first of them.
func resolveOrg(ctx context.Context, l lister, id, tool string, args map[string]any, want string) (connector.Item, []string, error) {
	items, err := l(ctx, tool, args)
	if err != nil {
		return connector.Item{}, nil, fmt.Errorf("looking up organization %q with %s: %w", want, tool, err)
	}
	orgs, byKey := orgsOf(id, items)
	m := orgname.MatchOrg(orgs, want)
	switch len(m.Candidates) {
	case 0:
		return connector.Item{}, nil, &skip{fmt.Sprintf("organization %q is not among this platform's organisations (see %s)", want, tool)}
	case 1:
	default:
		return connector.Item{}, nil, newAmbiguous(orgs, m, want, id)
	}
	o := m.Candidates[0]
	var notes []string
	switch {
	case m.By == orgname.ByKey && len(m.Namesakes) > 0:
		var others []string
		for i, n := range m.Namesakes {
			if i == maxListed {
				others = append(others, fmt.Sprintf("and %d more", len(m.Namesakes)-maxListed))
				break
			}
			others = append(others, fmt.Sprintf("%s (key %q)", n.Label(), clip(n.Key, 100)))
		}
		notes = append(notes, fmt.Sprintf("organization %s is the key of %s here; the name also fits %s.", quoteCut(want, 100), o.Label(), strings.Join(others, "; ")))
	case m.By == orgname.ByPrefix || m.By == orgname.ByWords:
		notes = append(notes, fmt.Sprintf("organization %s is read as %s (key %q), the only organisation here whose name fits.", quoteCut(want, 100), o.Label(), clip(o.Key, 100)))
	}
	return byKey[o.Key], notes, nil
}

// listItems reads a list tool's answer.
func listItems(raw []byte) ([]connector.Item, error) {
	var l connector.ListResult
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("the list is not the expected JSON: %v", err)
	}
	return l.Items, nil
}
