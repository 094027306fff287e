package connector

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ABIVersion is the version of the WebAssembly ABI described in the sdk
// package documentation. The host refuses a module that reports another
// version, naming both.
const ABIVersion = 1

// Standard cache classes. A connector may declare more.
const (
	// ClassNone marks a fetch that must never be cached.
	ClassNone = "none"
	// ClassList is for rarely changing lists: organisations, committees,
	// party groups, value lists. They change monthly.
	ClassList = "list"
	// ClassSearch is for search results: kept briefly, so that an assistant
	// repeating a question costs the platform nothing.
	ClassSearch = "search"
	// ClassDocument is for full texts, the most expensive call.
	ClassDocument = "document"
)

// Manifest is what a connector declares about itself. The host registers
// tools, limits and cache classes from it at start.
type Manifest struct {
	// ID is the connector id, lower case letters and digits (e.g. "obv").
	// Tool names are prefixed with it.
	ID string `json:"id"`
	// Version is the connector's own version.
	Version string `json:"version"`
	// Title is a human-readable platform name ("OpenBesluitvorming"), in
	// English where the name has one.
	Title string `json:"title"`
	// TitleNL is the name in Dutch, for the Dutch search page and
	// Laadstatus; empty when the name is the same in both languages
	// (most platforms' names are proper names).
	TitleNL string `json:"title_nl,omitempty"`
	// Description says what the platform holds.
	Description string `json:"description"`
	// DescriptionNL says the same in Dutch, for people: the search page
	// and the Laadstatus (Description is English, for assistants).
	DescriptionNL string `json:"description_nl,omitempty"`
	// SearchFilter is the organisation choice the search page offers for
	// the search tool; nil offers none.
	SearchFilter *SearchFilter `json:"search_filter,omitempty"`
	// Freshness says how the Laadstatus learns how fresh the platform's
	// data is; nil means the platform cannot tell, and only its
	// reachability is shown.
	Freshness *Freshness `json:"freshness,omitempty"`
	// SearchProfile says how BesluitBron's cross-platform search
	// (besluitbron_search) maps its query onto the search tool; nil leaves
	// the platform out of it.
	SearchProfile *SearchProfile `json:"search_profile,omitempty"`
	// TypeLabels name the record types the connector's results carry
	// ([Item.Type], [Document.Type]) in Dutch and English, so that the
	// search page and the Laadstatus say "Vergadering" or "Meeting" where
	// the platform wrote "Meeting", "MediaObject" or "agenda_item". The
	// host keeps no dictionary of its own: a type not labelled here is
	// shown as the platform wrote it.
	TypeLabels TypeLabels `json:"type_labels,omitempty"`
	// BaseURL is the default upstream base URL; the admin may override it.
	BaseURL string `json:"base_url"`
	// AllowedHosts are the only origins fetch may reach (the admin's
	// base_url override and url_rewrites targets are added by the host).
	// An entry is a host name (the base URL's scheme on its default
	// port), host:port, or http(s)://host[:port]; the fetch gate matches
	// scheme, host and port.
	AllowedHosts []string `json:"allowed_hosts"`
	// Services are the upstream services requests count against, with
	// their declared limits.
	Services []Service `json:"services"`
	// CacheClasses are the cache classes the connector's fetches may name,
	// with default time-to-live.
	CacheClasses []CacheClass `json:"cache_classes"`
	// Tools are the MCP tools, without the connector prefix.
	Tools []Tool `json:"tools"`
	// Resources are resource templates served through a tool.
	Resources []ResourceTemplate `json:"resources,omitempty"`
	// Prompts are prompt templates the host serves as MCP prompts.
	Prompts []Prompt `json:"prompts,omitempty"`
	// ClientFeatures are the client features the connector asks to use
	// (FeatureElicitation, FeatureSampling, FeatureRoots; see
	// [Client]). Asking grants nothing: the admin grants each one in
	// connectors.<id>.grant, and the host refuses a call to a feature
	// not granted with an error naming the grant.
	ClientFeatures []string `json:"client_features,omitempty"`
}

