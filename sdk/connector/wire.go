package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
)

// CallRequest is one tool call as the host hands it to a connector.
type CallRequest struct {
	// Tool is the tool name without the connector prefix.
	Tool string `json:"tool"`
	// Arguments is the JSON object the client sent, already validated
	// against the tool's input schema by the host.
	Arguments json.RawMessage `json:"arguments"`
}

// CallResult is a connector's answer to a tool call.
type CallResult struct {
	// Text is the content shown to the model.
	Text string `json:"text"`
	// Structured is optional JSON (an object) mirrored as structuredContent.
	Structured json.RawMessage `json:"structured,omitempty"`
	// IsError marks a tool error: the message in Text names what went
	// wrong. Protocol and host faults are Go errors instead.
	IsError bool `json:"is_error,omitempty"`
	// Content are items shown after Text: images, audio, embedded
	// resources. Most tools need none. The host checks each (see
	// [Content.Validate]) and turns a bad one into a tool error.
	Content []Content `json:"content,omitempty"`
}

// Content types.
const (
	ContentText     = "text"
	ContentImage    = "image"
	ContentAudio    = "audio"
	ContentResource = "resource"
)

// Content is one content item of a tool result or prompt message: text, an
// image, an audio clip, or an embedded resource (a document with its URI,
// as text or as bytes).
type Content struct {
	// Type is ContentText, ContentImage, ContentAudio or ContentResource.
	Type string `json:"type"`
	// Text is the text of a text item or of a text resource.
	Text string `json:"text,omitempty"`
	// Data is the bytes of an image, an audio clip or a binary resource
	// (base64 in JSON).
	Data []byte `json:"data,omitempty"`
	// MIMEType says what Data (or a resource's Text) is; required for
	// images, audio and resources.
	MIMEType string `json:"mime_type,omitempty"`
	// URI names an embedded resource. A connector writes its own
	// besluitbron://<id>/ URIs; the host presents them under the admin's
	// resource base.
	URI string `json:"uri,omitempty"`
}

// Validate checks one content item; the error names the field.
func (c Content) Validate() error {
	switch c.Type {
	case ContentText:
		if len(c.Data) > 0 || c.URI != "" {
			return errors.New("text content carries data or a uri")
		}
	case ContentImage, ContentAudio:
		if len(c.Data) == 0 {
			return fmt.Errorf("%s content: data is empty", c.Type)
		}
		if !mimePattern.MatchString(c.MIMEType) {
			return fmt.Errorf("%s content: mime_type %q is not type/subtype", c.Type, c.MIMEType)
		}
		if c.Text != "" || c.URI != "" {
			return fmt.Errorf("%s content carries text or a uri", c.Type)
		}
	case ContentResource:
		if u, err := url.Parse(c.URI); err != nil || u.Scheme == "" {
			return fmt.Errorf("resource content: uri %q is not an absolute URI", c.URI)
		}
		if !mimePattern.MatchString(c.MIMEType) {
			return fmt.Errorf("resource content: mime_type %q is not type/subtype", c.MIMEType)
		}
		if c.Text != "" && len(c.Data) > 0 {
			return errors.New("resource content: both text and data")
		}
	default:
		return fmt.Errorf("content type %q: want text, image, audio or resource", c.Type)
	}
	return nil
}

var mimePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*(;.*)?$`)

// FetchRequest is one upstream request a connector asks the host to make.
type FetchRequest struct {
	Method string            `json:"method"`
	URL    string            `json:"url"`
	Header map[string]string `json:"header,omitempty"`
	Body   []byte            `json:"body,omitempty"`
	// Service names the declared service the request counts against.
	Service string `json:"service"`
	// Cost is the request's cost in the service's units; 0 means 1.
	Cost float64 `json:"cost,omitempty"`
	// CacheClass names a declared cache class, or ClassNone.
	CacheClass string `json:"cache_class"`
}

// FetchResponse is the upstream answer. Any HTTP status is a response;
// only a refused or failed exchange is an error.
type FetchResponse struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	Body   []byte            `json:"body,omitempty"`
}

// FetchError is the error a connector sees when the host refused or could
// not complete a fetch. Kind lets a connector branch; Message is for people.
type FetchError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Fetch error kinds.
const (
	// FetchRefused: the host's policy forbids the request (host not
	// allowed, private address, unknown service or cache class).
	FetchRefused = "refused"
	// FetchQueueTimeout: the platform's limit leaves no room before the
	// caller's deadline.
	FetchQueueTimeout = "queue_timeout"
	// FetchUnavailable: network failure, timeout or oversized response.
	FetchUnavailable = "unavailable"
	// FetchCanceled: the caller went away.
	FetchCanceled = "canceled"
)

func (e *FetchError) Error() string { return e.Kind + ": " + e.Message }

// Host is what the host offers a connector during a call: the only ways
// out of the sandbox.
type Host interface {
	// Fetch performs an upstream request under the host's policy: allowed
	// hosts, cache, the platform's limit. It returns a *FetchError when it
	// refuses or fails.
	Fetch(ctx context.Context, req FetchRequest) (FetchResponse, error)
	// Log records a message from the connector.
	Log(ctx context.Context, level int, msg string)
}

// Progresser is implemented by a Host that can tell the client how far a
// long call has got (MCP progress notifications, when the client asked for
// them). Not every host can: connectors call sdk.Progress, which does
// nothing then. done must grow from one report to the next; total is 0
// when unknown.
type Progresser interface {
	Progress(ctx context.Context, done, total float64, message string)
}

// Log levels a connector may use; they match log/slog's.
const (
	LevelDebug = -4
	LevelInfo  = 0
	LevelWarn  = 4
	LevelError = 8
)

// Connector is one platform connector as the host sees it, whatever runs
// it: a WebAssembly module, a native process, or Go code in the same
// process (tests).
type Connector interface {
	// Describe returns the connector's manifest.
	Describe(ctx context.Context) (Manifest, error)
	// Call runs one tool call. A tool-level failure (bad upstream data, a
	// platform error) is a CallResult with IsError; an error return means
	// the connector itself failed (trap, timeout, crash) and is reported by
	// the host as a tool error naming the connector.
	Call(ctx context.Context, req CallRequest, host Host) (CallResult, error)
	// Close releases the connector's resources.
	Close(ctx context.Context) error
}

// ErrABIMismatch is wrapped by the error a runtime returns when a module
// speaks another ABI version.
var ErrABIMismatch = errors.New("connector ABI version mismatch")

// ABIError says which connector reported which ABI version.
type ABIError struct {
	Connector string
	Got, Want uint32
}

func (e *ABIError) Error() string {
	return fmt.Sprintf("connector %q speaks ABI version %d, this host speaks %d", e.Connector, e.Got, e.Want)
}

// Unwrap makes errors.Is(err, ErrABIMismatch) true.
func (e *ABIError) Unwrap() error { return ErrABIMismatch }

// FetchReply is the host's answer to a fetch on the WebAssembly ABI:
// exactly one of Response and Error is set.
type FetchReply struct {
	Response *FetchResponse `json:"response,omitempty"`
	Error    *FetchError    `json:"error,omitempty"`
}

// TextStore is implemented by a Host that keeps the texts connectors
// extract from upstream documents: a PDF's text, a judgement's XML turned
// into prose. Extraction is the expensive step of reading a long document,
// and a reader asks for it page by page; with a TextStore the connector
// extracts once, the host keeps the pages in the platform's cache
// (versioned and expiring like every entry, never longer than the answers
// the text came from), and every later page is a slice the host hands
// back without the connector touching the document again.
//
// Connectors use it through sdk.PagedText, which falls back to extracting
// on every call when the host has no TextStore.
type TextStore interface {
	// TextPage returns page n (1-based) of the text kept under key, with
	// the head kept with it. ok is false when no complete entry of this
	// build is fresh (never kept, expired, evicted, cleared). A page past
	// the last is ok with an empty Text: Pages says how many there are.
	TextPage(ctx context.Context, key TextKey, n int) (page TextPage, ok bool, err error)
	// PutText keeps an extracted text, already cut into pages, for as
	// long as the upstream answers this call used stay fresh. The host
	// may decline silently (the call used a stale or failed answer, the
	// text is too large for the platform's cache, no cache is
	// configured); an error means the request itself was refused.
	PutText(ctx context.Context, text ExtractedText) error
}

// TextKey names a kept text: the connector's own key for the document
// (typically the URL its text comes from, plus anything else that shapes
// the text) and the declared cache class whose time to live applies.
type TextKey struct {
	Key        string `json:"key"`
	CacheClass string `json:"cache_class"`
}

// TextPage is one page of a kept text.
type TextPage struct {
	// Head is the small JSON value kept with the text: what the connector
	// learned from the document besides its text (title, date, notes).
	Head json.RawMessage `json:"head,omitempty"`
	// Text is the page's text; Page is its 1-based number, Pages the
	// number of pages.
	Text  string `json:"text"`
	Page  int    `json:"page"`
	Pages int    `json:"pages"`
}

// ExtractedText is a text to keep: its key, its head and its pages.
type ExtractedText struct {
	TextKey
	Head  json.RawMessage `json:"head,omitempty"`
	Pages []string        `json:"pages"`
}

// Limits a host applies to kept texts; a larger request is refused.
const (
	// MaxTextKey is the longest TextKey.Key, in bytes.
	MaxTextKey = 4 << 10
	// MaxTextHead is the largest ExtractedText.Head, in bytes.
	MaxTextHead = 256 << 10
	// MaxTextPages is the most pages one text may have.
	MaxTextPages = 1 << 16
)

// Validate checks a text before it is kept; the error names what is wrong.
func (t *ExtractedText) Validate() error {
	if err := t.TextKey.Validate(); err != nil {
		return err
	}
	switch {
	case len(t.Head) > MaxTextHead:
		return fmt.Errorf("text head of %d bytes exceeds %d", len(t.Head), MaxTextHead)
	case len(t.Head) > 0 && !json.Valid(t.Head):
		return errors.New("text head is not valid JSON")
	case len(t.Pages) == 0:
		return errors.New("text has no pages")
	case len(t.Pages) > MaxTextPages:
		return fmt.Errorf("text of %d pages exceeds %d", len(t.Pages), MaxTextPages)
	}
	return nil
}

// Validate checks a text key; the error names what is wrong.
func (k TextKey) Validate() error {
	switch {
	case k.Key == "":
		return errors.New("text key is empty")
	case len(k.Key) > MaxTextKey:
		return fmt.Errorf("text key of %d bytes exceeds %d", len(k.Key), MaxTextKey)
	case k.CacheClass == "":
		return errors.New("text key names no cache class")
	}
	return nil
}

// TextReply is the host's answer to a text request on the WebAssembly
// ABI: a page (Found false when nothing is kept) or an error.
type TextReply struct {
	Found bool        `json:"found,omitempty"`
	Page  *TextPage   `json:"page,omitempty"`
	Error *FetchError `json:"error,omitempty"`
}

// TextRequest is a page request on the WebAssembly ABI.
type TextRequest struct {
	TextKey
	Page int `json:"page"`
}
