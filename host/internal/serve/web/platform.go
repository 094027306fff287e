package web

import (
	"encoding/json"
	"slices"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// PlatformOf describes connector id's platform to the pages from its
// manifest alone, so that a connector written elsewhere gets the same
// page as the repository's: the search tool and its arguments from the
// search profile (read as besluitbron_search reads them), the
// organisation choice, the record types' labels, and how its document
// tool takes an id. ok is false for a connector that declares no search
// profile: the page has no way to search it.
func PlatformOf(id string, m connector.Manifest) (Platform, bool) {
	sp := m.SearchProfile
	if sp == nil {
		return Platform{}, false
	}
	tool := func(name string) (connector.Tool, bool) {
		i := slices.IndexFunc(m.Tools, func(t connector.Tool) bool { return t.Name == name })
		if i < 0 {
			return connector.Tool{}, false
		}
		return m.Tools[i], true
	}
	search, ok := tool(sp.Tool)
	if !ok {
		return Platform{}, false
	}
	p := Platform{ID: id, Title: m.Title, TitleNL: m.TitleNL, Description: m.Description, DescriptionNL: m.DescriptionNL,
		SearchTool: id + "_" + sp.Tool, Profile: sp, Keys: sp.Keys, Types: m.TypeLabels}
	// The manifest's organisation choice, when the search tool has the
	// argument (validation already checked the list tool exists): a
	// choice the tool would refuse is no choice.
	var ss schemaInfo
	_ = json.Unmarshal(search.InputSchema, &ss)
	if mf := m.SearchFilter; mf != nil && ss.has(mf.Arg) {
		f := Filter{Arg: mf.Arg, LabelNL: mf.LabelNL, LabelEN: mf.LabelEN}
		if _, ok := tool(mf.ListTool); ok && mf.ListTool != "" {
			f.ListTool = id + "_" + mf.ListTool
		}
		p.Filter = &f
	}
	if doc, ok := tool("get_document"); ok {
		var ds schemaInfo
		_ = json.Unmarshal(doc.InputSchema, &ds)
		arg := ""
		if len(ds.Required) > 0 {
			arg = ds.Required[0]
		} else if ds.has("id") {
			// The document as id, with an old name beside it (obv's
			// entity_id): neither is required by the schema.
			arg = "id"
		}
		if arg != "" {
			p.DocumentTool, p.DocumentArg = id+"_get_document", arg
			if c, ok := ds.Properties["category"]; ok {
				p.DocumentCategories = c.Enum
			}
		}
	}
	return p, true
}

// schemaInfo is the part of a tool's JSON schema the pages read.
type schemaInfo struct {
	Properties map[string]struct {
		Enum []string `json:"enum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func (s schemaInfo) has(name string) bool { _, ok := s.Properties[name]; return ok }
