package obv

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// keyPattern is the shape of a source key (soest, den-helder, bergen_nh,
// provincie-utrecht, all_notubiz): an argument of this shape that the
// source list lacks still goes to the platform, which answers whether it
// knows it, as it did before names were looked up.
var keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,99}$`)

// sourceOrgs are the platform's sources as the resolver reads them. It
// reads every source, implemented or not: the platform's search takes
// any key /api/sources lists (a source withdrawn from importing still
// holds years of documents). The request is list_sources' own with
// implemented_only false, kept 30 days in the list cache class.
func sourceOrgs(ctx context.Context, h connector.Host) ([]orgname.Org, error) {
	res, err := listSources(ctx, h, json.RawMessage(`{"implemented_only":false}`))
	if err != nil {
		return nil, err
	}
	l, _ := res.(sdk.ListResult)
	out := make([]orgname.Org, 0, len(l.Items))
	for _, it := range l.Items {
		cbs, _ := it.Extra[ID]["cbs_id"].(string)
		out = append(out, orgname.Org{Key: it.ID, Name: it.Title, Kind: orgname.OrgKind(it.Type), CBS: cbs})
	}
	return out, nil
}

// resolveOrganization reads search's organization argument, a source key
// or a name, as one source key ([orgname.ResolveOrg]): a name of several sources
// ("Bergen", "Groningen", "Utrecht", "Limburg") is asked about through
// elicitation, or the tool error lists the candidates. When the source
// list cannot be read, a key-shaped argument goes to the platform as it
// is and a name fails saying why.
func resolveOrganization(ctx context.Context, h connector.Host, given string) (string, []string, error) {
	orgs, err := sourceOrgs(ctx, h)
	if err != nil {
		if keyPattern.MatchString(given) {
			return given, []string{fmt.Sprintf("The source list could not be read to check organization %q (%s); it went to the platform as a key.", clip(given, 100), clip(strings.TrimPrefix(err.Error(), "list_sources: "), 200))}, nil
		}
		return "", nil, fmt.Errorf("argument \"organization\": %q is not a source key (like \"den-helder\"), and the source list to look the name up in could not be read: %s", clip(given, 100), clip(strings.TrimPrefix(err.Error(), "list_sources: "), 300))
	}
	o, notes, err := orgname.ResolveOrg(ctx, h, orgs, orgname.OrgArg{Arg: "organization", Given: given, ListTool: "obv_list_sources", Platform: "OpenBesluitvorming", KeyShaped: keyPattern.MatchString})
	if err != nil {
		return "", nil, err
	}
	return o.Key, notes, nil
}

// clip shortens s to at most n bytes (on a rune boundary) and marks the
// cut, so an echoed argument or upstream message keeps a tool error short.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