// SearchFilter is how the search page narrows a search to one
// organisation (a municipality, a court, a government).
type SearchFilter struct {
	// Arg is the search tool's argument that takes the organisation.
	Arg string `json:"arg"`
	// LabelNL and LabelEN label the choice on the page.
	LabelNL string `json:"label_nl"`
	LabelEN string `json:"label_en"`
	// ListTool, when set, is the tool (without the connector prefix)
	// whose list offers the choices.
	ListTool string `json:"list_tool,omitempty"`
}

// Freshness readings: what a freshness tool's answer holds.
const (
	// FreshnessSources: per-source import state, as OpenBesluitvorming's
	// status answers it.
	FreshnessSources = "sources"
	// FreshnessNewest: a newest-first search; the first result of
	// Freshness.Type carries the newest date.
	FreshnessNewest = "newest"
)

// Freshness is a call the Laadstatus job may make, as the public session,
// to learn how fresh the platform's data is, and how to read its answer.
type Freshness struct {
	// Tool is the tool to call, without the connector prefix.
	Tool string `json:"tool"`
	// Arguments are its arguments (a JSON object).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Reads is FreshnessSources or FreshnessNewest.
	Reads string `json:"reads"`
	// Type, for FreshnessNewest, is the result type whose date counts.
	Type string `json:"type,omitempty"`
}

// SearchProfile maps besluitbron_search's common arguments (query,
// organization, date_from, date_to, limit) onto one connector's search
// tool, declaratively.
type SearchProfile struct {
	// Tool is the search tool, without the connector prefix.
	Tool string `json:"tool"`
	// FreeText: the platform searches words, so it is searched by default.
	// Without it the platform is searched only when named.
	FreeText bool `json:"free_text,omitempty"`
	// QueryArg takes the query; "" when the platform takes none (it is
	// then searched by its filters only).
	QueryArg string `json:"query_arg,omitempty"`
	// DateFromArg and DateToArg take the dates (ISO); "" when it takes
	// none. DatesWhole: the platform takes a range only whole, so a
	// missing end is filled (1800-01-01, today).
	DateFromArg string `json:"date_from_arg,omitempty"`
	DateToArg   string `json:"date_to_arg,omitempty"`
	DatesWhole  bool   `json:"dates_whole,omitempty"`
	// LimitArg takes the number of results (default "limit"); MaxLimit
	// is the largest the tool takes.
	LimitArg string `json:"limit_arg,omitempty"`
	MaxLimit int    `json:"max_limit"`
	// OffsetArg takes the number of results to skip, for the search
	// page's next page; "" when the tool does not page (the page then
	// offers no next page of this platform).
	OffsetArg string `json:"offset_arg,omitempty"`
	// Organization, when set, narrows to one organisation.
	Organization *OrganizationArg `json:"organization,omitempty"`
	// NeedsFilter, when set, is the reason the platform is left out when
	// neither an organisation nor dates are given.
	NeedsFilter string `json:"needs_filter,omitempty"`
	// Caveat is said in besluitbron_search's description; Note is added
	// to this platform's section of every answer.
	Caveat string `json:"caveat,omitempty"`
	Note   string `json:"note,omitempty"`
	// Keys are the document key kinds ([KeyKinds]) the search tool's
	// results carry in [Item.Keys]; the host groups the copies of one
	// document across platforms by these alone.
	Keys []string `json:"keys,omitempty"`
}

// Organization values: what of the list item the search argument takes.
const (
	OrgByID    = "id"
	OrgByTitle = "title"
)

// OrganizationArg is how the search tool takes an organisation.
type OrganizationArg struct {
	// Arg is the search tool's argument.
	Arg string `json:"arg"`
	// ListTool (without the prefix) lists the organisations; the name
	// asked for is matched in it by key, name (with or without its kind,
	// "Gemeente Soest" or "Soest") or abbreviation. "" passes the name
	// itself, without its kind.
	ListTool string          `json:"list_tool,omitempty"`
	ListArgs json.RawMessage `json:"list_args,omitempty"`
	// Value is OrgByID or OrgByTitle: what of the matched item is passed.
	Value string `json:"value,omitempty"`
}

