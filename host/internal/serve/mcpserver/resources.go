package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var templateVar = regexp.MustCompile(`\{\+?([a-z_][a-z0-9_]*)\}`)

// compileTemplate turns "besluitbron://<id>/document/{+entity_id}" into a
// matcher; the last variable may contain slashes. Connectors use RFC 6570
// reserved expansion ({+var}) for ids with colons, such as ECLIs and
// OpenBesluitvorming entity ids, so clients may write them unencoded.
func compileTemplate(t string) (*regexp.Regexp, []string) {
	var names []string
	locs := templateVar.FindAllStringSubmatchIndex(t, -1)
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for i, l := range locs {
		b.WriteString(regexp.QuoteMeta(t[last:l[0]]))
		names = append(names, t[l[2]:l[3]])
		if i == len(locs)-1 {
			b.WriteString("(.+)")
		} else {
			b.WriteString("([^/]+)")
		}
		last = l[1]
	}
	b.WriteString(regexp.QuoteMeta(t[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String()), names
}

func (s *Server) addResource(p *Platform, r connector.ResourceTemplate, one *mcp.Server) error {
	e, ok := s.tools[p.Manifest.ID+"_"+r.Tool]
	if !ok {
		return fmt.Errorf("connector %q resource %q: no tool %q", p.Manifest.ID, r.Name, r.Tool)
	}
	uriTemplate := p.presentURI(r.URITemplate)
	re, names := compileTemplate(uriTemplate)
	mime := r.MIMEType
	if mime == "" {
		mime = "application/json"
	}
	h := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		m := re.FindStringSubmatch(req.Params.URI)
		if m == nil {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		args := map[string]string{}
		for i, n := range names {
			v, err := url.PathUnescape(m[i+1])
			if err != nil {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			args[n] = v
		}
		raw, _ := json.Marshal(args)
		caller := callerOf(ctx, req.Session, req.Extra)
		info := &callinfo.Info{Session: callinfo.ChargedTo(caller), Label: callinfo.Label(caller)}
		res := s.run(ctx, info, e, raw)
		if res.IsError {
			text := ""
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					text += t.Text
				}
			}
			return nil, fmt.Errorf("%s", text)
		}
		contents := readContents(req.Params.URI, mime, res)
		if r.Subscribable {
			var all []byte
			for _, c := range contents {
				all = append(append(all, c.Text...), c.Blob...)
			}
			changed := s.watches[""].seen(req.Params.URI, all)
			if changed {
				go s.ResourceUpdated(context.WithoutCancel(ctx), req.Params.URI)
			}
		}
		return &mcp.ReadResourceResult{Contents: contents, Cacheable: readCacheable(info.Summary(), s.now())}, nil
	}
	if len(names) == 0 {
		// No variables: one resource, listed by resources/list.
		rs := &mcp.Resource{Name: r.Name, URI: uriTemplate, Description: r.Description, MIMEType: mime}
		if r.Subscribable {
			rs.Meta = subscribableMeta()
			s.watches[""].add(uriTemplate)
			s.watches[p.Manifest.ID].add(uriTemplate)
		}
		one.AddResource(rs, h)
		s.unified.AddResource(rs, h)
		return nil
	}
	if r.Subscribable {
		return fmt.Errorf("connector %q resource %q: subscribable, but %s has variables: only one fixed URI can be subscribed to", p.Manifest.ID, r.Name, r.URITemplate)
	}
	rt := &mcp.ResourceTemplate{Name: r.Name, URITemplate: uriTemplate, Description: r.Description, MIMEType: mime}
	one.AddResourceTemplate(rt, h)
	s.unified.AddResourceTemplate(rt, h)
	return nil
}

var promptVar = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

func (s *Server) addPrompt(p *Platform, pr connector.Prompt, one *mcp.Server) error {
	mp := &mcp.Prompt{Name: p.toolName(pr.Name), Description: pr.Description}
	if err := s.claim(mp.Name, "connector "+strconv.Quote(p.Manifest.ID)); err != nil {
		return err
	}
	s.prompts[mp.Name] = pr
	for _, a := range pr.Arguments {
		mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	h := func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		for _, a := range pr.Arguments {
			if a.Required && strings.TrimSpace(req.Params.Arguments[a.Name]) == "" {
				return nil, fmt.Errorf("prompt %s: argument %q is required", mp.Name, a.Name)
			}
		}
		var asked map[string]string
		if pr.Ask != nil {
			var q *mcp.GetPromptResult
			var err error
			if asked, q, err = askForPrompt(ctx, p, mp.Name, *pr.Ask, req); q != nil || err != nil {
				return q, err
			}
		}
		fill := func(t string) string {
			return promptVar.ReplaceAllStringFunc(t, func(m string) string {
				name := promptVar.FindStringSubmatch(m)[1]
				if v, ok := req.Params.Arguments[name]; ok {
					return v
				}
				return asked[name]
			})
		}
		if len(pr.Messages) == 0 {
			return &mcp.GetPromptResult{Description: pr.Description, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fill(pr.Template)}}}}, nil
		}
		out := &mcp.GetPromptResult{Description: pr.Description}
		for i, m := range pr.Messages {
			c := m.Content
			c.Text, c.URI = fill(c.Text), fill(c.URI)
			mc, err := p.content(c)
			if err != nil {
				return nil, fmt.Errorf("prompt %s: message %d: %v (check the arguments)", mp.Name, i, err)
			}
			out.Messages = append(out.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: mc})
		}
		return out, nil
	}
	one.AddPrompt(mp, h)
	s.unified.AddPrompt(mp, h)
	return nil
}

