package sdktest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Route is one recorded answer. Match is a URL, or a URL prefix when it
// ends in "*".
type Route struct {
	Match    string
	Response connector.FetchResponse
	// Err, when set, is returned instead of Response.
	Err error
}

// Host is a fake host. Unmatched requests fail the test and get a 404.
//
// It is also the MCP client of the call (connector.Client): a test scripts
// what the user answers an elicitation, the model a sampling request, and
// which roots the client has ([Host.OnElicit], [Host.OnSample],
// [Host.OnRoots]).
//
// Like the BesluitBron host it keeps the texts connectors extract
// (connector.TextStore), in memory and without expiry, so a test can read
// a document page by page and check that it was extracted once
// ([Host.TextsKept]); [Host.ForgetTexts] drops them.
type Host struct {
	t      testing.TB
	mu     sync.Mutex
	routes []Route
	reqs   []connector.FetchRequest
	logs   []string
	texts  map[connector.TextKey]connector.ExtractedText
	kept   int
	served int

	// The client features' script (client.go).
	onElicit ElicitFunc
	onSample func(connector.SampleRequest) (connector.SampleResult, error)
	roots    []connector.Root
	hasRoots bool
	denied   map[string]bool
	noClient bool
	elicits  []connector.ElicitRequest
	samples  []connector.SampleRequest
}

// NewHost returns a fake host answering from routes.
func NewHost(t testing.TB, routes ...Route) *Host {
	return &Host{t: t, routes: routes}
}

// Handle adds a route answering status with the body of a file.
func (h *Host) Handle(match string, status int, file string) *Host {
	h.t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		h.t.Fatalf("sdktest: %v", err)
	}
	return h.HandleBody(match, status, body)
}

// HandleBody adds a route answering status with body.
func (h *Host) HandleBody(match string, status int, body []byte) *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.routes = append(h.routes, Route{Match: match, Response: connector.FetchResponse{Status: status, Body: body}})
	return h
}

// HandleErr adds a route failing with err (for example a
// *connector.FetchError of kind unavailable).
func (h *Host) HandleErr(match string, err error) *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.routes = append(h.routes, Route{Match: match, Err: err})
	return h
}

// Fetch answers from the routes: exact matches first, then the longest
// matching prefix.
func (h *Host) Fetch(_ context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reqs = append(h.reqs, req)
	best, bestLen := -1, -1
	for i, r := range h.routes {
		if r.Match == req.URL {
			best, bestLen = i, 1<<30
			break
		}
		if p, ok := strings.CutSuffix(r.Match, "*"); ok && strings.HasPrefix(req.URL, p) && len(p) > bestLen {
			best, bestLen = i, len(p)
		}
	}
	if best < 0 {
		h.t.Errorf("sdktest: unexpected fetch %s %s", req.Method, req.URL)
		return connector.FetchResponse{Status: 404, Body: []byte(`{"error":"not recorded"}`)}, nil
	}
	r := h.routes[best]
	if r.Err != nil {
		return connector.FetchResponse{}, r.Err
	}
	return r.Response, nil
}

// Log records a connector's log line.
func (h *Host) Log(_ context.Context, level int, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, fmt.Sprintf("%d %s", level, msg))
}

// Requests returns the fetches made so far.
func (h *Host) Requests() []connector.FetchRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]connector.FetchRequest(nil), h.reqs...)
}

// URLs returns the URLs fetched so far, sorted.
func (h *Host) URLs() []string {
	var out []string
	for _, r := range h.Requests() {
		out = append(out, r.URL)
	}
	sort.Strings(out)
	return out
}

// TextPage implements connector.TextStore.
func (h *Host) TextPage(_ context.Context, key connector.TextKey, n int) (connector.TextPage, bool, error) {
	if err := key.Validate(); err != nil {
		return connector.TextPage{}, false, &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.texts[key]
	if !ok {
		return connector.TextPage{}, false, nil
	}
	h.served++
	p := connector.TextPage{Head: t.Head, Page: n, Pages: len(t.Pages)}
	if n >= 1 && n <= len(t.Pages) {
		p.Text = t.Pages[n-1]
	}
	return p, true, nil
}

// PutText implements connector.TextStore.
func (h *Host) PutText(_ context.Context, t connector.ExtractedText) error {
	if err := t.Validate(); err != nil {
		return &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.texts == nil {
		h.texts = map[connector.TextKey]connector.ExtractedText{}
	}
	h.texts[t.TextKey] = t
	h.kept++
	return nil
}

// TextsKept is how many texts connectors handed over to keep: one per
// extraction.
func (h *Host) TextsKept() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.kept
}

// TextPagesServed is how many pages were answered from kept texts.
func (h *Host) TextPagesServed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.served
}

// ForgetTexts drops the kept texts, as an expiry or a cache clear would.
func (h *Host) ForgetTexts() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.texts = nil
}

var (
	_ connector.Host      = (*Host)(nil)
	_ connector.TextStore = (*Host)(nil)
)