// Service is one upstream service with its limit. Units == 0 means no limit
// is declared: calls are not queued (but still run on their own platform's
// concurrency, so a slow platform holds up no other). That BesluitBron
// keeps no limit does not mean the platform has none: LimitFrom says where
// a limit comes from (the platform's publication, a measurement,
// BesluitBron's own polite choice) or that none is known, and the
// Laadstatus says it in those words.
//
// A limit belongs to whoever enforces it: usually an upstream host, which
// counts every request it receives, whichever connector sent it. Host and
// Quota say which quota a service's requests count against; services of
// any connectors that name the same quota share it: one bucket, one queue
// of sessions, one pause after a 429, one key in Redis. When their limits
// differ (in the manifests or in the admin's connectors.<id>.limits.<service>),
// the strictest applies: the lowest rate, then the lowest capacity. A
// service's quota is Quota when set, else Host, else its own
// ("<connector id>/<service name>", shared with no one).
type Service struct {
	Name  string   `json:"name"`
	Units float64  `json:"units"`
	Per   Duration `json:"per"`
	// Host is the upstream host whose limit this is, a bare lower-case host
	// name that the connector may reach (one of AllowedHosts, or BaseURL's
	// host): "zoek.officielebekendmakingen.nl". Services of any connectors
	// naming the same host share one quota. It names the real host, not
	// an admin's base_url or url_rewrites: a mirror does not change whose
	// limit it is.
	Host string `json:"host,omitempty"`
	// Quota names a quota when the host alone does not say it: services on
	// one host that the platform limits separately ("berthub.eu/search"
	// beside "berthub.eu/pages"), or one limit over several hosts. Lower
	// case letters, digits and . _ / -, at most 100; it takes the place of
	// Host as the quota's name, and services naming the same Quota share
	// it.
	Quota       string `json:"quota,omitempty"`
	Description string `json:"description,omitempty"`
	// LimitFrom says where the limit (Units per Per) comes from, so that
	// the Laadstatus can tell a limit the platform publishes from one
	// BesluitBron chose: LimitPublished, LimitMeasured, LimitPolite or
	// LimitUnknown. Empty reads as [Service.LimitOrigin] says (a manifest
	// written before the field existed).
	LimitFrom string `json:"limit_from,omitempty"`
	// LimitWhere says where the platform publishes the limit (a URL or a
	// page's name; required for LimitPublished), or how it was measured.
	// It is shown as is on the Dutch and English pages: keep it a place,
	// not a sentence.
	LimitWhere string `json:"limit_where,omitempty"`
	// LimitNote and LimitNoteNL say in a short sentence, in English and
	// Dutch, what is known about the limit ("the administrator warns
	// about costly searches").
	LimitNote   string `json:"limit_note,omitempty"`
	LimitNoteNL string `json:"limit_note_nl,omitempty"`
}

// Where a service's limit comes from ([Service.LimitFrom]).
const (
	// LimitPublished: the platform publishes the limit (LimitWhere says
	// where), and may enforce it.
	LimitPublished = "published"
	// LimitMeasured: no published limit, but one was observed (a 429 at a
	// rate, a refusal), and Units is what was measured.
	LimitMeasured = "measured"
	// LimitPolite: the platform publishes no number, and Units is
	// BesluitBron's own polite choice, which the admin may change.
	LimitPolite = "polite"
	// LimitUnknown: no limit published and none observed. That is not the
	// same as no limit: the platform may refuse at any rate. BesluitBron
	// keeps none (Units 0), unless the admin sets one.
	LimitUnknown = "unknown"
)

// LimitOrigins are the values LimitFrom takes, in the order pages list them.
func LimitOrigins() []string {
	return []string{LimitPublished, LimitMeasured, LimitPolite, LimitUnknown}
}

// LimitOrigin is where the service's limit comes from: LimitFrom when set;
// for a manifest that does not say, LimitUnknown without a limit, and
// LimitPolite with one (a number the connector keeps without saying the
// platform publishes it is its own choice, never the platform's word).
func (s Service) LimitOrigin() string {
	switch {
	case s.LimitFrom != "":
		return s.LimitFrom
	case s.Units > 0:
		return LimitPolite
	}
	return LimitUnknown
}

