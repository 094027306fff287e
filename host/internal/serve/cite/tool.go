package cite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The host tools' names.
const (
	CiteTool  = "besluitbron_cite"
	QuoteTool = "besluitbron_check_quote"
)

// MaxDocuments is the most documents one besluitbron_cite call cites: a
// besluitbron_search answer's results and then some.
const MaxDocuments = 100

// Platform is one loaded connector as the citations see it: its id, its
// title (the database a reference came from), and how its document tool
// reads a document (the full tool name and the argument that takes an
// id), "" when it has none. Find says the tool takes find and page, which
// the quote check needs.
type Platform struct {
	ID, Title           string
	DocumentTool, IDArg string
	Find                bool
}

// PlatformOf describes connector id's platform from its manifest alone:
// its get_document tool, the argument that takes an id (the schema's
// first required one, else "id"), and whether it takes find and page.
func PlatformOf(id string, m connector.Manifest) Platform {
	p := Platform{ID: id, Title: m.Title}
	for _, t := range m.Tools {
		if t.Name != "get_document" {
			continue
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		switch {
		case len(s.Required) > 0:
			p.IDArg = s.Required[0]
		case s.Properties["id"] != nil:
			p.IDArg = "id"
		}
		if p.IDArg != "" {
			p.DocumentTool = id + "_get_document"
			p.Find = s.Properties["find"] != nil && s.Properties["page"] != nil
		}
	}
	return p
}

// Options configure a [Service].
type Options struct {
	// Platforms are the connectors the tools may cite and check, in the
	// order the tools list them.
	Platforms []Platform
	// Invoke runs their document tools (the host's invoke path).
	Invoke invoke.Invoker
	// Book is where search results were annotated; nil: a Book of its own.
	Book *Book
	// Now is the clock a retrieved day is read from (default time.Now).
	Now func() time.Time
}

// Service answers besluitbron_cite, besluitbron_check_quote and the
// pages' Citeer link.
type Service struct {
	o     Options
	byID  map[string]Platform
	ids   []string
	quote []string // the platforms the quote check reads
}

// New returns the Service over o's platforms.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Book == nil {
		o.Book = NewBook(o.Now, 0)
	}
	s := &Service{o: o, byID: map[string]Platform{}}
	for _, p := range o.Platforms {
		s.byID[p.ID] = p
		s.ids = append(s.ids, p.ID)
		if p.Find {
			s.quote = append(s.quote, p.ID)
		}
	}
	return s
}

// Book is the Book the Service cites remembered results from.
func (s *Service) Book() *Book { return s.o.Book }

// Ref names one document to cite: its platform, its id there, and
// optionally the sha256 a quote check gave for its text.
type Ref struct {
	Platform string `json:"platform"`
	ID       string `json:"id"`
	SHA256   string `json:"sha256,omitempty"`
}

// Tools are besluitbron_cite and besluitbron_check_quote (the latter only
// when some platform's document tool takes find and page).
func (s *Service) Tools() []invoke.HostTool {
	if len(s.ids) == 0 {
		return nil
	}
	out := []invoke.HostTool{s.citeTool()}
	if len(s.quote) > 0 {
		out = append(out, s.quoteTool())
	}
	return out
}

