package loadstatus

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/watch"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ToolOptions are what besluitbron_status says of the installation beyond
// the job's own rounds.
type ToolOptions struct {
	// IDs are the loaded connectors, the values the platform argument
	// takes.
	IDs []string
	// Enabled is false when the admin switched the checks off ([status]
	// enabled = false): the answer says the platforms are not checked.
	Enabled bool
	// PerSource names the platforms that report freshness per source
	// (their manifests say so), for the organization argument's words.
	PerSource string
}

// ToolName is the Laadstatus tool's name.
const ToolName = "besluitbron_status"

// URI is the Laadstatus as a resource: the tool's answer for every
// platform.
const URI = "besluitbron://status"

// Tool is besluitbron_status, the platforms' load status, as the job owns
// it (as crosssearch owns besluitbron_search). It answers from the job's
// last round and never calls a platform.
func (j *Job) Tool(o ToolOptions) invoke.HostTool {
	var ids []any
	for _, id := range o.IDs {
		ids = append(ids, id)
	}
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"platform":     {Type: "string", Enum: ids, Description: "Only this platform (connector id)."},
			"organization": {Type: "string", MinLength: ptrInt(1), MaxLength: ptrInt(100), Description: "A municipality, province or water board (name or source key, e.g. \"Soest\"): how current its data is, where the platform reports that per organisation (" + o.PerSource + ")."},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return invoke.HostTool{
		Name:  ToolName,
		Title: "Load status of the platforms (Laadstatus)",
		Description: "Whether each platform answers, how fast, and how fresh its data is, as BesluitBron's own maintenance job last found it (it checks every few minutes), " +
			"and the request limits BesluitBron keeps per upstream host: where each comes from (published by the platform, measured, BesluitBron's own polite choice, set by the administrator, or unknown: none published and none observed, which is not the same as no limit), which connectors share each (their calls count together), how many calls wait, whether a 429 paused it. " +
			"Give organization to learn whether a municipality's data is current or stale on " + o.PerSource + ", so you can tell the user when a missing result may be a missing import. " +
			"Cost: free; reads the last check and never calls a platform.",
		InputSchema: schema,
		Handler: func(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
			return j.handle(o, raw)
		},
	}
}

// ToolAnswer is besluitbron_status's result.
type ToolAnswer struct {
	GeneratedAt     time.Time      `json:"generated_at"`
	IntervalSeconds float64        `json:"interval_seconds"`
	Summary         []string       `json:"summary"`
	Platforms       []ToolPlatform `json:"platforms"`
	// Quotas are the limits kept per upstream host, with the connectors
	// that share each (only those of platform, when given).
	Quotas        []Quota      `json:"quotas,omitempty"`
	Organizations []OrgMatches `json:"organizations,omitempty"`
	// Watches is the watches' share of each platform's limit.
	Watches *watch.Share `json:"watches,omitempty"`
}

// ToolPlatform is one platform in besluitbron_status's answer.
type ToolPlatform struct {
	Status
	// Freshness without the full source list (see organizations).
	Freshness *Freshness `json:"freshness,omitempty"`
	// ProblemSources are the sources whose imports are behind.
	ProblemSources []Source `json:"problem_sources,omitempty"`
}

// OrgMatches are the sources of one platform matching the organization
// argument.
type OrgMatches struct {
	Platform string   `json:"platform"`
	Query    string   `json:"query"`
	Sources  []Source `json:"sources"`
}

// handle answers one call of the tool.
func (j *Job) handle(o ToolOptions, raw json.RawMessage) invoke.Answer {
	var a struct {
		Platform     string `json:"platform"`
		Organization string `json:"organization"`
	}
	free := callinfo.Summary{Cache: callinfo.Bypass}
	// The MCP edge checked raw against the tool's schema before this runs
	// (no other argument, both strings): reading it is all that is left.
	if err := json.Unmarshal(invoke.AbsentArgs(raw), &a); err != nil {
		return invoke.Failed(fmt.Sprintf("%s: invalid arguments: %v", ToolName, err), free)
	}
	b, err := j.AnswerJSON(o, a.Platform, a.Organization)
	if err != nil {
		return invoke.Failed(ToolName+": "+err.Error(), free)
	}
	return invoke.JSONAnswer(b, free)
}

