package mcpserver

import (
	"regexp"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// Owners says which connector serves a name clients use, as the host
// registered it: tools by the name clients call (after
// connectors.<id>.tool_prefix), resources by their URI (after
// connectors.<id>.resource_base). The client limits charge a call on the
// unified address to that connector. It is read-only and safe for
// concurrent use.
type Owners struct {
	tools     map[string]string
	resources []resourceOwner
}

type resourceOwner struct {
	re *regexp.Regexp
	id string
}

// Owners returns the connector behind every tool and resource of the
// unified address; the host's own tools have none.
func (s *Server) Owners() *Owners {
	o := &Owners{tools: make(map[string]string, len(s.tools))}
	for _, e := range s.tools {
		o.tools[e.name] = e.platform.Manifest.ID
	}
	for i := range s.o.Platforms {
		p := &s.o.Platforms[i]
		for _, r := range p.Manifest.Resources {
			re, _ := compileTemplate(p.presentURI(r.URITemplate))
			o.resources = append(o.resources, resourceOwner{re, p.Manifest.ID})
		}
	}
	return o
}

// Tool names the connector serving the tool clients call name.
func (o *Owners) Tool(name string) (id string, ok bool) {
	id, ok = o.tools[name]
	return id, ok
}

// Resource names the connector whose resource template uri matches, as
// resources/read matches it.
func (o *Owners) Resource(uri string) (id string, ok bool) {
	for _, r := range o.resources {
		if r.re.MatchString(uri) {
			return r.id, true
		}
	}
	return "", false
}

// Route names the connector bucket of the client limits a message sent to
// an MCP address counts against: the address's own connector, or on the
// addresses serving every connector (/mcp/unified/v1, /sse) the owner of
// the tool or resource it names, else inbound.NoConnector. Other
// addresses are not MCP addresses (false).
func (s *Server) Route() func(address string, m inbound.Message) (string, bool) {
	owners := s.Owners()
	fixed := make(map[string]string, len(s.ids))
	for _, id := range s.ids {
		fixed["/mcp/"+id+"/v1"] = id
	}
	return func(address string, m inbound.Message) (string, bool) {
		if id, ok := fixed[address]; ok {
			return id, true
		}
		if address != "/mcp/unified/v1" && address != "/sse" {
			return "", false
		}
		switch m.Method {
		case "tools/call":
			if id, ok := owners.Tool(m.Tool); ok {
				return id, true
			}
		case "resources/read":
			if id, ok := owners.Resource(m.URI); ok {
				return id, true
			}
		}
		return inbound.NoConnector, true
	}
}