func enum(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func (s *Service) citeTool() invoke.HostTool {
	// The platforms served and the bounds (1 to MaxDocuments documents,
	// an id of at most 300 bytes, a sha256 of 64 hex digits) are checked
	// by Export, with errors in words that name them: each in the schema
	// would weigh on every client's tools/list.
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"format": {Type: "string", Enum: enum(Formats())},
			"documents": {Type: "array", Items: &jsonschema.Schema{
				Type: "object",
				Properties: map[string]*jsonschema.Schema{
					"platform": {Type: "string"},
					"id":       {Type: "string"},
					"sha256":   {Type: "string"},
				},
				Required:             []string{"platform", "id"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			}},
		},
		Required:             []string{"format", "documents"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return invoke.HostTool{
		Name:  CiteTool,
		Title: "Export citations",
		Description: "Citations of results (platform id, id; sha256 from besluitbron_check_quote kept in the note) as csl-json, bibtex or ris: the text Zotero and the like import as is. " +
			"Cost: free for results just searched, else one document read each.",
		InputSchema: schema,
		OpenWorld:   true,
		Handler:     s.handleCite,
	}
}

// citeArgs are besluitbron_cite's arguments.
type citeArgs struct {
	Format    string `json:"format"`
	Documents []Ref  `json:"documents"`
}

func (s *Service) handleCite(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
	var a citeArgs
	if err := strictDecode(raw, &a); err != nil {
		return invoke.Failed(CiteTool+": "+err.Error(), callinfo.Summary{Cache: callinfo.Bypass})
	}
	ex, err := s.Export(ctx, info, a.Format, a.Documents)
	if err != nil {
		return invoke.Failed(CiteTool+": "+err.Error(), info.Summary())
	}
	// The text is the export itself, what a reference manager imports;
	// the structured result says what it is.
	st, _ := json.Marshal(struct {
		Format      string `json:"format"`
		ContentType string `json:"content_type"`
		Count       int    `json:"count"`
		Export      string `json:"export"`
	}{ex.Format, ex.ContentType, len(a.Documents), string(ex.Body)})
	return invoke.Answer{Platform: invoke.HostPlatform, Result: connector.CallResult{Text: string(ex.Body), Structured: st}, Summary: info.Summary()}
}

// Export cites refs in format: each from the result the Book remembers,
// else from its document tool's first page.
func (s *Service) Export(ctx context.Context, info *callinfo.Info, format string, refs []Ref) (Export, error) {
	if !slices.Contains(Formats(), format) {
		return Export{}, fmt.Errorf("argument \"format\" must be one of %s (got %q)", strings.Join(Formats(), ", "), clip(format, 40))
	}
	if len(refs) == 0 || len(refs) > MaxDocuments {
		return Export{}, fmt.Errorf("argument \"documents\" must hold 1 to %d documents (got %d)", MaxDocuments, len(refs))
	}
	var entries []Entry
	for i, r := range refs {
		e, err := s.Resolve(ctx, info, r.Platform, r.ID)
		if err != nil {
			return Export{}, fmt.Errorf("documents[%d]: %w", i, err)
		}
		if r.SHA256 != "" {
			if !isSHA256(r.SHA256) {
				return Export{}, fmt.Errorf("documents[%d]: argument \"sha256\" must be 64 lower-case hex digits, as besluitbron_check_quote's text_sha256 (got %q)", i, clip(r.SHA256, 80))
			}
			e.SHA256 = r.SHA256
		}
		entries = append(entries, e)
	}
	return Encode(format, entries)
}

// Resolve describes one document for a citation: from the result the
// Book remembers (no request), or from what the platform's document tool
// says of it.
func (s *Service) Resolve(ctx context.Context, info *callinfo.Info, platform, id string) (Entry, error) {
	p, ok := s.byID[platform]
	if !ok {
		return Entry{}, fmt.Errorf("argument \"platform\" must be one of %s (got %q)", strings.Join(s.ids, ", "), clip(platform, 40))
	}
	id = strings.TrimSpace(id)
	if id == "" || len(id) > 300 {
		return Entry{}, fmt.Errorf("argument \"id\" must be 1 to 300 bytes (got %d)", len(id))
	}
	if it, t, ok := s.o.Book.Lookup(platform, id); ok {
		return Entry{Platform: platform, Source: p.Title, ID: id, Work: cite.Describe(docOf(it)), Retrieved: Day(t)}, nil
	}
	if p.DocumentTool == "" {
		return Entry{}, fmt.Errorf("%s has no document tool, and no search of it returned this id lately: search it first", p.Title)
	}
	doc, err := s.document(ctx, info, p, map[string]any{p.IDArg: id})
	if err != nil {
		return Entry{}, err
	}
	it := connector.Item{ID: id, Title: doc.Title, Date: doc.Date, Organization: doc.Organization, URL: doc.URL}
	return Entry{Platform: platform, Source: p.Title, ID: id, Work: cite.Describe(docOf(it)), Retrieved: Day(s.o.Now())}, nil
}

// document calls p's document tool with args, as a call of info's
// session, and adds its accounting to info.
func (s *Service) document(ctx context.Context, info *callinfo.Info, p Platform, args map[string]any) (connector.Document, error) {
	b, _ := json.Marshal(args)
	sub := &callinfo.Info{}
	if info != nil {
		sub.Session, sub.Public, sub.OnQueued, sub.Client = info.Session, info.Public, info.OnQueued, info.Client
	}
	a := s.o.Invoke(ctx, sub, p.DocumentTool, b)
	if info != nil {
		sum := a.Summary
		if sum.Fetches > 0 {
			info.AddFetch(sum.Cache, sum.Queued, sum.Upstream)
		}
	}
	if a.Err != nil {
		return connector.Document{}, a.Err
	}
	var doc connector.Document
	if err := json.Unmarshal(a.JSON(), &doc); err != nil {
		return connector.Document{}, fmt.Errorf("%s: the answer of %s is not a document: %v", p.Title, p.DocumentTool, err)
	}
	return doc, nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// strictDecode decodes a host tool's arguments, refusing unknown members
// (the MCP edge has checked them against the schema; this is the second
// line, for a caller that is not the edge).
func strictDecode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}