// AnswerJSON is besluitbron_status's answer: of one platform or all, and
// the freshness of the organisations matching org (the resource URI reads
// it for all).
func (j *Job) AnswerJSON(o ToolOptions, platform, org string) ([]byte, error) {
	a := struct{ Platform, Organization string }{platform, org}
	snap := j.Snapshot()
	if a.Platform != "" {
		if _, ok := snap.Platform(a.Platform); !ok {
			return nil, fmt.Errorf("argument \"platform\": no platform %q (loaded: %s)", a.Platform, strings.Join(o.IDs, ", "))
		}
	}
	out := ToolAnswer{GeneratedAt: snap.GeneratedAt, IntervalSeconds: snap.IntervalSeconds, Platforms: []ToolPlatform{}}
	if !o.Enabled {
		out.Summary = append(out.Summary, "The load-status job is switched off in this installation ([status] enabled = false): platforms are not checked.")
	}
	org = strings.TrimSpace(a.Organization)
	for _, s := range snap.Platforms {
		if a.Platform != "" && s.Platform != a.Platform {
			continue
		}
		sp := ToolPlatform{Status: s}
		out.Summary = append(out.Summary, describeStatus(s, snap.GeneratedAt))
		if f := s.Freshness; f != nil {
			slim := *f
			slim.Sources = nil
			sp.Freshness = &slim
			sp.ProblemSources = f.Problems()
			if org != "" && f.Sources != nil {
				m := OrgMatches{Platform: s.Platform, Query: org, Sources: f.Find(org)}
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
	if w := snap.Watches; w != nil {
		out.Watches = w
		out.Summary = append(out.Summary, describeWatches(*w, a.Platform))
	}
	// The per-minute history is for the Laadstatus charts; an assistant
	// gets the state now, and 60 points per quota would only cost it
	// context.
	out.Quotas = make([]Quota, len(quotas))
	for i, q := range quotas {
		q.History = nil
		out.Quotas[i] = q
	}
	if org != "" && len(out.Organizations) == 0 {
		out.Summary = append(out.Summary, "No platform in this selection has reported per-organisation freshness yet (only "+o.PerSource+" does, once its first check has run).")
	}
	return json.Marshal(out)
}

// describeQuota says in a sentence or two what limit BesluitBron keeps at
// a host, where it comes from, who shares it and how it is now. A host
// reached without a limit is said too: that BesluitBron keeps none is not
// that the platform has none.
func describeQuota(q Quota, now time.Time) string {
	titles := q.Titles()
	together := ""
	if len(titles) > 1 {
		together = " together"
	}
	var line string
	switch {
	case !q.Limited && q.LimitFrom == LimitAdmin:
		line = fmt.Sprintf("No limit kept at %s for %s%s: set so by the administrator (%s).", q.Quota, and(titles), together, q.Source)
	case !q.Limited:
		line = fmt.Sprintf("Limit at %s unknown: no limit published and none observed, which is not the same as no limit; BesluitBron keeps none there, so calls from %s are not queued.", q.Quota, and(titles))
	default:
		line = fmt.Sprintf("Limit at %s: %g units per %s, for %s%s; %s.", q.Quota, q.Units, time.Duration(q.PerSeconds*float64(time.Second)), and(titles), together, limitOriginText(q))
	}
	if q.LimitNote != "" && q.LimitFrom != LimitAdmin {
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
func limitOriginText(q Quota) string {
	switch q.Origin() {
	case LimitAdmin:
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

// describeStatus says in one sentence how a platform was at its last check.
func describeStatus(s Status, now time.Time) string {
	if s.State == Unknown {
		return s.Title + ": not checked yet."
	}
	line := fmt.Sprintf("%s: %s, checked %s ago. %s.", s.Title, s.State, ago(now.Sub(s.CheckedAt)), s.Message)
	if s.State == Down && !s.DownSince.IsZero() {
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

// describeSource says in a sentence how current one source of a platform
// is, for an organization asked about.
func describeSource(title string, s Source, f *Freshness) string {
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

// ago is a duration as the summary says it: seconds, minutes, hours or
// days, whole.
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

// and joins words as a sentence does ("a, b and c").
func and(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

func ptrInt(n int) *int { return &n }

// describeWatches says in a sentence what the watches (saved searches the
// server checks itself) take of each platform's limit, and how fresh the
// least fresh is: of one platform, or all.
func describeWatches(w watch.Share, platform string) string {
	line := fmt.Sprintf("Watches: %d over %d distinct searches, checked at most every %s and together allowed %g%% of each platform's limit.",
		w.Watches, w.Searches, time.Duration(w.MinIntervalSeconds*float64(time.Second)), w.Share*100)
	for _, p := range w.Platforms {
		if platform != "" && p.Platform != platform {
			continue
		}
		if !p.Limited {
			line += fmt.Sprintf(" %s: %d searches, %g units used in all (no limit kept there).", p.Platform, p.Searches, p.UsedTotal)
			continue
		}
		line += fmt.Sprintf(" %s: %g of %g units used in the last %s; a round of its %d searches takes %s.", p.Platform, p.UsedInWindow, p.Budget,
			time.Duration(p.WindowSeconds*float64(time.Second)), p.Searches, time.Duration(p.RoundSeconds*float64(time.Second)))
	}
	if w.Searches > 0 {
		line += fmt.Sprintf(" The least recently checked search was checked %s ago", ago(time.Duration(w.StalestSeconds*float64(time.Second))))
		if w.Behind > 0 {
			line += fmt.Sprintf("; %d are checked less often than the interval because of the share", w.Behind)
		}
		line += "."
	}
	return line
}
