package host

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/serve/watch"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// buildFeatures builds the host's own features over the invoke path: the
// Laadstatus job (its checks call tools as the public session), what the
// unified address exposes and the host tools (besluitbron_search,
// besluitbron_status) the MCP edge serves, the start's words on them, and
// the pages.
func (h *Host) buildFeatures(context.Context) error {
	h.lstatus = h.newStatusJob()
	h.registry.MustRegister(loadstatus.NewCollector(h.lstatus))
	h.statusOpts = h.statusOptions()
	h.plan = h.set.PlanExposure()
	if err := h.buildWatches(h.plan.OnUnified); err != nil {
		return err
	}
	h.tools = h.hostTools(h.plan.OnUnified)
	var names []string
	for _, t := range h.tools {
		names = append(names, t.Name)
	}
	h.warnings = h.set.ExposureWarnings(h.plan, names)
	for _, w := range h.warnings {
		h.log.Warn(w)
	}
	h.web = h.newWeb()
	return nil
}

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
	search = append(search, h.citeService(onUnified).Tools()...) // besluitbron_cite, besluitbron_check_quote
	all := append(search, h.lstatus.Tool(h.statusOpts))
	if h.watches != nil {
		all = append(all, h.watches.Tool())
	}
	for _, t := range all {
		if h.cfg.Server.ToolExposed(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// searchTools returns besluitbron_search, the cross-platform search over
// the loaded connectors that can take part (none: no tool).
func (h *Host) searchTools(platforms []*platform) []invoke.HostTool {
	s := h.searcher(platforms)
	if len(s.IDs()) == 0 {
		return nil
	}
	return []invoke.HostTool{s.Tool()}
}

// searcher is the cross-platform search over platforms.
func (h *Host) searcher(platforms []*platform) *crosssearch.Searcher {
	var ps []crosssearch.Platform
	for _, p := range platforms {
		var tools []string
		for _, t := range p.Manifest.Tools {
			tools = append(tools, t.Name)
		}
		ps = append(ps, crosssearch.Platform{ID: p.ID, Title: p.Manifest.Title, Tools: tools, Profile: p.Manifest.SearchProfile})
	}
	o := crosssearch.Options{
		Platforms: ps,
		Invoke:    h.engine.Invoke,
	}
	if h.o.Clock != nil {
		o.Now = h.o.Clock.Now
	}
	return crosssearch.New(o)
}

// newStatusJob builds the Laadstatus job over every loaded platform.
func (h *Host) newStatusJob() *loadstatus.Job {
	var ts []loadstatus.Target
	for _, p := range h.platforms {
		t := loadstatus.Target{ID: p.ID, Title: p.Manifest.Title, Reach: h.reachProbe(p)}
		// How the platform tells its freshness is its manifest's word:
		// per-source import state, or the newest result of a search.
		if fp := p.Manifest.Freshness; fp != nil {
			of := ""
			if fp.Reads == connector.FreshnessNewest {
				of = fp.Type
			}
			t.Freshness = loadstatus.FreshnessProbe(h.engine.Invoke, p.ID+"_"+fp.Tool, fp.Arguments, of)
		}
		ts = append(ts, t)
	}
	return loadstatus.New(ts, &loadstatus.Options{
		Interval:  h.cfg.Status.Interval,
		SlowAfter: h.cfg.Status.SlowAfter,
		Clock:     h.o.Clock,
		Logger:    h.log,
		Quotas:    h.quotaStatus,
		Watches: func() watch.Share {
			if h.watches == nil {
				return watch.Share{}
			}
			return h.watches.Status()
		},
	})
}

// buildWatches builds the watches ([watch], package watch) over the
// cross-search of the platforms the unified address serves: their polls
// are besluitbron_search calls of the public session, paced within
// watch.quota_share of each platform's limit (watchLimit). Watches off,
// or no platform to search: none.
func (h *Host) buildWatches(onUnified []*platform) error {
	s := h.searcher(onUnified)
	if !h.cfg.Watch.Enabled || len(s.IDs()) == 0 {
		return nil
	}
	w := h.cfg.Watch
	o := watch.Options{
		Search: s.Handle, Platforms: s.IDs(), Defaults: s.IDs(), Limit: h.watchLimit,
		Share: w.QuotaShare, MinInterval: w.MinInterval, MaxPerOwner: w.MaxPerOwner, MaxTotal: w.MaxTotal,
		File: h.cfg.WatchFile(), Clock: h.o.Clock, Logger: h.log,
		Notify: func(uri string) {
			if h.mcp != nil {
				h.mcp.ResourceUpdated(context.Background(), uri)
			}
		},
	}
	if h.cl != nil {
		// One set of watches for the cluster, polled by one replica at a
		// time within the share (a file per replica would multiply it).
		o.Shared = h.cl.Watches()
	}
	m, err := watch.New(o)
	h.watches = m
	return err
}

// watchLimit is platform id's limit as the watches take their share of
// it: the strictest of its services' limited quotas, each divided among
// the platforms that share it, so that the polls of all of them together
// stay within the share of the one quota.
func (h *Host) watchLimit(id string) watch.Limit {
	var best watch.Limit
	for _, c := range h.claims {
		if c.Platform != id {
			continue
		}
		for _, q := range h.quotas {
			if q.Name != c.Quota || q.Limit.Units <= 0 || q.Limit.Per <= 0 {
				continue
			}
			sharers := map[string]bool{}
			for _, o := range h.claims {
				if o.Quota == q.Name {
					sharers[o.Platform] = true
				}
			}
			l := watch.Limit{Units: q.Limit.Units / float64(len(sharers)), Per: q.Limit.Per, Ok: true}
			if !best.Ok || l.Units/l.Per.Seconds() < best.Units/best.Per.Seconds() {
				best = l
			}
		}
	}
	return best
}

// watchResource is besluitbron://watch/{+id}: a watch's new results,
// read and subscribed to by its owner (or the holder of its feed's
// secret) only.
func (h *Host) watchResource() []mcpserver.HostTemplate {
	if h.watches == nil {
		return nil
	}
	m := h.watches
	return []mcpserver.HostTemplate{{
		Template: &mcp.ResourceTemplate{
			URITemplate: watch.URIPrefix + "{+id}", Name: "watch", Title: "A watch's new results", MIMEType: "application/json",
			Description: "What a watch (besluitbron_watch) found that is new: results first seen after ?since=<RFC 3339 time> (default: the watch's creation), newest first, grouped as besluitbron_search groups copies, with how fresh the watch is. " +
				"Subscribe to besluitbron://watch/<id> to be told when new results come. Only the client that created it, or whoever has its feed's secret (&secret=), may read it. Reading it never calls a platform.",
		},
		Prefix:    watch.URIPrefix,
		Read:      func(_ context.Context, caller, uri string) (string, error) { return m.Read(caller, uri) },
		Subscribe: func(_ context.Context, caller, uri string) error { return m.Subscribable(caller, uri) },
	}}
}

// follow saves a search page's search as a watch of the reader's
// address (as callinfo.ChargedTo names a client without a session) and
// returns its feed's path.
func (h *Host) follow(r *http.Request, f web.FollowSearch) (string, error) {
	owner := callinfo.ChargedTo(callinfo.Caller{Address: inbound.ClientIP(r, config.Prefixes(h.cfg.Server.TrustedProxies)).String()})
	w, err := h.watches.Create(owner, watch.Query{Query: f.Query, Platforms: f.Platforms, Organization: f.Organization, DateFrom: f.DateFrom, DateTo: f.DateTo})
	if err != nil {
		return "", err
	}
	return w.Feed(), nil
}

// reachProbe is the light probe: one uncached HEAD of the platform's base
// URL through its fetch gate, so it passes the same allowed-hosts policy
// and waits at the same limit (1 unit of the first declared service) as a
// tool call, as the public session.
func (h *Host) reachProbe(p *platform) func(ctx context.Context) (loadstatus.Reach, error) {
	service := p.Manifest.Services[0].Name
	return func(ctx context.Context) (loadstatus.Reach, error) {
		info := callinfo.Public()
		resp, err := p.Gate.Fetch(callinfo.With(ctx, info), connector.FetchRequest{
			Method: "HEAD", URL: p.Manifest.BaseURL, Service: service, Cost: 1, CacheClass: connector.ClassNone,
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

// statusOptions are what besluitbron_status says of this installation.
func (h *Host) statusOptions() loadstatus.ToolOptions {
	o := loadstatus.ToolOptions{Enabled: h.cfg.Status.Enabled, PerSource: h.perSourceTitles()}
	for _, p := range h.platforms {
		o.IDs = append(o.IDs, p.ID)
	}
	return o
}

// perSourceTitles names the platforms whose manifests say they report
// freshness per source (connector.FreshnessSources), from the manifests
// rather than by name, so that the status tool says what this host's
// connectors report.
func (h *Host) perSourceTitles() string {
	var ts []string
	for _, p := range h.platforms {
		if f := p.Manifest.Freshness; f != nil && f.Reads == connector.FreshnessSources {
			ts = append(ts, p.Manifest.Title)
		}
	}
	if len(ts) == 0 {
		return "a platform that reports freshness per source"
	}
	return strings.Join(ts, ", ")
}

// statusURI is the Laadstatus as a resource.
const statusURI = loadstatus.URI

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
		Read: func(context.Context) (string, error) {
			b, err := h.lstatus.AnswerJSON(h.statusOpts, "", "")
			return string(b), err
		},
		Subscribable: true,
	}
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
		if p.ID == platform {
			if _, admin := p.Config.Limits[service]; admin {
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
		if p.ID == platform {
			return p.Manifest.Service(name)
		}
	}
	return connector.Service{}, false
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
	o := web.Options{Invoke: h.engine.Invoke, Version: h.o.Version, Logger: h.log, Registerer: h.registry, Cite: h.citeService(h.platforms)}
	if h.watches != nil {
		o.Follow, o.Feed = h.follow, h.watches.FeedHandler()
	}
	if h.lstatus != nil {
		o.Status = h.lstatus.Snapshot
	}
	if h.cl != nil {
		o.Cluster = func() (ls []web.ClusterLine) {
			for _, l := range h.cl.Lines() {
				ls = append(ls, web.ClusterLine(l))
			}
			return ls
		}
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
func webPlatform(p *platform) (web.Platform, bool) { return web.PlatformOf(p.ID, p.Manifest) }

// quotaStatus describes every quota for the status pages and
// besluitbron_status: the limited ones with their state now, then the
// hosts the connectors reach without a limit. Quotas come by name.
func (h *Host) quotaStatus() []loadstatus.Quota {
	var modes map[string]cluster.LimiterStatus
	if h.cl != nil {
		modes = map[string]cluster.LimiterStatus{}
		for _, st := range h.cl.Status().Quotas {
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
