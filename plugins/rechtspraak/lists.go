package rechtspraak

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// valueList is one of the platform's waardelijsten.
type valueList struct {
	// Name is the list's name in results ("courts").
	Name string
	// Path is the platform's path ("/Waardelijst/Instanties").
	Path string
	// Root is the expected root element, "" for any.
	Root string
}

var (
	courtsList         = valueList{"courts", "/Waardelijst/Instanties", "Instanties"}
	foreignCourtsList  = valueList{"foreign_courts", "/Waardelijst/InstantiesBuitenlands", ""}
	subjectsList       = valueList{"subjects", "/Waardelijst/Rechtsgebieden", "Rechtsgebieden"}
	procedureTypesList = valueList{"procedure_types", "/Waardelijst/Proceduresoorten", "Proceduresoorten"}
)

// ValueListURL is the request for a value list.
func ValueListURL(base string, l valueList) string {
	return strings.TrimRight(base, "/") + l.Path
}

// waarde is one entry of a value list. The lists are flat records of
// Identifier, Naam, …, except Rechtsgebieden, whose entries nest once.
type waarde struct {
	Identifier string   `xml:"Identifier"`
	Naam       string   `xml:"Naam"`
	Afkorting  string   `xml:"Afkorting"`
	Type       string   `xml:"Type"`
	BeginDate  string   `xml:"BeginDate"`
	EndDate    string   `xml:"EndDate"`
	Children   []waarde `xml:"Rechtsgebied"`
}

type waardelijst struct {
	XMLName xml.Name
	Items   []waarde `xml:",any"`
}

// fetchList reads a value list, cached as a list.
func fetchList(ctx context.Context, h connector.Host, l valueList) ([]waarde, error) {
	what := "value list " + l.Path
	resp, err := sdk.Get(ctx, h, ValueListURL(BaseURL, l), ServiceSearch, 1, connector.ClassList)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := statusError(resp); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var wl waardelijst
	if err := xml.Unmarshal(resp.Body, &wl); err != nil {
		return nil, fmt.Errorf("%s: the platform's response is not the expected XML: %v", what, err)
	}
	if l.Root != "" && wl.XMLName.Local != l.Root {
		return nil, fmt.Errorf("%s: the platform answered <%s> where <%s> was expected", what, wl.XMLName.Local, l.Root)
	}
	if len(wl.Items) == 0 {
		return nil, fmt.Errorf("%s: the platform's list is empty", what)
	}
	for i, w := range wl.Items {
		if strings.TrimSpace(w.Identifier) == "" {
			return nil, fmt.Errorf("%s: entry %d has no Identifier", what, i+1)
		}
	}
	return wl.Items, nil
}

func listItems(ws []waarde, parent *waarde) []sdk.Item {
	var out []sdk.Item
	for _, w := range ws {
		extra := map[string]any{}
		set := func(k, v string) {
			if v = strings.TrimSpace(v); v != "" {
				extra[k] = v
			}
		}
		set("abbreviation", w.Afkorting)
		set("begin_date", sdk.ISODate(w.BeginDate))
		set("end_date", sdk.ISODate(w.EndDate))
		if parent != nil {
			set("parent", parent.Naam)
			// The label a judgement shows, which subject takes too.
			set("label", strings.TrimSpace(parent.Naam)+"; "+strings.TrimSpace(w.Naam))
			set("parent_id", parent.Identifier)
		}
		it := sdk.Item{ID: strings.TrimSpace(w.Identifier), Type: strings.TrimSpace(w.Type), Title: strings.TrimSpace(w.Naam)}
		if len(extra) > 0 {
			it.Extra = map[string]map[string]any{ID: extra}
		}
		out = append(out, it)
		out = append(out, listItems(w.Children, &w)...)
	}
	return out
}

func listTool(ctx context.Context, h connector.Host, l valueList, tool string) (any, error) {
	items, err := fetchList(ctx, h, l)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	out := sdk.ListResult{Platform: ID, List: l.Name, Items: listItems(items, nil)}
	out.Count = len(out.Items)
	return out, nil
}

func listCourts(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a struct {
		Foreign bool `json:"foreign"`
	}
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	l := courtsList
	if a.Foreign {
		l = foreignCourtsList
	}
	return listTool(ctx, h, l, "list_courts")
}

func listSubjects(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	if err := sdk.DecodeArgs(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return listTool(ctx, h, subjectsList, "list_subjects")
}

func listProcedureTypes(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	if err := sdk.DecodeArgs(raw, &struct{}{}); err != nil {
		return nil, err
	}
	return listTool(ctx, h, procedureTypesList, "list_procedure_types")
}

// resolve turns a court or subject given by abbreviation or name into the
// identifier the index filters on. An identifier (a URI) is used as given:
// the platform knows more historic ones than an assistant needs resolved.
// Names are compared folded (case, diacritics, punctuation), and a
// sub-area of law is also known by the label judgements show for it,
// "Civiel recht; Arbeidsrecht", which tells apart the two
// Mededingingsrecht. A value that fits nothing is answered with the
// closest names ([sdk.UnknownValue]).
func resolve(ctx context.Context, h connector.Host, l valueList, arg, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return v, nil
	}
	ws, err := fetchList(ctx, h, l)
	if err != nil {
		return "", fmt.Errorf("search: resolving %s %q: %w", arg, v, err)
	}
	want := sdk.Folded(v)
	var match []sdk.Item
	var labels []string
	for _, it := range listItems(ws, nil) {
		label := itemLabel(it)
		labels = append(labels, label)
		abbr, _ := it.Extra[ID]["abbreviation"].(string)
		if sdk.Folded(it.Title) == want || sdk.Folded(label) == want || (abbr != "" && sdk.Folded(abbr) == want) {
			match = append(match, it)
		}
	}
	switch len(match) {
	case 1:
		return match[0].ID, nil
	case 0:
		return "", sdk.UnknownValue(arg, v, labels, "rechtspraak_list_"+l.Name)
	default:
		var alts []string
		for _, m := range match {
			if label := itemLabel(m); label != m.Title {
				alts = append(alts, fmt.Sprintf("%q", label))
			} else {
				alts = append(alts, m.ID)
			}
		}
		return "", fmt.Errorf("argument %q: %q is ambiguous, pass one of %s", arg, v, strings.Join(alts, ", "))
	}
}

// itemLabel is how the platform writes a list entry on a judgement: a
// sub-area of law after its area ("Civiel recht; Arbeidsrecht"), anything
// else by its name.
func itemLabel(it sdk.Item) string {
	if p, _ := it.Extra[ID]["parent"].(string); p != "" {
		return p + "; " + it.Title
	}
	return it.Title
}
