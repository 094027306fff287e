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
