package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// toolName is the name clients see for a connector's tool or prompt: the
// admin's prefix (connectors.<id>.tool_prefix) or "<id>_".
func (p *Platform) toolName(name string) string {
	if p.ToolPrefix != nil {
		return *p.ToolPrefix + name
	}
	return p.Manifest.ID + "_" + name
}

// presentURI rewrites a connector's own besluitbron://<id>/ URI under the
// admin's resource base (connectors.<id>.resource_base); other URIs pass.
func (p *Platform) presentURI(uri string) string {
	if p.ResourceBase == "" {
		return uri
	}
	if rest, ok := strings.CutPrefix(uri, "besluitbron://"+p.Manifest.ID+"/"); ok {
		return p.ResourceBase + rest
	}
	return uri
}

// content turns a connector's content item into MCP content, checking it
// first: a connector's output is never trusted.
func (p *Platform) content(c connector.Content) (mcp.Content, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	switch c.Type {
	case connector.ContentImage:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType}, nil
	case connector.ContentAudio:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType}, nil
	case connector.ContentResource:
		return &mcp.EmbeddedResource{Resource: p.resourceContents(c)}, nil
	default:
		return &mcp.TextContent{Text: c.Text}, nil
	}
}

func (p *Platform) resourceContents(c connector.Content) *mcp.ResourceContents {
	rc := &mcp.ResourceContents{URI: p.presentURI(c.URI), MIMEType: c.MIMEType, Text: c.Text}
	if len(c.Data) > 0 {
		rc.Blob = c.Data
	}
	return rc
}

// contents is the content list of a successful result: the text (when
// there is any, or nothing else), then the connector's items.
func (p *Platform) contents(text string, items []connector.Content) ([]mcp.Content, error) {
	var out []mcp.Content
	if text != "" || len(items) == 0 {
		out = append(out, &mcp.TextContent{Text: text})
	}
	for i, c := range items {
		mc, err := p.content(c)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %v", i, err)
		}
		out = append(out, mc)
	}
	return out, nil
}

// readContents turns a resource read's tool result into resource
// contents: text items become the resource's text, images and audio its
// bytes, embedded resources themselves (under the requested URI when they
// name none of their own).
func readContents(uri, mime string, res *mcp.CallToolResult) []*mcp.ResourceContents {
	var out []*mcp.ResourceContents
	text := ""
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text += c.Text
		case *mcp.ImageContent:
			out = append(out, &mcp.ResourceContents{URI: uri, MIMEType: c.MIMEType, Blob: c.Data})
		case *mcp.AudioContent:
			out = append(out, &mcp.ResourceContents{URI: uri, MIMEType: c.MIMEType, Blob: c.Data})
		case *mcp.EmbeddedResource:
			out = append(out, c.Resource)
		}
	}
	if text != "" || len(out) == 0 {
		out = append([]*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}, out...)
	}
	return out
}

// client is the MCP session a tool call came from, with its progress
// token (nil when the client asked for no progress).
type client struct {
	sess  *mcp.ServerSession
	token any
	mu    sync.Mutex
	last  float64 // the last progress sent: each must be greater
	sent  bool
}

type clientKey struct{}

// withClient records the call's session and progress token, so the
// connector's log lines and progress, and the host's queue positions, can
// reach the client.
func withClient(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Session == nil {
		return ctx
	}
	c := &client{sess: req.Session, token: req.Params.GetProgressToken()}
	ctx = context.WithValue(ctx, clientKey{}, c)
	// The connector's log lines go to this client too (clientHost).
	return invoke.WithHost(ctx, func(h connector.Host, id string) connector.Host {
		return clientHost{Host: h, c: c, logger: id}
	})
}

func clientFrom(ctx context.Context) *client {
	c, _ := ctx.Value(clientKey{}).(*client)
	return c
}

// progress sends a progress notification when the client asked for them
// and done is beyond the last one sent (the protocol wants it to grow).
func (c *client) progress(ctx context.Context, done, total float64, msg string) {
	if c.token == nil {
		return
	}
	c.mu.Lock()
	if c.sent && done <= c.last {
		c.mu.Unlock()
		return
	}
	c.last, c.sent = done, true
	c.mu.Unlock()
	// A failed notification must not fail the call.
	_ = c.sess.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: c.token, Progress: done, Total: total, Message: msg})
}

// bump reports one more step of the host's own (a queue position).
func (c *client) bump(ctx context.Context, msg string) {
	c.mu.Lock()
	next := c.last + 1
	c.mu.Unlock()
	c.progress(ctx, next, 0, msg)
}

// clientHost is the host a connector sees during a call from an MCP
// session: its log lines go to the server log and to the client as
// notifications/message at the level the client chose (logging/setLevel;
// nothing until it chooses one), and its progress reports to the client.
type clientHost struct {
	connector.Host
	c      *client
	logger string
}

// Log implements connector.Host.
func (h clientHost) Log(ctx context.Context, level int, msg string) {
	h.Host.Log(ctx, level, msg)
	// A client that went away must not fail the call.
	_ = h.c.sess.Log(ctx, &mcp.LoggingMessageParams{Level: mcpLevel(level), Logger: h.logger, Data: msg})
}

// Progress implements connector.Progresser.
func (h clientHost) Progress(ctx context.Context, done, total float64, msg string) {
	h.c.progress(ctx, done, total, msg)
}

// TextPage implements connector.TextStore when the underlying host does.
func (h clientHost) TextPage(ctx context.Context, key connector.TextKey, n int) (connector.TextPage, bool, error) {
	if ts, ok := h.Host.(connector.TextStore); ok {
		return ts.TextPage(ctx, key, n)
	}
	return connector.TextPage{}, false, nil
}

// PutText implements connector.TextStore when the underlying host does.
func (h clientHost) PutText(ctx context.Context, t connector.ExtractedText) error {
	if ts, ok := h.Host.(connector.TextStore); ok {
		return ts.PutText(ctx, t)
	}
	return nil
}

// mcpLevel maps a log/slog level to the syslog levels of MCP.
func mcpLevel(level int) mcp.LoggingLevel {
	switch {
	case level >= connector.LevelError:
		return "error"
	case level >= connector.LevelWarn:
		return "warning"
	case level >= connector.LevelInfo:
		return "info"
	default:
		return "debug"
	}
}

// complete answers completion/complete for prompt arguments from the
// values the connector declared (prefix match, case-insensitive, in the
// declared order). Resource template variables have no declared values:
// their completion is empty, which the protocol allows.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ref := req.Params.Ref
	if ref == nil {
		return nil, fmt.Errorf("completion: ref is missing")
	}
	if ref.Type != "ref/prompt" {
		return res, nil
	}
	pr, ok := s.prompts[ref.Name]
	if !ok {
		return nil, fmt.Errorf("completion: no prompt %q", ref.Name)
	}
	want := strings.ToLower(req.Params.Argument.Value)
	for _, a := range pr.Arguments {
		if a.Name != req.Params.Argument.Name {
			continue
		}
		for _, v := range a.Values {
			if strings.HasPrefix(strings.ToLower(v), want) {
				res.Completion.Values = append(res.Completion.Values, v)
			}
		}
	}
	// The protocol caps a completion at 100 values.
	if n := len(res.Completion.Values); n > 100 {
		res.Completion.Values, res.Completion.Total, res.Completion.HasMore = res.Completion.Values[:100], n, true
	}
	return res, nil
}

var (
	_ connector.Host       = clientHost{}
	_ connector.Progresser = clientHost{}
	_ connector.TextStore  = clientHost{}
)
