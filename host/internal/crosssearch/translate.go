package crosssearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/besluitbron/besluitbron/sdk"
)

// translator maps the common arguments onto one connector's search tool.
type translator struct {
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
type lister func(ctx context.Context, tool string, args map[string]any) ([]sdk.Item, error)

// translators by connector id. A loaded connector without an entry is not
// searched by besluitbron_search (its section says so when it is named).
var translators = map[string]translator{
	"obv": {
		freeText: true, orgFilter: true, maxLimit: 100,
		build: func(ctx context.Context, l lister, a *Args, limit int) (map[string]any, []string, error) {
			args := common(a, limit)
			if a.Organization != "" {
				org, err := resolveOrg(ctx, l, "obv_list_sources", map[string]any{"implemented_only": true}, a.Organization)
				if err != nil {
					return nil, nil, err
				}
				args["organization"] = org.ID
			}
			return args, nil, nil
		},
	},
	"ori": {
		freeText: true, orgFilter: true, maxLimit: 50,
		caveat: "ORI Classic was announced to close in autumn 2026 and indexes the same councils as OpenBesluitvorming (obv)",
		build: func(ctx context.Context, l lister, a *Args, limit int) (map[string]any, []string, error) {
			args := common(a, limit)
			if a.Organization != "" {
				org, err := resolveOrg(ctx, l, "ori_list_organizations", map[string]any{}, a.Organization)
				if err != nil {
					return nil, nil, err
				}
				args["organization"] = org.ID
			}
			return args, []string{"ORI Classic was announced to close in autumn 2026; OpenBesluitvorming (obv) indexes the same councils and may list the same documents under other ids."}, nil
		},
	},
	"tk": {
		freeText: true, maxLimit: 250,
		caveat: "the Tweede Kamer API has no full-text search: words are matched in document titles and subjects only",
		build: func(_ context.Context, _ lister, a *Args, limit int) (map[string]any, []string, error) {
			return common(a, limit), nil, nil
		},
	},
	"opentk": {
		freeText: true, maxLimit: 100,
		caveat: "OpenTK returns at most 280 rows per search, newest indexed first; dates are filtered within those",
		build: func(_ context.Context, _ lister, a *Args, limit int) (map[string]any, []string, error) {
			return common(a, limit), nil, nil
		},
	},
	"obk": {
		freeText: true, orgFilter: true, maxLimit: 100,
		build: func(_ context.Context, _ lister, a *Args, limit int) (map[string]any, []string, error) {
			args := common(a, limit)
			if a.Organization != "" {
				// The platform matches the publishing body's name by its
				// words, without the kind of body.
				args["organization"] = stripKind(a.Organization)
			}
			return args, nil, nil
		},
	},
	"openarchivaris": {
		freeText: true, orgFilter: true, maxLimit: 50,
		caveat: "Open Archivaris's API is unverified",
		build: func(ctx context.Context, l lister, a *Args, limit int) (map[string]any, []string, error) {
			args := common(a, limit)
			if a.Organization != "" {
				// The search takes the government's name as the list gives it.
				org, err := resolveOrg(ctx, l, "openarchivaris_list_governments", map[string]any{}, a.Organization)
				if err != nil {
					return nil, nil, err
				}
				args["government"] = org.Title
			}
			return args, nil, nil
		},
	},
	"rechtspraak": {
		freeText: false, orgFilter: true, maxLimit: 100,
		caveat: "Rechtspraak's index has no free-text search: when named, it is searched by its filters only (organization as the court, the dates as the decision date), never by the query",
		build: func(ctx context.Context, l lister, a *Args, limit int) (map[string]any, []string, error) {
			if a.Organization == "" && a.DateFrom == "" && a.DateTo == "" {
				return nil, nil, &skip{"Rechtspraak's index has no free-text search, and without organization (a court) or dates there is nothing to filter on; use rechtspraak_search with a court, subject or dates"}
			}
			args := map[string]any{"limit": limit}
			if a.Organization != "" {
				court, err := resolveOrg(ctx, l, "rechtspraak_list_courts", map[string]any{}, a.Organization)
				if err != nil {
					return nil, nil, err
				}
				args["court"] = court.ID
			}
			if a.DateFrom != "" || a.DateTo != "" {
				// The index takes a date range only whole.
				from, to := a.DateFrom, a.DateTo
				if from == "" {
					from = "1800-01-01"
				}
				if to == "" {
					to = a.today
				}
				args["date_from"], args["date_to"] = from, to
			}
			return args, []string{"The query was NOT applied: Rechtspraak has no free-text search. These are the most recently modified decisions that match the filters; judge them by their summaries."}, nil
		},
	},
}

// common is query, dates and limit, which every free-text search takes
// under these names.
func common(a *Args, limit int) map[string]any {
	args := map[string]any{"query": a.Query, "limit": limit}
	if a.DateFrom != "" {
		args["date_from"] = a.DateFrom
	}
	if a.DateTo != "" {
		args["date_to"] = a.DateTo
	}
	return args
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
func resolveOrg(ctx context.Context, l lister, tool string, args map[string]any, want string) (sdk.Item, error) {
	items, err := l(ctx, tool, args)
	if err != nil {
		return sdk.Item{}, fmt.Errorf("looking up organization %q with %s: %w", want, tool, err)
	}
	w := foldName(want)
	wk := foldName(stripKind(want))
	for _, pass := range []func(it sdk.Item) bool{
		func(it sdk.Item) bool { return foldName(it.ID) == w || foldName(it.Title) == w },
		func(it sdk.Item) bool {
			return foldName(stripKind(it.Title)) == wk || foldName(it.ID) == wk
		},
		// An abbreviation the platform gives (a court's "HR", "RBAMS").
		func(it sdk.Item) bool {
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
	return sdk.Item{}, &skip{fmt.Sprintf("organization %q is not among this platform's organisations (see %s)", want, tool)}
}

// listItems reads a list tool's result.
func listItems(text string, structured any) ([]sdk.Item, error) {
	var l sdk.ListResult
	var raw []byte
	switch s := structured.(type) {
	case json.RawMessage:
		raw = s
	case nil:
		raw = []byte(text)
	default:
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("the list is not the expected JSON: %v", err)
	}
	return l.Items, nil
}
