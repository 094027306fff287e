package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostTools are the tools the host itself serves on the unified address:
// the cross-platform search over the connectors served there, and the load
// status. server.tools may leave either out.
func (h *Host) hostTools(onUnified []*platform) []invoke.HostTool {
	// besluitbron_search is shown only the connectors the unified
	// address serves, so it neither lists nor queries a connector the
	// admin hid there. TestExposeHidesConnector fails if that stops
	// being true.
	search := h.searchTools(onUnified)
	var out []invoke.HostTool
	for _, t := range append(search, h.statusTools()...) {
		if h.cfg.Server.ToolExposed(t.Name) {
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
// a pattern that matches no tool (a likely typo, e.g. "<id>-*"), and a
// unified address left with no tool at all.
func (h *Host) exposureWarnings(e exposure, host []invoke.HostTool) []string {
	var names []string
	for _, p := range h.platforms {
		for _, t := range p.manifest.Tools {
			names = append(names, p.toolPrefix()+t.Name)
		}
	}
	for _, t := range host {
		names = append(names, t.Name)
	}
	var out []string
	for i, pat := range h.cfg.Server.Tools {
		if !slices.ContainsFunc(names, func(n string) bool { return onePatternMatches(pat, n) }) {
			out = append(out, fmt.Sprintf("server.tools[%d] %q matches no tool (tool names are <id>_<tool>, such as <id>_search; see tools/list on /mcp/<id>/v1)", i, pat))
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

// searchTools returns besluitbron_search, the cross-platform search over
// the loaded connectors that can take part (none: no tool).
func (h *Host) searchTools(platforms []*platform) []invoke.HostTool {
	var ps []crosssearch.Platform
	for _, p := range platforms {
		var tools []string
		for _, t := range p.manifest.Tools {
			tools = append(tools, t.Name)
		}
		ps = append(ps, crosssearch.Platform{ID: p.id, Title: p.manifest.Title, Tools: tools, Profile: p.manifest.SearchProfile})
	}
	o := crosssearch.Options{
		Platforms: ps,
		// h.mcp is built after the host tools are listed; the search
		// runs only once it exists.
		Invoke: func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) invoke.Answer {
			return h.mcp.Invoke(ctx, info, tool, args)
		},
	}
	if h.o.Clock != nil {
		o.Now = h.o.Clock.Now
	}
	s := crosssearch.New(o)
	if len(s.IDs()) == 0 {
		return nil
	}
	return []invoke.HostTool{s.Tool()}
}

// publicInfo is a call record of the shared public session: the search
// page and the maintenance jobs, whose usage the scheduler does not count.
func publicInfo() *callinfo.Info { return callinfo.Public() }

// newStatusJob builds the Laadstatus job over every loaded platform.
func (h *Host) newStatusJob(updated func()) *loadstatus.Job {
	var ts []loadstatus.Target
	for _, p := range h.platforms {
		t := loadstatus.Target{ID: p.id, Title: p.manifest.Title, Reach: h.reachProbe(p)}
		// How the platform tells its freshness is its manifest's word:
		// per-source import state, or the newest result of a search.
		if fp := p.manifest.Freshness; fp != nil {
			of := ""
			if fp.Reads == connector.FreshnessNewest {
				of = fp.Type
			}
			// h.mcp is built after the host tools; the job runs once it is.
			run := func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) invoke.Answer {
				return h.mcp.Invoke(ctx, info, tool, args)
			}
			t.Freshness = loadstatus.FreshnessProbe(run, p.id+"_"+fp.Tool, fp.Arguments, of)
		}
		ts = append(ts, t)
	}
	return loadstatus.New(ts, &loadstatus.Options{
		Interval:  h.cfg.Status.Interval,
		SlowAfter: h.cfg.Status.SlowAfter,
		Clock:     h.o.Clock,
		Logger:    h.log,
		Quotas:    h.quotaStatus,
		Updated:   updated,
	})
}

// reachProbe is the light probe: one uncached HEAD of the platform's base
// URL through its fetch gate, so it passes the same allowed-hosts policy
// and waits at the same limit (1 unit of the first declared service) as a
// tool call, as the public session.
func (h *Host) reachProbe(p *platform) func(ctx context.Context) (loadstatus.Reach, error) {
	service := p.manifest.Services[0].Name
	return func(ctx context.Context) (loadstatus.Reach, error) {
		info := publicInfo()
		resp, err := p.gate.Fetch(callinfo.With(ctx, info), connector.FetchRequest{
			Method: "HEAD", URL: p.manifest.BaseURL, Service: service, Cost: 1, CacheClass: connector.ClassNone,
		})
		sum := info.Summary()
		return loadstatus.Reach{Status: resp.Status, Upstream: sum.Upstream, Queued: sum.Queued}, err
	}
}

// startStatus runs the Laadstatus job until the returned stop is called,
// and the sampling of the quotas' traffic for its charts, which runs even
// when the checks are switched off: it reads local counters and costs no
// platform anything.
func (h *Host) startStatus(ctx context.Context) (stop func()) {
	if h.lstatus == nil {
		return func() {}
	}
	stopHistory := h.lstatus.StartHistory()
	if !h.cfg.Status.Enabled {
		return stopHistory
	}
	stopJob := h.lstatus.Start(ctx)
	return func() { stopJob(); stopHistory() }
}

// statusTools returns besluitbron_status, the platforms' load status. It
// answers from the job's last round (h.lstatus, built before it) and
// never calls a platform.
func (h *Host) statusTools() []invoke.HostTool {
	var ids []any
	for _, p := range h.platforms {
		ids = append(ids, p.id)
	}
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"platform":     {Type: "string", Enum: ids, Description: "Only this platform (connector id)."},
			"organization": {Type: "string", MinLength: ptrInt(1), MaxLength: ptrInt(100), Description: "A municipality, province or water board (name or source key, e.g. \"Soest\"): how current its data is, where the platform reports that per organisation (" + h.perSourceTitles() + ")."},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return []invoke.HostTool{{
		Name:  "besluitbron_status",
		Title: "Load status of the platforms (Laadstatus)",
		Description: "Whether each platform answers, how fast, and how fresh its data is, as BesluitBron's own maintenance job last found it (it checks every few minutes), " +
			"and the request limits BesluitBron keeps per upstream host: where each comes from (published by the platform, measured, BesluitBron's own polite choice, set by the administrator, or unknown: none published and none observed, which is not the same as no limit), which connectors share each (their calls count together), how many calls wait, whether a 429 paused it. " +
			"Give organization to learn whether a municipality's data is current or stale on " + h.perSourceTitles() + ", so you can tell the user when a missing result may be a missing import. " +
			"Cost: free; reads the last check and never calls a platform.",
		InputSchema: schema,
		Handler:     h.statusHandler,
	}}
}

func ptrInt(n int) *int { return &n }

// perSourceTitles names the platforms whose manifests say they report
// freshness per source (connector.FreshnessSources), from the manifests
// rather than by name, so that the status tool says what this host's
// connectors report.
func (h *Host) perSourceTitles() string {
	var ts []string
	for _, p := range h.platforms {
		if f := p.manifest.Freshness; f != nil && f.Reads == connector.FreshnessSources {
			ts = append(ts, p.manifest.Title)
		}
	}
	if len(ts) == 0 {
		return "a platform that reports freshness per source"
	}
	return strings.Join(ts, ", ")
}

// statusAnswer is besluitbron_status's result.
type statusAnswer struct {
	GeneratedAt     time.Time        `json:"generated_at"`
	IntervalSeconds float64          `json:"interval_seconds"`
	Summary         []string         `json:"summary"`
	Platforms       []statusPlatform `json:"platforms"`
	// Quotas are the limits kept per upstream host, with the connectors
	// that share each (only those of platform, when given).
	Quotas        []loadstatus.Quota `json:"quotas,omitempty"`
	Organizations []statusOrgMatches `json:"organizations,omitempty"`
}

type statusPlatform struct {
	loadstatus.Status
	// Freshness without the full source list (see organizations).
	Freshness *loadstatus.Freshness `json:"freshness,omitempty"`
	// ProblemSources are the sources whose imports are behind.
	ProblemSources []loadstatus.Source `json:"problem_sources,omitempty"`
}

type statusOrgMatches struct {
	Platform string              `json:"platform"`
	Query    string              `json:"query"`
	Sources  []loadstatus.Source `json:"sources"`
}

func (h *Host) statusHandler(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
	var a struct {
		Platform     string `json:"platform"`
		Organization string `json:"organization"`
	}
	free := callinfo.Summary{Cache: callinfo.Bypass}
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return invoke.Failed(fmt.Sprintf("besluitbron_status: invalid arguments: %v", err), free)
		}
	}
	b, err := h.statusJSON(a.Platform, a.Organization)
	if err != nil {
		return invoke.Failed("besluitbron_status: "+err.Error(), free)
	}
	return invoke.JSONAnswer(b, free)
}

// statusURI is the Laadstatus as a resource.
const statusURI = "besluitbron://status"

// statusResource is besluitbron://status: besluitbron_status's answer for
// every platform, as a resource that clients may subscribe to; every
// status round tells the subscribers it changed.
func (h *Host) statusResource() mcpserver.HostResource {
	return mcpserver.HostResource{
		Resource: &mcp.Resource{
			URI: statusURI, Name: "laadstatus", Title: "Load status of the platforms (Laadstatus)", MIMEType: "application/json",
			Description: "Whether each platform answers, how fast and how fresh its data is, and the limits kept per upstream host, as the last status round found them. " +
				"Subscribe (resources/subscribe) to be told after every round (every few minutes). Reading it never calls a platform.",
		},
		Read:         func(context.Context) (string, error) { b, err := h.statusJSON("", ""); return string(b), err },
		Subscribable: true,
	}
}

// statusJSON is besluitbron_status's answer: of one platform or all, and
// the freshness of the organisations matching org.
func (h *Host) statusJSON(platform, org string) ([]byte, error) {
	a := struct{ Platform, Organization string }{platform, org}
	snap := h.lstatus.Snapshot()
	if a.Platform != "" {
		if _, ok := snap.Platform(a.Platform); !ok {
			return nil, fmt.Errorf("argument \"platform\": no platform %q (loaded: %s)", a.Platform, strings.Join(h.Connectors(), ", "))
		}
	}
	out := statusAnswer{GeneratedAt: snap.GeneratedAt, IntervalSeconds: snap.IntervalSeconds, Platforms: []statusPlatform{}}
	if !h.cfg.Status.Enabled {
		out.Summary = append(out.Summary, "The load-status job is switched off in this installation ([status] enabled = false): platforms are not checked.")
	}
	org = strings.TrimSpace(a.Organization)
	for _, s := range snap.Platforms {
		if a.Platform != "" && s.Platform != a.Platform {
			continue
		}
		sp := statusPlatform{Status: s}
		out.Summary = append(out.Summary, describeStatus(s, snap.GeneratedAt))
		if f := s.Freshness; f != nil {
			slim := *f
			slim.Sources = nil
			sp.Freshness = &slim
			sp.ProblemSources = f.Problems()
			if org != "" && f.Sources != nil {
				m := statusOrgMatches{Platform: s.Platform, Query: org, Sources: f.Find(org)}
				if len(m.Sources) > 10 {
					m.Sources = m.Sources[:10]
				}
				out.Organizations = append(out.Organizations, m)
				if len(m.Sources) == 0 {
					out.Summary = append(out.Summary, fmt.Sprintf("%s reports no source matching %q.", s.Title, org))
				}
				for _, src := range m.Sources {
					out.Summary = append(out.Summary, describeSource(s.Title, src, f))
				}
			}
		}
		out.Platforms = append(out.Platforms, sp)
	}
	quotas := snap.Quotas
	if a.Platform != "" {
		quotas = snap.QuotasOf(a.Platform)
	}
	for _, q := range quotas {
		if line := describeQuota(q, snap.GeneratedAt); line != "" {
			out.Summary = append(out.Summary, line)
		}
	}
	// The per-minute history is for the Laadstatus charts; an assistant
	// gets the state now, and 60 points per quota would only cost it
	// context.
	out.Quotas = make([]loadstatus.Quota, len(quotas))
	for i, q := range quotas {
		q.History = nil
		out.Quotas[i] = q
	}
	if org != "" && len(out.Organizations) == 0 {
		out.Summary = append(out.Summary, "No platform in this selection has reported per-organisation freshness yet (only "+h.perSourceTitles()+" does, once its first check has run).")
	}
	return json.Marshal(out)
}

// describeQuota says in a sentence or two what limit BesluitBron keeps at
// a host, where it comes from, who shares it and how it is now. A host
// reached without a limit is said too: that BesluitBron keeps none is not
// that the platform has none.
func describeQuota(q loadstatus.Quota, now time.Time) string {
	titles := q.Titles()
	together := ""
	if len(titles) > 1 {
		together = " together"
	}
	var line string
	switch {
	case !q.Limited && q.LimitFrom == loadstatus.LimitAdmin:
		line = fmt.Sprintf("No limit kept at %s for %s%s: set so by the administrator (%s).", q.Quota, quota.And(titles), together, q.Source)
	case !q.Limited:
		line = fmt.Sprintf("Limit at %s unknown: no limit published and none observed, which is not the same as no limit; BesluitBron keeps none there, so calls from %s are not queued.", q.Quota, quota.And(titles))
	default:
		line = fmt.Sprintf("Limit at %s: %g units per %s, for %s%s; %s.", q.Quota, q.Units, time.Duration(q.PerSeconds*float64(time.Second)), quota.And(titles), together, limitOriginText(q))
	}
	if q.LimitNote != "" && q.LimitFrom != loadstatus.LimitAdmin {
		line += " " + q.LimitNote
	}
	if q.Waiting > 0 {
		line += fmt.Sprintf(" %d call(s) waiting.", q.Waiting)
	}
	if !q.PausedUntil.IsZero() && q.PausedUntil.After(now) {
		line += fmt.Sprintf(" Paused for %s after a 429 from the host.", q.PausedUntil.Sub(now).Round(time.Second))
	}
	return line
}

// limitOriginText says in English where a limited quota's limit comes
// from.
func limitOriginText(q loadstatus.Quota) string {
	switch q.Origin() {
	case loadstatus.LimitAdmin:
		return "set by the administrator (" + q.Source + ")"
	case connector.LimitPublished:
		return "published by the platform (" + q.LimitWhere + ")"
	case connector.LimitMeasured:
		return "measured: the platform publishes none"
	case connector.LimitPolite:
		return "BesluitBron's own choice: the platform publishes no number"
	}
	return "origin not stated"
}

// limitOrigin sets q's LimitFrom and notes from the claim c: the admin's
// key, or its service's manifest.
func (h *Host) limitOrigin(q *loadstatus.Quota, c quota.Claim) {
	if c.Admin {
		q.LimitFrom, q.LimitWhere, q.LimitNote, q.LimitNoteNL = loadstatus.LimitAdmin, "", "", ""
		if q.Source == "" {
			q.Source = c.Source()
		}
		return
	}
	s, _ := h.service(c.Platform, c.Service)
	q.LimitFrom, q.LimitWhere, q.LimitNote, q.LimitNoteNL = s.LimitOrigin(), s.LimitWhere, s.LimitNote, s.LimitNoteNL
}

// userLimitFrom is where one connector service's own limit comes from.
func (h *Host) userLimitFrom(platform, service string) string {
	for _, p := range h.platforms {
		if p.id == platform {
			if _, admin := p.cfg.Limits[service]; admin {
				return loadstatus.LimitAdmin
			}
		}
	}
	s, _ := h.service(platform, service)
	return s.LimitOrigin()
}

// service is a loaded connector's declared service.
func (h *Host) service(platform, name string) (connector.Service, bool) {
	for _, p := range h.platforms {
		if p.id == platform {
			return p.manifest.Service(name)
		}
	}
	return connector.Service{}, false
}

// describeStatus says in one sentence how a platform was at its last check.
func describeStatus(s loadstatus.Status, now time.Time) string {
	if s.State == loadstatus.Unknown {
		return s.Title + ": not checked yet."
	}
	line := fmt.Sprintf("%s: %s, checked %s ago. %s.", s.Title, s.State, ago(now.Sub(s.CheckedAt)), s.Message)
	if s.State == loadstatus.Down && !s.DownSince.IsZero() {
		line += fmt.Sprintf(" Down for %s (%d checks).", ago(now.Sub(s.DownSince)), s.Failures)
	}
	if f := s.Freshness; f != nil {
		if f.Newest != "" {
			line += fmt.Sprintf(" Newest %s: %s.", f.NewestOf, f.Newest)
		}
		if f.Counts != nil {
			line += fmt.Sprintf(" Sources: %d ok, %d stale, %d failing.", f.Counts["ok"], f.Counts["stale"], f.Counts["failing"])
		}
	}
	if s.FreshnessError != "" {
		line += " The last freshness check failed: " + s.FreshnessError
	}
	return line
}

func describeSource(title string, s loadstatus.Source, f *loadstatus.Freshness) string {
	var what string
	switch s.State {
	case "ok":
		what = fmt.Sprintf("current (imported within the last %g hours)", f.WindowHours)
	case "stale":
		what = fmt.Sprintf("STALE: no successful import within the last %g hours; recent documents may be missing", f.WindowHours)
	case "failing":
		what = fmt.Sprintf("FAILING: its imports fail and none succeeded within the last %g hours; recent documents may be missing", f.WindowHours)
	case "never_imported":
		what = "never imported yet: no documents"
	case "not_implemented":
		what = "not imported by this platform"
	case "discontinued":
		what = "discontinued (the organisation no longer exists)"
		if s.SucceededBy != "" {
			what += "; succeeded by " + s.SucceededBy
		}
	default:
		what = s.State
	}
	line := fmt.Sprintf("%s, %s (%s): %s", title, s.Label, s.Key, what)
	if s.LastSuccessAt != "" {
		line += "; last successful import " + s.LastSuccessAt
	}
	if s.LatestContentDate != "" {
		line += "; newest meeting " + s.LatestContentDate
	}
	if s.LastError != "" {
		line += "; last error: " + s.LastError
	}
	return line + "."
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// webRoutes adds the search page, the document view and the Laadstatus
// pages.
func (h *Host) webRoutes(mux *http.ServeMux) { h.web.Routes(mux) }

// guardPages puts the pages on mux behind the rules of the MCP addresses
// that mcp guards (web/guard.go says which page passes which): the Host
// rule against DNS rebinding, server.allowed_origins, and the client
// limits of mcp's very Limits, so that a page search costs a client
// address (and the process) the tool calls it starts. Everything else on
// mux passes untouched.
func (h *Host) guardPages(mcp *inbound.Guard, mux *http.ServeMux) http.Handler {
	s := h.cfg.Server
	// Validated when the configuration was loaded (and by protect).
	origins, err := inbound.NewOrigins(s.AllowedOrigins)
	if err != nil {
		panic(fmt.Sprintf("server.allowed_origins%v", err))
	}
	return h.web.Guard(mux, web.GuardOptions{Limits: mcp.Limits(), Origins: origins, Trusted: config.Prefixes(s.TrustedProxies), Now: h.now})
}

// newWeb builds the pages' server (once, from statusTools during New: every
// Handler shares it, and with it the pages' running calls). Its calls go
// through the MCP server's internal path (Invoke), the server being
// created after it.
func (h *Host) newWeb() *web.Server {
	invoke := func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) invoke.Answer {
		return h.mcp.Invoke(ctx, info, tool, args)
	}
	o := web.Options{Invoke: invoke, Version: h.o.Version, Logger: h.log, Registerer: h.registry}
	if h.lstatus != nil {
		o.Status = h.lstatus.Snapshot
	}
	if h.cl.c != nil {
		o.Cluster = h.clusterLines
	}
	for _, p := range h.platforms {
		if wp, ok := webPlatform(p); ok {
			o.Platforms = append(o.Platforms, wp)
		}
	}
	return web.New(o)
}

// webPlatform describes a platform to the pages from its manifest
// (web.PlatformOf: the pages read the search profile and the type labels
// as besluitbron_search does).
func webPlatform(p *platform) (web.Platform, bool) { return web.PlatformOf(p.id, p.manifest) }

// clusterRoutes serves /status/cluster.json: this replica's view of the
// cluster (each quota, with the connectors that use it, shared, or on its
// own share while Redis is unreachable).
func (h *Host) clusterRoutes(mux *http.ServeMux) {
	mux.Handle("GET /status/cluster.json", h.monitored(h.clusterJSON(false)))
}

// clusterJSON answers /status/cluster.json. The public address's (full
// false) leaves out the replica's id (by default the host name and pid)
// and the last Redis errors (they name Redis's address): those are for
// server.admin_addr.
func (h *Host) clusterJSON(full bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any = map[string]any{"enabled": false, "message": "cluster.redis_url is not set: this process schedules on its own."}
		if h.cl.c != nil {
			st := h.cl.c.Status()
			if !full {
				st.ReplicaID = ""
				st.Quotas = slices.Clone(st.Quotas)
				for i := range st.Quotas {
					st.Quotas[i].LastError = ""
				}
			}
			v = struct {
				Enabled bool `json:"enabled"`
				cluster.Status
			}{true, st}
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
}

// clusterLines words this replica's cluster state for the status page: one
// summary line, and one line per quota not sharing through Redis.
func (h *Host) clusterLines() []web.ClusterLine {
	st := h.cl.c.Status()
	lines := []web.ClusterLine{{Text: fmt.Sprintf("Replica %s; %d live replica(s) seen.", st.ReplicaID, st.LiveReplicas)}}
	shared := 0
	for _, s := range st.Quotas {
		if s.Mode == cluster.Shared.String() {
			shared++
			continue
		}
		var users []string
		for _, u := range s.Connectors {
			users = append(users, u.Platform+" ("+u.Service+")")
		}
		lines = append(lines, web.ClusterLine{Text: s.Quota + " [" + strings.Join(users, ", ") + "]: " + s.Message, Warn: true})
	}
	if shared > 0 {
		lines = append(lines, web.ClusterLine{Text: fmt.Sprintf("%d quota(s) shared with every replica through Redis.", shared)})
	}
	return lines
}

// quotaStatus describes every quota for the status pages and
// besluitbron_status: the limited ones with their state now, then the
// hosts the connectors reach without a limit. Quotas come by name.
func (h *Host) quotaStatus() []loadstatus.Quota {
	var modes map[string]cluster.LimiterStatus
	if h.cl.c != nil {
		modes = map[string]cluster.LimiterStatus{}
		for _, st := range h.cl.c.Status().Quotas {
			modes[st.Quota] = st
		}
	}
	var out []loadstatus.Quota
	now := h.now()
	limited := map[string]bool{}
	for _, q := range h.quotas {
		limited[q.Name] = true
		st := q.Scheduler().Stats()
		tokens := st.Tokens
		lq := loadstatus.Quota{Quota: q.Name, Limited: true, Units: q.Limit.Units, PerSeconds: q.Limit.Per.Seconds(), Source: q.Source,
			Shared: q.Shared(), WaitingSessions: st.WaitingSessions, Tokens: &tokens}
		// The claim whose limit won, so pages can word where it comes
		// from in their own language.
		for _, c := range h.claims {
			if c.Quota == q.Name && c.Source() == q.Source {
				lq.SourceAdmin, lq.SourcePlatform, lq.SourceService = c.Admin, c.Platform, c.Service
				h.limitOrigin(&lq, c)
				break
			}
		}
		if st.PausedUntil.After(now) {
			lq.PausedUntil = st.PausedUntil
		}
		hr := q.HeadroomAt(now)
		lq.Headroom = &loadstatus.Headroom{Units: hr.Units, Reason: hr.Reason, SpreadSeconds: hr.Spread.Seconds(), After429: hr.After429}
		for _, u := range q.Uses() {
			us := u.Stats()
			lq.Connectors = append(lq.Connectors, loadstatus.QuotaUser{Platform: u.Platform, Title: u.Title, Service: u.Service,
				Waiting: us.Waiting, Calls: us.Calls, Units: us.Units, Got429: us.Got429, LimitFrom: h.userLimitFrom(u.Platform, u.Service)})
			lq.Waiting += us.Waiting
		}
		if m, ok := modes[q.Name]; ok {
			lq.Cluster = m.Mode
			// In Redis the local bucket is not the one that decides.
			lq.Tokens, lq.WaitingSessions, lq.PausedUntil = nil, 0, time.Time{}
		}
		out = append(out, lq)
	}
	free := map[string]*loadstatus.Quota{}
	var names []string
	for _, c := range h.claims {
		if limited[c.Quota] {
			continue
		}
		q := free[c.Quota]
		if q == nil {
			q = &loadstatus.Quota{Quota: c.Quota}
			free[c.Quota] = q
			names = append(names, c.Quota)
		}
		// No limit kept: unknown, unless an admin's key took it away (then
		// that is what the page says); the first service with a note speaks.
		switch {
		case q.LimitFrom == loadstatus.LimitAdmin: // the admin's word stands
		case c.Admin, q.LimitFrom == "", q.LimitNote == "":
			h.limitOrigin(q, c)
		}
		q.Connectors = append(q.Connectors, loadstatus.QuotaUser{Platform: c.Platform, Title: c.Title, Service: c.Service, LimitFrom: h.userLimitFrom(c.Platform, c.Service)})
	}
	slices.Sort(names)
	for _, n := range names {
		q := free[n]
		titles := map[string]bool{}
		for _, u := range q.Connectors {
			titles[u.Title] = true
		}
		q.Shared = len(titles) > 1
		out = append(out, *q)
	}
	return out
}