// Limited reports whether the service declares a limit.
func (s Service) Limited() bool { return s.Units > 0 }

// QuotaName is the quota the service's requests count against: Quota when
// set, else Host, else "" (a quota of the service's own, which the host
// names "<connector id>/<service name>").
func (s Service) QuotaName() string {
	if s.Quota != "" {
		return s.Quota
	}
	return s.Host
}

// CacheClass is a named cache class and its default time-to-live.
type CacheClass struct {
	Name string   `json:"name"`
	TTL  Duration `json:"ttl"`
}

// Tool is one MCP tool of a connector.
type Tool struct {
	// Name without the connector prefix ("search" becomes "obv_search").
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema (draft 2020-12) object.
	InputSchema json.RawMessage `json:"input_schema"`
	// CostNote tells an assistant what the call costs, so that it can pick
	// the cheaper option when both give the answer.
	CostNote string `json:"cost_note,omitempty"`
	// RequiresClient are the client features (of the manifest's
	// ClientFeatures) without which the tool cannot do its work, as the
	// conformance fixture's test_missing_capability cannot without
	// sampling. A client of MCP 2026-07-28 that did not declare one gets
	// the protocol's MissingRequiredClientCapability error (-32021) and
	// the tool does not run (basic/index.mdx, under "_meta").
	// A tool that can answer without asking (the organisation tools list
	// the candidates) leaves it empty.
	RequiresClient []string `json:"requires_client,omitempty"`
	// Task says when a call becomes an MCP task (the extension
	// io.modelcontextprotocol/tasks) for a client that declared it:
	// empty when it waits (at a platform's limit, for an instance: the
	// host decides, and a call with room answers at once); TaskOptional
	// at once, for a tool whose own work takes long whatever the limits;
	// TaskRequired at once, and a request without the extension is
	// refused (-32021) instead of run.
	Task string `json:"task,omitempty"`
}

// Values of [Tool.Task].
const (
	TaskOptional = "optional"
	TaskRequired = "required"
)

// ResourceTemplate declares MCP resources as besluitbron://<id>/... URIs.
// Reading a resource calls Tool with the template's variables as arguments.
// A template without variables is one resource, listed by resources/list.
type ResourceTemplate struct {
	Name        string `json:"name"`
	URITemplate string `json:"uri_template"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
	Tool        string `json:"tool"`
	// Subscribable marks a resource whose content changes (a list, a
	// state), never a published document: clients may subscribe to it
	// and get notifications/resources/updated when the host sees its
	// content change. Only a URI without variables can be.
	Subscribable bool `json:"subscribable,omitempty"`
}

// Prompt is an MCP prompt; Template may use {{name}} for each argument.
// A prompt is either one user message (Template) or a conversation
// (Messages), whose text and resource URIs may use {{name}} too.
type Prompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Template    string           `json:"template,omitempty"`
	// Messages, when set, replace Template.
	Messages []PromptMessage `json:"messages,omitempty"`
	// Ask, when set, is a form the host asks the user (elicitation)
	// before the prompt is filled: each string field of the answer fills
	// {{field}} as an argument does (an argument of the same name wins).
	// The manifest must ask for elicitation (ClientFeatures) and the
	// admin must grant it; a client that cannot be asked gets an error
	// saying so. A client of MCP 2026-07-28 gets the form in the
	// prompts/get result (input_required) under Ask.Key, or under
	// "besluitbron-elicitation-1" when it is empty.
	Ask *ElicitRequest `json:"ask,omitempty"`
}

// PromptMessage is one message of a [Prompt]'s conversation.
type PromptMessage struct {
	// Role is "user" or "assistant".
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Values, when set, are offered to clients as completions of the
	// argument (completion/complete), best first.
	Values []string `json:"values,omitempty"`
}

// Duration is a time.Duration that reads and writes as "60s" in JSON.
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("bad duration %q: %w", b, err)
	}
	*d = Duration(v)
	return nil
}

var (
	idPattern    = regexp.MustCompile(`^[a-z][a-z0-9]{0,31}$`)
	hostPattern  = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)
	quotaPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]{0,99}$`)
	namePattern  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)
	argPattern   = regexp.MustCompile(`\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}`)
)

