package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/limits"
	"github.com/besluitbron/besluitbron/host/internal/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// publicInfo is a call record of the shared public session: the search
// page and the maintenance jobs, whose usage the scheduler does not count.
func publicInfo() *callinfo.Info {
	return &callinfo.Info{Session: sched.PublicSession, Public: true}
}

// newStatusJob builds the Laadstatus job over every loaded platform.
func (h *Host) newStatusJob() *loadstatus.Job {
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
			invoke := func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) mcpserver.Answer {
				return h.mcp.Invoke(ctx, info, tool, args)
			}
			t.Freshness = loadstatus.FreshnessProbe(invoke, p.id+"_"+fp.Tool, fp.Arguments, of)
		}
		ts = append(ts, t)
	}
	return loadstatus.New(ts, &loadstatus.Options{
		Interval:  h.cfg.Status.Interval,
		SlowAfter: h.cfg.Status.SlowAfter,
		Clock:     h.o.Clock,
		Logger:    h.log,
		Quotas:    h.quotaStatus,
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
// answers from the job's last round and never calls a platform. Called
// once from New, it also builds the Laadstatus job and the pages.
func (h *Host) statusTools() []mcpserver.HostTool {
	if h.lstatus == nil {
		h.lstatus = h.newStatusJob()
		h.registry.MustRegister(loadstatus.NewCollector(h.lstatus))
	}
	if h.web == nil {
		h.web = h.newWeb()
	}
	var ids []any
	for _, p := range h.platforms {
		ids = append(ids, p.id)
	}
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"platform":     {Type: "string", Enum: ids, Description: "Only this platform (connector id)."},
			"organization": {Type: "string", MinLength: ptrInt(1), MaxLength: ptrInt(100), Description: "A municipality, province or water board (name or source key, e.g. \"Soest\"): how current its data is, where the platform reports that per organisation (OpenBesluitvorming)."},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	tool := &mcp.Tool{
		Name:  "besluitbron_status",
		Title: "Load status of the platforms (Laadstatus)",
		Description: "Whether each platform answers, how fast, and how fresh its data is, as BesluitBron's own maintenance job last found it (it checks every few minutes), " +
			"and the request limits BesluitBron keeps per upstream host: which connectors share each (their calls count together), how many calls wait, whether a 429 paused it. " +
			"Give organization to learn whether a municipality's data is current or stale on OpenBesluitvorming, so you can tell the user when a missing result may be a missing import. " +
			"Cost: free; reads the last check and never calls a platform.",
		InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Load status"},
	}
	return []mcpserver.HostTool{{Tool: tool, Handler: h.statusHandler}}
}

func ptrInt(n int) *int { return &n }

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

func (h *Host) statusHandler(ctx context.Context, info *callinfo.Info, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Platform     string `json:"platform"`
		Organization string `json:"organization"`
	}
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return nil, fmt.Errorf("invalid arguments: %v", err)
		}
	}
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
	org := strings.TrimSpace(a.Organization)
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
		out.Summary = append(out.Summary, "No platform in this selection has reported per-organisation freshness yet (only OpenBesluitvorming does, once its first check has run).")
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b),
		Meta: mcp.Meta{mcpserver.MetaCache: callinfo.Bypass, mcpserver.MetaQueuedMS: 0, mcpserver.MetaUpstreamMS: 0}}, nil
}

// describeQuota says in a sentence what limit BesluitBron keeps at a host,
// who shares it and how it is now; "" for a host reached without a limit
// that no one shares.
func describeQuota(q loadstatus.Quota, now time.Time) string {
	titles := q.Titles()
	if !q.Limited {
		if len(titles) < 2 {
			return ""
		}
		return fmt.Sprintf("No limit kept at %s (used by %s).", q.Quota, limits.And(titles))
	}
	line := fmt.Sprintf("Limit at %s: %g units per %s, for %s", q.Quota, q.Units, time.Duration(q.PerSeconds*float64(time.Second)), limits.And(titles))
	if len(titles) > 1 {
		line += " together"
	}
	line += "."
	if q.Waiting > 0 {
		line += fmt.Sprintf(" %d call(s) waiting.", q.Waiting)
	}
	if !q.PausedUntil.IsZero() && q.PausedUntil.After(now) {
		line += fmt.Sprintf(" Paused for %s after a 429 from the host.", q.PausedUntil.Sub(now).Round(time.Second))
	}
	return line
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
