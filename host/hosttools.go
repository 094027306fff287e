package host

import (
	"fmt"
	"slices"
	"strings"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
)

// hostTools are the tools the host itself serves on the unified address:
// the cross-platform search over the connectors served there, and the load
// status. server.tools may leave either out.
func (h *Host) hostTools(onUnified []*platform) []mcpserver.HostTool {
	// searchTools builds besluitbron_search over h.platforms, read once
	// while building (the handler calls tools by name through h.mcp): it
	// is shown only the connectors the unified address serves, so the
	// search neither lists nor queries a connector the admin hid there.
	// TestExposeHidesConnector fails if that stops being true.
	all := h.platforms
	h.platforms = onUnified
	search := h.searchTools()
	h.platforms = all
	var out []mcpserver.HostTool
	for _, t := range append(search, h.statusTools()...) {
		if h.cfg.Server.ToolExposed(t.Tool.Name) {
			out = append(out, t)
		}
	}
	return out
}

// exposure is what the unified address (/mcp/unified/v1, /sse, stdio)
// serves, from connectors.<id>.expose and server.tools. Each connector's
// own address serves all of it regardless.
type exposure struct {
	// onUnified are the platforms served on the unified address: expose
	// not false and at least one tool matching server.tools.
	onUnified []*platform
	// hidden are the connector tool, prompt and resource names the
	// unified address must not serve, as clients see them.
	tools, prompts, uris []string
	// unified counts each connector's tools served on the unified address.
	unified map[string]int
}

// toolPrefix is the prefix clients see before a platform's tool and prompt
// names: connectors.<id>.tool_prefix, else "<id>_" (the config's contract,
// which mcpserver implements when it registers them).
func (p *platform) toolPrefix() string {
	if p.cfg.ToolPrefix != nil {
		return *p.cfg.ToolPrefix
	}
	return p.id + "_"
}

// presentURI is a resource URI as clients see it, under
// connectors.<id>.resource_base when set.
func (p *platform) presentURI(uri string) string {
	if p.cfg.ResourceBase == "" {
		return uri
	}
	if rest, ok := strings.CutPrefix(uri, "besluitbron://"+p.id+"/"); ok {
		return p.cfg.ResourceBase + rest
	}
	return uri
}

// planExposure decides what the unified address serves.
func (h *Host) planExposure() exposure {
	e := exposure{unified: map[string]int{}}
	for _, p := range h.platforms {
		var shown, hidden []string
		for _, t := range p.manifest.Tools {
			name := p.toolPrefix() + t.Name
			if p.cfg.Expose && h.cfg.Server.ToolExposed(name) {
				shown = append(shown, name)
			} else {
				hidden = append(hidden, name)
			}
		}
		e.tools = append(e.tools, hidden...)
		e.unified[p.id] = len(shown)
		if len(shown) > 0 {
			e.onUnified = append(e.onUnified, p)
			continue
		}
		// A connector with no tool on the unified address takes its
		// prompts and resources with it: they lead to tools a client
		// there could not call.
		for _, pr := range p.manifest.Prompts {
			e.prompts = append(e.prompts, p.toolPrefix()+pr.Name)
		}
		for _, r := range p.manifest.Resources {
			e.uris = append(e.uris, p.presentURI(r.URITemplate))
		}
	}
	return e
}

// exposureWarnings are the start's words about server.tools and expose:
// a pattern that matches no tool (a likely typo, e.g. "obv-*"), and a
// unified address left with no tool at all.
func (h *Host) exposureWarnings(e exposure, host []mcpserver.HostTool) []string {
	var names []string
	for _, p := range h.platforms {
		for _, t := range p.manifest.Tools {
			names = append(names, p.toolPrefix()+t.Name)
		}
	}
	for _, t := range host {
		names = append(names, t.Tool.Name)
	}
	var out []string
	for i, pat := range h.cfg.Server.Tools {
		if !slices.ContainsFunc(names, func(n string) bool { return onePatternMatches(pat, n) }) {
			out = append(out, fmt.Sprintf("server.tools[%d] %q matches no tool (tool names look like obv_search; see tools/list on /mcp/<id>/v1)", i, pat))
		}
	}
	served := len(host)
	for _, n := range e.unified {
		served += n
	}
	if served == 0 {
		out = append(out, "the unified address /mcp/unified/v1 serves no tool (connectors.<id>.expose and server.tools hide them all); each connector's own address /mcp/<id>/v1 still serves its tools")
	}
	for _, p := range h.platforms {
		if !p.cfg.Expose {
			continue
		}
		if e.unified[p.id] == 0 && len(p.manifest.Tools) > 0 {
			out = append(out, fmt.Sprintf("connector %s: server.tools matches none of its tools, so the unified address does not serve it (its own address /mcp/%s/v1 does)", p.id, p.id))
		}
	}
	return out
}

func onePatternMatches(pattern, name string) bool {
	return config.Server{Tools: []string{pattern}}.ToolExposed(name)
}
