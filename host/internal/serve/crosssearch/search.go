package crosssearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/cite"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/querylang"
)

// ToolName is the tool's name on the unified address.
const ToolName = "besluitbron_search"

// Platform is a loaded connector.
type Platform struct {
	// ID is the connector id, Title its platform's name.
	ID, Title string
	// Tools are the connector's tool names without the id prefix.
	Tools []string
	// Profile is the manifest's search profile; nil leaves the platform
	// out of the search.
	Profile *connector.SearchProfile
}

// Options configure a Searcher.
type Options struct {
	// Platforms are the loaded connectors, in the order sections appear.
	Platforms []Platform
	// Invoke runs a connector tool by its full name with the host's usual
	// validation, limits and cache (the MCP server's Invoke; required).
	Invoke invoke.Invoker
	// PlatformTimeout bounds each platform's part (default 10s); the
	// timeout_seconds argument overrides it per call.
	PlatformTimeout time.Duration
	// Timeout bounds the whole call (default 20s); it is raised to the
	// per-platform deadline plus a second when a call asks for more.
	Timeout time.Duration
	// Grace is how long a call waits, after its deadline, for the
	// cancelled platforms to let go (default 1s). Their sections are
	// final either way.
	Grace time.Duration
	// Now is the clock for "today" and for judging whether a platform's
	// failure came at its deadline (default time.Now).
	Now func() time.Time
}

// Searcher runs besluitbron_search.
type Searcher struct {
	o     Options
	ids   []string            // searchable platforms (those with a search profile and its tool)
	keys  map[string][]string // the document key kinds each platform declares
	tr    map[string]translator
	known map[string]bool
	title map[string]string
}

