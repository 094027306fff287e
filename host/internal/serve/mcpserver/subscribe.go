package mcpserver

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
)

// Resource subscriptions, for what does change.
//
// Platform documents are fixed once published: subscribing to one would
// promise notifications that never come, so their addresses refuse
// resources/subscribe with an error naming the URIs that can be
// subscribed to. What changes is the host's own Laadstatus
// (besluitbron://status, updated by every status round) and any resource
// a connector's manifest marks Subscribable (a list, a state): the host
// notifies its subscribers when it sees the content change, that is when
// a read of it returns other content than the read before. An address
// advertises the subscribe capability only when it has such a resource,
// and each of them carries "subscribable": true in its _meta, so a
// client can tell which URIs support it before it asks.

// HostResource is a resource the host itself serves on the unified
// address.
type HostResource struct {
	Resource *mcp.Resource
	// Read returns the resource's content now.
	Read func(ctx context.Context) (string, error)
	// Subscribable: the host calls [Server.ResourceUpdated] when it
	// changes.
	Subscribable bool
}

// watch is what the subscriptions of one server know.
type watch struct {
	mu   sync.Mutex
	uris map[string]bool     // subscribable URIs, as the clients see them
	last map[string][32]byte // the content each last read returned
}

func newWatch() *watch { return &watch{uris: map[string]bool{}, last: map[string][32]byte{}} }

func (w *watch) add(uri string) {
	w.mu.Lock()
	w.uris[uri] = true
	w.mu.Unlock()
}

func (w *watch) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := make([]string, 0, len(w.uris))
	for u := range w.uris {
		l = append(l, u)
	}
	slices.Sort(l)
	return l
}

// subscribe is the SubscribeHandler (and, checking the same, the
// UnsubscribeHandler) of an address.
func (w *watch) subscribe(uri string) error {
	w.mu.Lock()
	ok := w.uris[uri]
	w.mu.Unlock()
	if ok {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"resource %q cannot be subscribed to: platform documents do not change once published. Subscribable here: %s",
		invoke.ClipText(uri, 200), strings.Join(w.list(), ", "))}
}

// seen records a read's content and says whether it differs from the
// previous read's (the first read is no change).
func (w *watch) seen(uri string, content []byte) bool {
	sum := sha256.Sum256(content)
	w.mu.Lock()
	defer w.mu.Unlock()
	prev, had := w.last[uri]
	w.last[uri] = sum
	return had && prev != sum
}

// subscriptionOptions sets an address's subscribe handlers.
func subscriptionOptions(o *mcp.ServerOptions, w *watch) {
	o.SubscribeHandler = func(_ context.Context, req *mcp.SubscribeRequest) error { return w.subscribe(req.Params.URI) }
	o.UnsubscribeHandler = func(_ context.Context, req *mcp.UnsubscribeRequest) error { return w.subscribe(req.Params.URI) }
}

// subscribableMeta marks a listed resource as subscribable.
func subscribableMeta() mcp.Meta { return mcp.Meta{"subscribable": true} }

// ResourceUpdated tells the subscribers of uri, on every address that
// serves it, that it changed.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	p := &mcp.ResourceUpdatedNotificationParams{URI: uri}
	s.unified.ResourceUpdated(ctx, p)
	for id, one := range s.per {
		if w := s.watches[id]; w != nil && slices.Contains(w.list(), uri) {
			one.ResourceUpdated(ctx, p)
		}
	}
}

// addHostResource serves a host resource on the unified address.
func (s *Server) addHostResource(hr HostResource) {
	r := *hr.Resource
	if hr.Subscribable {
		r.Meta = subscribableMeta()
		s.watches[""].add(r.URI)
	}
	mime := r.MIMEType
	s.unified.AddResource(&r, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, err := hr.Read(ctx)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
	})
}

// HostTemplate is a family of resources the host itself serves on the
// unified address under one URI template (the watches:
// besluitbron://watch/{+id}), each URI readable and subscribable only by
// whom its owner allows. Read and Subscribe are told the caller as
// upstream/callinfo.ChargedTo names it (the MCP session, or the client's
// address or stdio without one), so that ownership follows the one
// function that says who a call is.
type HostTemplate struct {
	Template *mcp.ResourceTemplate
	// Prefix is the start every URI of the family has (the template
	// before its first variable): a subscription is offered to the
	// family whose prefix the URI has.
	Prefix string
	// Read returns the content of uri for caller, or an error naming what
	// is wrong (unknown, not the caller's, a bad parameter).
	Read func(ctx context.Context, caller, uri string) (string, error)
	// Subscribe, when set, says whether caller may subscribe to uri (nil)
	// or why not; the host calls [Server.ResourceUpdated] with the URI
	// when its content changes.
	Subscribe func(ctx context.Context, caller, uri string) error
}

// addHostTemplate serves a host resource family on the unified address.
func (s *Server) addHostTemplate(ht HostTemplate) {
	t := *ht.Template
	if ht.Subscribe != nil {
		t.Meta = subscribableMeta()
	}
	mime := t.MIMEType
	s.unified.AddResourceTemplate(&t, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, err := ht.Read(ctx, sessionOf(ctx, req.Session, req.Extra), req.Params.URI)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: mime, Text: text}}}, nil
	})
}

// templateSubscriptions lets the unified address's subscribe handlers
// accept a URI of a subscribable host template, asking the template
// whether this caller may follow it; every other URI is checked as
// before.
func (s *Server) templateSubscriptions(o *mcp.ServerOptions) {
	w := s.watches[""]
	check := func(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra, uri string, leaving bool) error {
		for _, ht := range s.o.HostTemplates {
			if ht.Subscribe != nil && ht.Prefix != "" && strings.HasPrefix(uri, ht.Prefix) {
				if leaving {
					return nil // ending a subscription needs no right: the watch may be gone
				}
				if err := ht.Subscribe(ctx, sessionOf(ctx, ss, extra), uri); err != nil {
					return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: invoke.ClipText(err.Error(), 400)}
				}
				return nil
			}
		}
		if err := w.subscribe(uri); err != nil {
			var prefixes []string
			for _, ht := range s.o.HostTemplates {
				if ht.Subscribe != nil {
					prefixes = append(prefixes, ht.Template.URITemplate)
				}
			}
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
				"resource %q cannot be subscribed to: platform documents do not change once published. Subscribable here: %s, and your own %s",
				invoke.ClipText(uri, 200), strings.Join(w.list(), ", "), strings.Join(prefixes, ", "))}
		}
		return nil
	}
	o.SubscribeHandler = func(ctx context.Context, req *mcp.SubscribeRequest) error {
		return check(ctx, req.Session, req.Extra, req.Params.URI, false)
	}
	o.UnsubscribeHandler = func(ctx context.Context, req *mcp.UnsubscribeRequest) error {
		return check(ctx, req.Session, req.Extra, req.Params.URI, true)
	}
}
