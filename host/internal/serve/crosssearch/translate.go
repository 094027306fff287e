package crosssearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/besluitbron/besluitbron/sdk/connector"
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
		limitArg := sp.LimitArg
		if limitArg == "" {
			limitArg = "limit"
		}
		args := map[string]any{limitArg: limit}
		if sp.QueryArg != "" {
			args[sp.QueryArg] = a.Query
		}
		from, to := a.DateFrom, a.DateTo
		if sp.DatesWhole && (from != "" || to != "") {
			// The platform takes a date range only whole.
			if from == "" {
				from = "1800-01-01"
			}
			if to == "" {
				to = a.today
			}
		}
		if from != "" && sp.DateFromArg != "" {
			args[sp.DateFromArg] = from
		}
		if to != "" && sp.DateToArg != "" {
			args[sp.DateToArg] = to
		}
		if o := sp.Organization; o != nil && a.Organization != "" {
			if o.ListTool == "" {
				args[o.Arg] = stripKind(a.Organization)
			} else {
				var listArgs map[string]any
				_ = json.Unmarshal(o.ListArgs, &listArgs) // validated with the manifest
				if listArgs == nil {
					listArgs = map[string]any{}
				}
				org, err := resolveOrg(ctx, l, id+"_"+o.ListTool, listArgs, a.Organization)
				if err != nil {
					return nil, nil, err
				}
				args[o.Arg] = org.ID
				if o.Value == connector.OrgByTitle {
					args[o.Arg] = org.Title
				}
			}
		}
		var notes []string
		if sp.Note != "" {
			notes = []string{sp.Note}
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
		if len(ws) > n && foldName(strings.Join(ws[:n], " ")) == k {
			return strings.Join(ws[n:], " ")
		}
	}
	return strings.TrimSpace(s)
}

// foldName lower-cases, drops diacritics and punctuation, and treats -, _
// and spaces alike, so that "Den Helder", "den_helder" and "den-helder"
// compare equal.
func foldName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// resolveOrg finds an organisation in a platform's list by key or name,
// with or without its kind ("Soest", "soest", "Gemeente Soest"), or by
// abbreviation, and returns it. Not found is a *skip naming the list tool.
func resolveOrg(ctx context.Context, l lister, tool string, args map[string]any, want string) (connector.Item, error) {
	items, err := l(ctx, tool, args)
	if err != nil {
		return connector.Item{}, fmt.Errorf("looking up organization %q with %s: %w", want, tool, err)
	}
	w := foldName(want)
	wk := foldName(stripKind(want))
	for _, pass := range []func(it connector.Item) bool{
		func(it connector.Item) bool { return foldName(it.ID) == w || foldName(it.Title) == w },
		func(it connector.Item) bool {
			return foldName(stripKind(it.Title)) == wk || foldName(it.ID) == wk
		},
		// An abbreviation the platform gives (a court's "HR", "RBAMS").
		func(it connector.Item) bool {
			for _, x := range it.Extra {
				if ab, ok := x["abbreviation"].(string); ok && foldName(ab) == w {
					return true
				}
			}
			return false
		},
	} {
		for _, it := range items {
			if pass(it) {
				return it, nil
			}
		}
	}
	return connector.Item{}, &skip{fmt.Sprintf("organization %q is not among this platform's organisations (see %s)", want, tool)}
}

// listItems reads a list tool's answer.
func listItems(raw []byte) ([]connector.Item, error) {
	var l connector.ListResult
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("the list is not the expected JSON: %v", err)
	}
	return l.Items, nil
}