// askForPrompt asks the user a prompt's form (connector.Prompt.Ask) and
// returns the answer's string fields, which fill the prompt. A client of
// MCP 2026-07-28 gets the form in the result (q, input_required) until it
// sends the answer under the form's key; an older one is asked during the
// request (elicitation/create). A client that cannot be asked, an admin
// who did not grant elicitation and a user who declines are errors
// saying so (the prompt cannot be filled without the answer).
func askForPrompt(ctx context.Context, p *Platform, name string, ask connector.ElicitRequest, req *mcp.GetPromptRequest) (map[string]string, *mcp.GetPromptResult, error) {
	if !slices.Contains(p.Grant, connector.FeatureElicitation) {
		return nil, nil, fmt.Errorf("prompt %s asks the user a question, but the administrator has not granted connector %s elicitation (connectors.%s.grant)", name, p.Manifest.ID, p.Manifest.ID)
	}
	c := sessionClient{req.Session}
	schema := ask.RequestedSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	params := &mcp.ElicitParams{Mode: "form", Message: ask.Message, RequestedSchema: schema}
	var res *mcp.ElicitResult
	switch {
	case req.Session == nil:
		return nil, nil, fmt.Errorf("prompt %s asks the user a question, and no client can be asked", name)
	case !c.declared(connector.FeatureElicitation) && modernSession(req.Session):
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{connector.FeatureElicitation: map[string]any{}}})
		return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
			Message: fmt.Sprintf("Missing required client capability: prompt %s asks the user a question (elicitation)", name)}
	case modernSession(req.Session):
		key := ask.Key
		if key == "" {
			key = placeKey(connector.FeatureElicitation, 1)
		}
		a, ok := req.Params.InputResponses[key].(*mcp.ElicitResult)
		if !ok || a == nil {
			// Asked (again, when the answer is missing or of another
			// kind), as mrtr.mdx has a server re-request what it lacks.
			return nil, &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{key: params}}, nil
		}
		res = a
	default:
		if err := c.capable(connector.FeatureElicitation); err != nil {
			return nil, nil, fmt.Errorf("prompt %s asks the user a question: %v", name, err)
		}
		var err error
		if res, err = req.Session.Elicit(ctx, params); err != nil {
			return nil, nil, fmt.Errorf("prompt %s: asking the user: %v", name, err)
		}
	}
	if res.Action != connector.ElicitAccept {
		return nil, nil, fmt.Errorf("prompt %s: the user did not answer its question (%s)", name, res.Action)
	}
	out := map[string]string{}
	for k, v := range res.Content {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out, nil, nil
}