// Validate checks a manifest as the host receives it; the error names the
// connector and the offending field.
func (m *Manifest) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if !idPattern.MatchString(m.ID) {
		bad("id %q: want lower-case letters and digits, starting with a letter, at most 32", m.ID)
	}
	if m.Version == "" {
		bad("version: empty")
	}
	if len(m.TitleNL) > 200 {
		bad("title_nl: at most 200 bytes")
	}
	if m.Title == "" {
		bad("title: empty")
	}
	if m.BaseURL != "" {
		u, err := url.Parse(m.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			bad("base_url %q: want an absolute http(s) URL", m.BaseURL)
		}
	}
	reachable := map[string]bool{}
	for i, h := range m.AllowedHosts {
		name, ok := AllowedHostName(h)
		if !ok {
			bad("allowed_hosts[%d] %q: want a host name, host:port, or http(s)://host[:port] with no path", i, h)
			continue
		}
		reachable[name] = true
	}
	seen := map[string]bool{}
	if u, err := url.Parse(m.BaseURL); err == nil && u.Hostname() != "" {
		reachable[strings.ToLower(u.Hostname())] = true
	}
	for i, s := range m.Services {
		switch {
		case !namePattern.MatchString(s.Name):
			bad("services[%d].name %q: want lower-case letters, digits, _", i, s.Name)
		case seen["svc:"+s.Name]:
			bad("services[%d].name %q: declared twice", i, s.Name)
		case s.Units < 0:
			bad("services.%s.units %v: negative", s.Name, s.Units)
		case s.Units > 0 && s.Per <= 0:
			bad("services.%s.per: a limit of %v units needs a positive window", s.Name, s.Units)
		}
		switch {
		case s.Host == "":
		case len(s.Host) > 253 || !hostPattern.MatchString(s.Host):
			bad("services[%d].host %q: want a bare lower-case host name, like \"zoek.officielebekendmakingen.nl\"", i, s.Host)
		case !reachable[s.Host]:
			bad("services[%d].host %q: not a host the connector may reach (allowed_hosts or base_url)", i, s.Host)
		}
		if s.Quota != "" && !quotaPattern.MatchString(s.Quota) {
			bad("services[%d].quota %q: want lower-case letters, digits and . _ / -, starting with a letter or digit, at most 100", i, s.Quota)
		}
		validateLimitFrom(s, bad)
		seen["svc:"+s.Name] = true
	}
	if len(m.Services) == 0 {
		bad("services: none declared; every fetch counts against a service")
	}
	for i, c := range m.CacheClasses {
		switch {
		case !namePattern.MatchString(c.Name):
			bad("cache_classes[%d].name %q: want lower-case letters, digits, _", i, c.Name)
		case seen["cc:"+c.Name]:
			bad("cache_classes[%d].name %q: declared twice", i, c.Name)
		case c.TTL < 0:
			bad("cache_classes.%s.ttl: negative", c.Name)
		}
		seen["cc:"+c.Name] = true
	}
	if len(m.Tools) == 0 {
		bad("tools: none declared")
	}
	for i, t := range m.Tools {
		if !namePattern.MatchString(t.Name) {
			bad("tools[%d].name %q: want lower-case letters, digits, _", i, t.Name)
			continue
		}
		if seen["tool:"+t.Name] {
			bad("tools[%d].name %q: declared twice", i, t.Name)
		}
		seen["tool:"+t.Name] = true
		if t.Description == "" {
			bad("tools.%s.description: empty", t.Name)
		}
		var schema map[string]any
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			bad("tools.%s.input_schema: not a JSON object: %v", t.Name, err)
		} else if schema["type"] != "object" {
			bad("tools.%s.input_schema: type must be \"object\"", t.Name)
		}
	}
	if f := m.SearchFilter; f != nil {
		switch {
		case f.Arg == "" || f.LabelNL == "" || f.LabelEN == "":
			bad("search_filter: arg, label_nl and label_en are required")
		case f.ListTool != "" && !seen["tool:"+f.ListTool]:
			bad("search_filter.list_tool %q: no such tool", f.ListTool)
		}
	}
	if f := m.Freshness; f != nil {
		switch {
		case !seen["tool:"+f.Tool]:
			bad("freshness.tool %q: no such tool", f.Tool)
		case f.Reads != FreshnessSources && f.Reads != FreshnessNewest:
			bad("freshness.reads %q: want %q or %q", f.Reads, FreshnessSources, FreshnessNewest)
		case f.Reads == FreshnessNewest && f.Type == "":
			bad("freshness.type: a %q reading names the result type whose date counts", FreshnessNewest)
		case len(f.Arguments) > 0 && !json.Valid(f.Arguments):
			bad("freshness.arguments: not valid JSON")
		}
	}
	if sp := m.SearchProfile; sp != nil {
		switch {
		case !seen["tool:"+sp.Tool]:
			bad("search_profile.tool %q: no such tool", sp.Tool)
		case sp.MaxLimit < 1:
			bad("search_profile.max_limit %d: at least 1", sp.MaxLimit)
		case sp.FreeText && sp.QueryArg == "":
			bad("search_profile: free_text needs query_arg")
		}
		validateKeys(sp.Keys, bad)
		if o := sp.Organization; o != nil {
			switch {
			case o.Arg == "":
				bad("search_profile.organization.arg: empty")
			case o.ListTool != "" && !seen["tool:"+o.ListTool]:
				bad("search_profile.organization.list_tool %q: no such tool", o.ListTool)
			case o.ListTool != "" && o.Value != OrgByID && o.Value != OrgByTitle:
				bad("search_profile.organization.value %q: want %q or %q", o.Value, OrgByID, OrgByTitle)
			case len(o.ListArgs) > 0 && !json.Valid(o.ListArgs):
				bad("search_profile.organization.list_args: not valid JSON")
			}
		}
	}
	validateTypeLabels(m.TypeLabels, bad)
	prefix := "besluitbron://" + m.ID + "/"
	for i, r := range m.Resources {
		if r.Name == "" {
			bad("resources[%d].name: empty", i)
		}
		if !strings.HasPrefix(r.URITemplate, prefix) {
			bad("resources[%d].uri_template %q: must start with %q", i, r.URITemplate, prefix)
		}
		if !seen["tool:"+r.Tool] {
			bad("resources[%d].tool %q: no such tool", i, r.Tool)
		}
	}
	for i, p := range m.Prompts {
		if !namePattern.MatchString(p.Name) {
			bad("prompts[%d].name %q: want lower-case letters, digits, _", i, p.Name)
		}
		if p.Ask != nil {
			if err := p.Ask.Validate(); err != nil {
				bad("prompts[%d].ask: %v", i, err)
			}
			if !slices.Contains(m.ClientFeatures, FeatureElicitation) {
				bad("prompts[%d].ask: the manifest does not ask for elicitation (client_features)", i)
			}
		}
		switch {
		case p.Template == "" && len(p.Messages) == 0:
			bad("prompts[%d]: neither template nor messages", i)
		case p.Template != "" && len(p.Messages) > 0:
			bad("prompts[%d]: both template and messages", i)
		}
		for j, msg := range p.Messages {
			if msg.Role != "user" && msg.Role != "assistant" {
				bad("prompts[%d].messages[%d].role %q: want user or assistant", i, j, msg.Role)
			}
			c := msg.Content
			// A resource's URI may be an argument; check its shape with
			// a stand-in value.
			c.URI = argPattern.ReplaceAllString(c.URI, "arg:x")
			if err := c.Validate(); err != nil {
				bad("prompts[%d].messages[%d]: %v", i, j, err)
			}
		}
	}
	for i, f := range m.ClientFeatures {
		switch {
		case !KnownClientFeature(f):
			bad("client_features[%d] %q: want one of %s", i, f, strings.Join(ClientFeatureNames(), ", "))
		case seen["feature:"+f]:
			bad("client_features[%d] %q: declared twice", i, f)
		}
		seen["feature:"+f] = true
	}
	for i, t := range m.Tools {
		if t.Task != "" && t.Task != TaskOptional && t.Task != TaskRequired {
			bad("tools[%d].task %q: want %q, %q or none", i, t.Task, TaskOptional, TaskRequired)
		}
		for j, f := range t.RequiresClient {
			if !seen["feature:"+f] {
				bad("tools[%d].requires_client[%d] %q: not among client_features", i, j, f)
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("manifest of connector %q: %w", m.ID, errors.Join(errs...))
}

// maxLimitText bounds limit_where and the notes: a place and a sentence.
const maxLimitText = 300

// validateLimitFrom checks what a service says about its limit's origin:
// a known value that fits the limit declared (a published, measured or
// polite limit is a number; an unknown one is none), a place for a
// published limit, and short one-line texts.
func validateLimitFrom(s Service, bad func(string, ...any)) {
	switch s.LimitFrom {
	case "":
	case LimitPublished, LimitMeasured, LimitPolite:
		if s.Units <= 0 {
			bad("services.%s.limit_from %q: but the service declares no limit (units 0); a service without one says %q", s.Name, s.LimitFrom, LimitUnknown)
		}
	case LimitUnknown:
		if s.Units > 0 {
			bad("services.%s.limit_from %q: but the service declares %v units; a limit BesluitBron keeps where the platform publishes none is %q", s.Name, s.LimitFrom, s.Units, LimitPolite)
		}
	default:
		bad("services.%s.limit_from %q: want one of %s", s.Name, s.LimitFrom, strings.Join(LimitOrigins(), ", "))
	}
	if s.LimitFrom == LimitPublished && strings.TrimSpace(s.LimitWhere) == "" {
		bad("services.%s.limit_where: empty; a published limit says where the platform publishes it", s.Name)
	}
	for _, f := range []struct{ key, v string }{{"limit_where", s.LimitWhere}, {"limit_note", s.LimitNote}, {"limit_note_nl", s.LimitNoteNL}} {
		switch {
		case len(f.v) > maxLimitText:
			bad("services.%s.%s: %d bytes, at most %d", s.Name, f.key, len(f.v), maxLimitText)
		case strings.ContainsFunc(f.v, unicode.IsControl):
			bad("services.%s.%s: a control character; one line of text", s.Name, f.key)
		}
	}
}

// Service returns the named service.
func (m *Manifest) Service(name string) (Service, bool) {
	for _, s := range m.Services {
		if s.Name == name {
			return s, true
		}
	}
	return Service{}, false
}

// CacheClass returns the named cache class.
func (m *Manifest) CacheClass(name string) (CacheClass, bool) {
	for _, c := range m.CacheClasses {
		if c.Name == name {
			return c, true
		}
	}
	return CacheClass{}, false
}

// Clone returns a deep copy, so the host never shares slices with a guest.
func (m Manifest) Clone() Manifest {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // plain data always marshals
	}
	var out Manifest
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// TitleIn returns the platform's name in lang ("nl" or "en"): TitleNL for
// Dutch when set, Title otherwise.
func (m *Manifest) TitleIn(lang string) string {
	if lang == "nl" && m.TitleNL != "" {
		return m.TitleNL
	}
	return m.Title
}

// AllowedHostName returns the lower-case host name of an allowed_hosts
// entry ("example.org", "example.org:8443" or "https://example.org:8443"),
// and false for anything else: a path, user info, a bad port or scheme.
func AllowedHostName(entry string) (string, bool) {
	if entry == "" || strings.ContainsAny(entry, "@ ?#") {
		return "", false
	}
	hostport := entry
	if scheme, rest, ok := strings.Cut(entry, "://"); ok {
		if scheme != "http" && scheme != "https" {
			return "", false
		}
		hostport = strings.TrimSuffix(rest, "/")
	}
	if strings.Contains(hostport, "/") {
		return "", false
	}
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i+1:]
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return "", false
		}
	}
	if host == "" || strings.ContainsAny(host, ":[]") {
		return "", false
	}
	return strings.ToLower(host), true
}
