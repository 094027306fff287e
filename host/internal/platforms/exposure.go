package platforms

import (
	"fmt"
	"slices"
	"strings"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

// Exposure is what the unified address (/mcp/unified/v1, /sse, stdio)
// serves, from connectors.<id>.expose and server.tools. Each connector's
// own address serves all of it regardless.
type Exposure struct {
	// OnUnified are the platforms served on the unified address: expose
	// not false and at least one tool matching server.tools.
	OnUnified []*Platform
	// Tools, Prompts and URIs are the connector tool, prompt and
	// resource names the unified address must not serve, as clients see
	// them.
	Tools, Prompts, URIs []string
	// Unified counts each connector's tools served on the unified address.
	Unified map[string]int
}

// ToolPrefix is the prefix clients see before a platform's tool and prompt
// names: connectors.<id>.tool_prefix, else "<id>_" (the config's contract,
// which the MCP edge implements when it registers them).
func ToolPrefix(p *Platform) string {
	if p.Config.ToolPrefix != nil {
		return *p.Config.ToolPrefix
	}
	return p.ID + "_"
}

// presentURI is a resource URI as clients see it, under
// connectors.<id>.resource_base when set.
func presentURI(p *Platform, uri string) string {
	if p.Config.ResourceBase == "" {
		return uri
	}
	if rest, ok := strings.CutPrefix(uri, "besluitbron://"+p.ID+"/"); ok {
		return p.Config.ResourceBase + rest
	}
	return uri
}

// PlanExposure decides what the unified address serves of the set's
// platforms under server.tools.
func (s *Set) PlanExposure() Exposure {
	e := Exposure{Unified: map[string]int{}}
	for _, p := range s.Platforms {
		var shown, hidden []string
		for _, t := range p.Manifest.Tools {
			name := ToolPrefix(p) + t.Name
			if p.Config.Expose && s.cfg.Server.ToolExposed(name) {
				shown = append(shown, name)
			} else {
				hidden = append(hidden, name)
			}
		}
		e.Tools = append(e.Tools, hidden...)
		e.Unified[p.ID] = len(shown)
		if len(shown) > 0 {
			e.OnUnified = append(e.OnUnified, p)
			continue
		}
		// A connector with no tool on the unified address takes its
		// prompts and resources with it: they lead to tools a client
		// there could not call.
		for _, pr := range p.Manifest.Prompts {
			e.Prompts = append(e.Prompts, ToolPrefix(p)+pr.Name)
		}
		for _, r := range p.Manifest.Resources {
			e.URIs = append(e.URIs, presentURI(p, r.URITemplate))
		}
	}
	return e
}

// ExposureWarnings are the start's words about server.tools and expose,
// given the names of the host's own tools: a pattern that matches no tool
// (a likely typo, e.g. "<id>-*"), and a unified address left with no tool
// at all.
func (s *Set) ExposureWarnings(e Exposure, hostTools []string) []string {
	names := slices.Clone(hostTools)
	for _, p := range s.Platforms {
		for _, t := range p.Manifest.Tools {
			names = append(names, ToolPrefix(p)+t.Name)
		}
	}
	var out []string
	for i, pat := range s.cfg.Server.Tools {
		one := config.Server{Tools: []string{pat}}
		if !slices.ContainsFunc(names, one.ToolExposed) {
			out = append(out, fmt.Sprintf("server.tools[%d] %q matches no tool (tool names are <id>_<tool>, such as <id>_search; see tools/list on /mcp/<id>/v1)", i, pat))
		}
	}
	served := len(hostTools)
	for _, n := range e.Unified {
		served += n
	}
	if served == 0 {
		out = append(out, "the unified address /mcp/unified/v1 serves no tool (connectors.<id>.expose and server.tools hide them all); each connector's own address /mcp/<id>/v1 still serves its tools")
	}
	for _, p := range s.Platforms {
		if p.Config.Expose && e.Unified[p.ID] == 0 && len(p.Manifest.Tools) > 0 {
			out = append(out, fmt.Sprintf("connector %s: server.tools matches none of its tools, so the unified address does not serve it (its own address /mcp/%s/v1 does)", p.ID, p.ID))
		}
	}
	return out
}

// Instructions tell a client of the unified address which platforms it
// serves, by the prefix of their tools.
func (e Exposure) Instructions() string {
	s := "BesluitBron searches and reads Dutch public decision-making. Tools are prefixed by platform:"
	for _, p := range e.OnUnified {
		if pfx := ToolPrefix(p); pfx != "" {
			s += fmt.Sprintf(" %s = %s;", pfx, p.Manifest.Title)
		}
	}
	return s + " Each tool's description says what it costs; prefer the cheaper route when it also answers the question. Cite results by their url."
}