// New checks the options. A nil Invoke is a programmer error.
func New(o Options) *Searcher {
	if o.Invoke == nil {
		panic("crosssearch.New: nil Invoke")
	}
	if o.PlatformTimeout <= 0 {
		o.PlatformTimeout = 10 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Searcher{o: o, tr: map[string]translator{}, known: map[string]bool{}, title: map[string]string{}, keys: map[string][]string{}}
	for _, p := range o.Platforms {
		s.title[p.ID] = p.Title
		if p.Profile != nil && has(p.Tools, p.Profile.Tool) {
			s.tr[p.ID] = fromProfile(p.ID, p.Profile)
			s.ids = append(s.ids, p.ID)
			s.known[p.ID] = true
			s.keys[p.ID] = p.Profile.Keys
		}
	}
	return s
}

func has(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Tool is the MCP tool: its description names the platforms searched by
// default and what each cannot do.
func (s *Searcher) Tool() invoke.HostTool {
	var def, named, caveats []string
	for _, id := range s.ids {
		t := s.tr[id]
		if t.freeText {
			def = append(def, id)
		} else {
			named = append(named, id)
		}
		if t.caveat != "" {
			caveats = append(caveats, id+": "+t.caveat)
		}
	}
	var noOrg []string
	for _, id := range def {
		if !s.tr[id].orgFilter {
			noOrg = append(noOrg, id)
		}
	}
	d := "Search Dutch public decision-making on several platforms at once with one query: each platform is searched in parallel with its own deadline, and the answer has one section per platform (its results, or why it has none: error, timeout, skipped). An organization name that fits several organisations of a platform is never settled by picking one: that platform is skipped and its section lists the candidates (candidates: label, key, and what to pass as organization). A slow or failing platform never holds up the others. " +
		"By default searched: " + strings.Join(def, ", ") + "."
	if len(named) > 0 {
		d += " Only when named in platforms: " + strings.Join(named, ", ") + " (no free-text search)."
	}
	if len(noOrg) > 0 {
		d += " With organization, platforms that cannot filter by organisation (" + strings.Join(noOrg, ", ") + ") are left out unless named."
	}
	if len(caveats) > 0 {
		d += " Limits: " + strings.Join(caveats, "; ") + "."
	}
	d += " Results carry id, title, date, organisation, snippet and url; read a text with <platform>_get_document and the id, and page further with <platform>_search and the arguments given in each section."
	d += " Each result's cite is its citation (Dutch form, day retrieved); besluitbron_cite exports it."
	d += " One document on several platforms (same source file, document number, Kamerstuk, ECLI or publication id) is listed once, its other copies in also_on (platform, id, url); result_count and document_count count both."
	d += "\n\nCost: " + CostNote
	return invoke.HostTool{
		Name:        ToolName,
		Title:       "Search all platforms",
		Description: d,
		InputSchema: inputSchema(s.ids, s.o.PlatformTimeout),
		OpenWorld:   true,
		Handler:     s.Handle,
	}
}

// CostNote is appended to the description by the host.
const CostNote = "One search per platform (each counts against that platform's own limit and may queue there; the search costs what that platform's search costs, plus a cached list lookup when organization is given). Repeating a search within 10 minutes is served from the cache."

// Handle runs the tool: arguments in, result out. Bad arguments are a tool
// error naming the argument. When no platform answered (all failed, timed
// out or were skipped) the result is a tool error saying why for each;
// when some answered, the others are named in their sections and the
// result is not an error.
func (s *Searcher) Handle(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
	a, err := parseArgs(raw, s.known, s.ids)
	if err != nil {
		return invoke.Failed(ToolName+": "+err.Error(), callinfo.Summary{Cache: callinfo.Bypass})
	}
	res, sum := s.Run(ctx, info, a)
	if len(res.Answered) == 0 {
		// Nothing to show is an error the assistant must see as one: it
		// says, per platform, why there is nothing, so that it can try
		// again later, give more time, or name other platforms.
		return invoke.Failed(noneAnswered(res), sum)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return invoke.Failed(ToolName+": encoding the result: "+err.Error(), sum)
	}
	return invoke.JSONAnswer(b, sum)
}

// Run searches the chosen platforms and returns the sections and the
// combined accounting: the most significant cache outcome of any
// platform, and the longest queueing and upstream time (the platforms run
// side by side, so the slowest one is what the caller waited for). The
// combined figures are also added to info.
func (s *Searcher) Run(ctx context.Context, info *callinfo.Info, a Args) (Result, callinfo.Summary) {
	a.today = s.o.Now().Format("2006-01-02")
	res := Result{Query: a.Query, Organization: a.Organization, DateFrom: a.DateFrom, DateTo: a.DateTo, Answered: []string{}}
	perPlatform := s.o.PlatformTimeout
	if a.TimeoutSeconds > 0 {
		perPlatform = time.Duration(a.TimeoutSeconds * float64(time.Second))
	}
	overall := max(s.o.Timeout, perPlatform+time.Second)
	ctx, cancel := context.WithTimeout(ctx, overall)
	defer cancel()

	chosen, named := s.choose(a)
	sections := make([]Section, len(chosen))
	f := &forwarder{parent: info}
	defer f.stop()
	var wg sync.WaitGroup
	done := make(chan int, len(chosen))
	for i, id := range chosen {
		sections[i] = Section{Platform: id, Title: s.title[id]}
		if reason := s.leaveOut(id, a, named[id]); reason != "" {
			sections[i].Status, sections[i].Error = StatusSkipped, reason
			done <- i
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sec := s.one(ctx, f, id, &a, perPlatform)
			sec.Platform, sec.Title = id, s.title[id]
			sections[i] = sec // each goroutine writes its own slot
			done <- i
		}()
	}
	finished := map[int]bool{}
wait:
	for len(finished) < len(chosen) {
		select {
		case i := <-done:
			finished[i] = true
		case <-ctx.Done():
			break wait
		}
	}
	cancel()
	if len(finished) < len(chosen) {
		// Give the cancelled calls a moment to let go, so that their
		// goroutines do not outlive the call; their sections are decided.
		waited := make(chan struct{})
		go func() { wg.Wait(); close(waited) }()
		t := time.NewTimer(s.o.Grace)
		select {
		case <-waited:
		case <-t.C:
		}
		t.Stop()
	}
	// Drain what finished meanwhile, then settle the rest as timed out.
	for {
		select {
		case i := <-done:
			finished[i] = true
			continue
		default:
		}
		break
	}
	out := make([]Section, len(chosen))
	for i := range chosen {
		if finished[i] {
			out[i] = sections[i]
			continue
		}
		out[i] = Section{Platform: chosen[i], Title: s.title[chosen[i]], Status: StatusTimeout,
			Error: fmt.Sprintf("no answer within the overall deadline of %s", overall)}
	}
	res.Sections = out
	keys := make([][]map[string]string, len(out))
	for i := range out {
		keys[i] = out[i].keys
	}
	res.ResultCount, res.DocumentCount = groupSections(res.Sections, keys, s.keys)
	if res.ResultCount == 0 {
		res.Hint = querylang.Hint(a.Query)
	}
	var sum callinfo.Summary
	fetched := false
	for _, sec := range out {
		switch sec.Status {
		case StatusOK:
			res.Answered = append(res.Answered, sec.Platform)
		case StatusSkipped:
			res.Skipped = append(res.Skipped, sec.Platform)
		default:
			res.Failed = append(res.Failed, sec.Platform)
		}
		if sec.Cache != "" && sec.Cache != callinfo.Bypass || sec.UpstreamMS > 0 || sec.QueuedMS > 0 {
			fetched = true
		}
		if rank[sec.Cache] > rank[sum.Cache] {
			sum.Cache = sec.Cache
		}
		sum.Queued = max(sum.Queued, time.Duration(sec.QueuedMS)*time.Millisecond)
		sum.Upstream = max(sum.Upstream, time.Duration(sec.UpstreamMS)*time.Millisecond)
		sum.Units += sec.Units
	}
	if sum.Cache == "" {
		sum.Cache = callinfo.Bypass
	}
	if fetched && info != nil {
		info.AddFetch(sum.Cache, sum.Queued, sum.Upstream)
	}
	return res, sum
}

// rank orders cache outcomes as callinfo does: a stale answer matters
// more than a platform call, which matters more than a hit.
var rank = map[string]int{callinfo.Hit: 1, callinfo.Bypass: 2, callinfo.Miss: 3, callinfo.Stale: 4}

// choose returns the platforms to report on, in the connectors' order,
// and which of them were named.
func (s *Searcher) choose(a Args) ([]string, map[string]bool) {
	named := map[string]bool{}
	for _, p := range a.Platforms {
		named[p] = true
	}
	var out []string
	for _, id := range s.ids {
		if len(named) > 0 && !named[id] {
			continue
		}
		if len(named) == 0 && !s.tr[id].freeText {
			continue
		}
		out = append(out, id)
	}
	return out, named
}

// leaveOut says why a chosen platform is not searched, or "".
func (s *Searcher) leaveOut(id string, a Args, named bool) string {
	t := s.tr[id]
	if a.Organization != "" && !t.orgFilter && !named {
		return "this platform cannot filter by organisation; name it in platforms to search it without the organisation"
	}
	return ""
}

// one searches one platform under its own deadline. A failure that comes
// when the deadline has passed is a timeout, whatever the error says: the
// call's own parts keep timers for the same instant (the cache's fill
// outlives a caller that leaves, under the caller's deadline) and may
// report "canceled: … deadline exceeded" before this context says it is
// done, so the context alone would make the wording depend on which timer
// a busy machine runs first.
func (s *Searcher) one(ctx context.Context, f *forwarder, id string, a *Args, d time.Duration) Section {
	start := time.Now()
	due := s.o.Now().Add(d) // no later than ctx's deadline
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	late := func() bool { return ctx.Err() != nil || !s.o.Now().Before(due) }
	sub := f.child()
	sec := Section{}
	t := s.tr[id]
	limit := min(a.Limit, t.maxLimit)
	var notes []string
	list := func(ctx context.Context, tool string, args map[string]any) ([]connector.Item, error) {
		b, _ := json.Marshal(args)
		a := s.o.Invoke(ctx, sub, tool, b)
		if a.Err != nil {
			return nil, a.Err
		}
		return listItems(a.JSON())
	}
	args, extra, err := t.build(ctx, list, a, limit)
	notes = append(notes, extra...)
	if a.Organization != "" && !t.orgFilter {
		notes = append(notes, "organization was not applied: this platform cannot filter by organisation.")
	}
	finish := func(status, msg string) Section {
		sec.Status, sec.Error, sec.Notes = status, msg, notes
		sum := sub.Summary()
		sec.Cache, sec.QueuedMS, sec.UpstreamMS = sum.Cache, sum.Queued.Milliseconds(), sum.Upstream.Milliseconds()
		sec.Units = sum.Units
		if sum.Fetches == 0 {
			sec.Cache = ""
		}
		sec.ElapsedMS = time.Since(start).Milliseconds()
		return sec
	}
	var sk *skip
	var amb *ambiguous
	switch {
	case errors.As(err, &amb):
		// Not a failure of the platform, and not a guess either: the
		// section says which organisations the name fits and what to pass.
		amb.platform = s.title[id]
		sec.Candidates, sec.MoreCandidates = amb.listed, amb.total-len(amb.listed)
		return finish(StatusSkipped, amb.Error())
	case errors.As(err, &sk):
		return finish(StatusSkipped, sk.reason)
	case err != nil && late():
		return finish(StatusTimeout, fmt.Sprintf("no answer within %s (%v)", d, err))
	case err != nil:
		return finish(StatusError, err.Error())
	}
	tool := t.tool
	sec.Tool, sec.Arguments = tool, args
	b, _ := json.Marshal(args)
	r := s.o.Invoke(ctx, sub, tool, b)
	if r.Err != nil && late() {
		return finish(StatusTimeout, fmt.Sprintf("no answer within %s", d))
	}
	if r.Err != nil {
		return finish(StatusError, r.Err.Error())
	}
	var sr connector.SearchResult
	if err := json.Unmarshal(r.JSON(), &sr); err != nil {
		return finish(StatusError, "the connector's answer is not a search result: "+err.Error())
	}
	sec.Total, sec.Approx, sec.HasMore = sr.Total, sr.TotalIsApproximate, sr.HasMore
	sec.Results, sec.keys = items(sr.Results, s.o.Now())
	// The connector's caveats, then the host's (a stale answer's age).
	notes = append(notes, sr.Notes...)
	notes = append(notes, r.Summary.Notes...)
	return finish(StatusOK, "")
}

// items are a connector's results as a section shows them, each with its
// citation retrieved now, and their document keys apart (grouping reads
// them; the answer does not show them).
func items(rs []connector.Item, now time.Time) ([]Item, []map[string]string) {
	out := make([]Item, 0, len(rs))
	keys := make([]map[string]string, 0, len(rs))
	for _, it := range rs {
		out = append(out, Item{ID: it.ID, Type: it.Type, Title: it.Title, Date: it.Date, Organization: it.Organization, Snippet: it.Snippet, URL: it.URL, Cite: cite.Of(it, now)})
		keys = append(keys, it.Keys)
	}
	return out, keys
}

// IDs lists the platforms the search can use, in order.
func (s *Searcher) IDs() []string { return append([]string(nil), s.ids...) }

// maxReason bounds each platform's reason in the all-failed error: the
// sub-call's own error is already cut, but seven of them add up.
const maxReason = 300

// maxCandidatesReason bounds the reason of a section that lists the
// organisations an ambiguous name fits: maxListed labels and keys of at
// most 100 bytes each, and the words around them.
const maxCandidatesReason = 3000

// noneAnswered is the tool error when no platform answered: one line per
// platform with its outcome and reason, and what the caller can do.
func noneAnswered(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: no platform answered %s.", ToolName, quoteCut(res.Query, 100))
	if len(res.Sections) == 0 {
		b.WriteString(" No platform was searched: none of the loaded platforms has a free-text search; name one in platforms.")
		return b.String()
	}
	timedOut := false
	for _, sec := range res.Sections {
		what := map[string]string{StatusError: "failed", StatusTimeout: "timed out", StatusSkipped: "skipped"}[sec.Status]
		if what == "" {
			what = sec.Status
		}
		limit := maxReason
		if len(sec.Candidates) > 0 {
			// The candidates are the answer to act on; their list is
			// bounded where it is made (maxListed of them, labels cut).
			limit = maxCandidatesReason
		}
		fmt.Fprintf(&b, "\n- %s (%s) %s: %s", sec.Title, sec.Platform, what, clip(sec.Error, limit))
		timedOut = timedOut || sec.Status == StatusTimeout
	}
	if timedOut {
		fmt.Fprintf(&b, "\nA platform that timed out may answer with a longer timeout_seconds (at most %d).", MaxTimeout)
	}
	return b.String()
}
