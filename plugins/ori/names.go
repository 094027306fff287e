package ori

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// orgNames are the human names of organisation keys ("soest" → "Gemeente
// Soest"), or why they could not be looked up.
type orgNames struct {
	byKey map[string]string
	err   error
}

// lookupNames reads the organisations with the very request
// ori_list_organizations makes (all classifications), so the answer is
// the one the host keeps for that tool, 30 days in the list cache class:
// after the first call of the month it costs no request to the platform.
// A failure is kept, not returned: the results then show the keys and a
// note says why.
func lookupNames(ctx context.Context, h connector.Host) orgNames {
	res, err := listOrganizations(ctx, h, json.RawMessage(`{}`))
	if err != nil {
		return orgNames{err: err}
	}
	l, _ := res.(sdk.ListResult)
	names := map[string]string{}
	for _, it := range l.Items {
		// An entry without a classification is not an organisation
		// record (the request filters on it), whatever else answered.
		if it.Type == "" || it.Title == "" || it.Title == it.ID {
			continue
		}
		names[it.ID] = HumanName(it.Title, it.Type)
	}
	return orgNames{byKey: names}
}

// name is the human name of an organisation key, or the key itself when
// the platform lists none for it.
func (n orgNames) name(key string) string {
	if v := n.byKey[key]; v != "" {
		return v
	}
	return key
}

// note says, when the lookup failed, that organization holds keys.
func (n orgNames) note() string {
	if n.err == nil {
		return ""
	}
	// The first sentence says what failed; the rest (what it means for
	// the switch-off) belongs to a tool error, not to a note.
	why := strings.TrimPrefix(n.err.Error(), "list_organizations: ")
	if i := strings.Index(why, ". "); i > 0 {
		why = why[:i]
	}
	return fmt.Sprintf("Organisation names could not be looked up (%s); organization holds ORI's keys, as extra.ori.organization_key does.", clip(why, 200))
}

// bodies are the words a name starts with when it already says what kind
// of body it is ("Provincie Zuid-Holland", "Gemeenteraad Soest").
var bodies = []string{"gemeente", "provincie", "provinciale", "waterschap", "hoogheemraadschap", "wetterskip", "waterschappen", "staten", "raad", "college"}

// HumanName is how people name an organisation: ORI names a municipality
// by its place ("Soest"), which becomes "Gemeente Soest"; a province or
// water board likewise. A name that already says what it is stays.
func HumanName(name, classification string) string {
	name = strings.TrimSpace(name)
	lower := strings.ToLower(name)
	for _, b := range bodies {
		if strings.HasPrefix(lower, b) {
			return name
		}
	}
	switch classification {
	case "municipality":
		return "Gemeente " + name
	case "province":
		return "Provincie " + name
	case "water":
		if strings.Contains(lower, "waterschap") || strings.Contains(lower, "hoogheemraadschap") || strings.Contains(lower, "wetterskip") {
			return name
		}
		return "Waterschap " + name
	}
	return name
}
