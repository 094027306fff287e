package ori

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
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
	return namesOf(orgList(ctx, h))
}

// orgList is ori_list_organizations' answer for all classifications.
func orgList(ctx context.Context, h connector.Host) (sdk.ListResult, error) {
	res, err := listOrganizations(ctx, h, json.RawMessage(`{}`))
	if err != nil {
		return sdk.ListResult{}, err
	}
	l, _ := res.(sdk.ListResult)
	return l, nil
}

// namesOf are the human names of a list, or why there are none.
func namesOf(l sdk.ListResult, err error) orgNames {
	if err != nil {
		return orgNames{err: err}
	}
	names := map[string]string{}
	for _, it := range l.Items {
		// An entry without a classification is not an organisation
		// record (the request filters on it), whatever else answered.
		if it.Type == "" || it.Title == "" || it.Title == it.ID {
			continue
		}
		names[it.ID] = orgname.ResultLabel(it.Title, it.Type, it.ID)
	}
	return orgNames{byKey: names}
}

// orgsOf are a list's organisations as the resolver reads them.
func orgsOf(l sdk.ListResult) []orgname.Org {
	out := make([]orgname.Org, 0, len(l.Items))
	for _, it := range l.Items {
		out = append(out, orgname.Org{Key: it.ID, Name: it.Title, Kind: orgname.OrgKind(it.Type)})
	}
	return out
}

// resolveOrganization reads the organization argument, a key or a name,
// as the keys of the organisations it means ([orgname.ResolveOrg]), with the
// organisation names for the results (one list request for both). A
// name that fits several organisations is asked about when ask is set,
// and otherwise means all of them (get_document looks in each); a key
// is taken as it is, and a key-shaped argument the list lacks goes to
// the platform as before, which says whether it has such an index.
func resolveOrganization(ctx context.Context, h connector.Host, given string, ask bool) ([]string, orgNames, []string, error) {
	l, err := orgList(ctx, h)
	names := namesOf(l, err)
	if err != nil {
		if keyPattern.MatchString(given) {
			return []string{given}, names, nil, nil
		}
		why := strings.TrimPrefix(err.Error(), "list_organizations: ")
		return nil, names, nil, fmt.Errorf("argument \"organization\": %q is not a key (like \"den_helder\"), and the list of organisations to look the name up in could not be read: %s", clip(given, 100), clip(why, 300))
	}
	arg := orgname.OrgArg{Arg: "organization", Given: given, ListTool: "ori_list_organizations", Platform: "Open Raadsinformatie", KeyShaped: keyPattern.MatchString}
	if !ask {
		keys, notes, err := orgname.OrgKeys(orgsOf(l), arg)
		return keys, names, notes, err
	}
	o, notes, err := orgname.ResolveOrg(ctx, h, orgsOf(l), arg)
	if err != nil {
		return nil, names, nil, err
	}
	return []string{o.Key}, names, notes, nil
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

// HumanName is how people name an organisation: ORI names a municipality
// by its place ("Soest"), which becomes "Gemeente Soest"; a province or
// water board likewise. A name that already says what it is stays, and
// an abbreviated province after it is written out ("Bergen (L)" is
// "Gemeente Bergen (Limburg)").
//
// It is [orgname.ResultLabel] without a key, which every council
// platform's results use, so that one organisation has one label.
func HumanName(name, classification string) string {
	return orgname.ResultLabel(name, classification, "")
}
