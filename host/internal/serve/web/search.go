package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/querylang"
)

// form is a parsed search request.
type form struct {
	Q         string
	Chosen    []string          // platform ids
	Filters   map[string]string // platform id → filter value
	From, To  string
	Offset    int
	Submitted bool
	// Picked is true when the reader chose platforms (p given).
	Picked   bool
	Problems []string // message keys of bad input
}

var isoDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// parseForm reads q, p (repeated), f.<id>, van, tot and o. Bad input is
// reported, never fatal.
func (s *Server) parseForm(q url.Values) form {
	f := form{Q: strings.TrimSpace(q.Get("q")), Filters: map[string]string{}}
	if len(f.Q) > 300 {
		f.Q = f.Q[:300]
		f.Problems = append(f.Problems, "err.query_long")
	}
	for _, id := range q["p"] {
		if _, ok := s.byID[id]; ok && !contains(f.Chosen, id) {
			f.Chosen = append(f.Chosen, id)
		}
	}
	for id := range s.byID {
		if v := strings.TrimSpace(q.Get("f." + id)); v != "" && len(v) <= 200 {
			f.Filters[id] = v
		}
	}
	f.From, f.To = strings.TrimSpace(q.Get("van")), strings.TrimSpace(q.Get("tot"))
	for _, d := range []*string{&f.From, &f.To} {
		if *d != "" {
			if _, err := time.Parse("2006-01-02", *d); err != nil || !isoDate.MatchString(*d) {
				f.Problems = append(f.Problems, "err.date")
				*d = ""
			}
		}
	}
	if f.From != "" && f.To != "" && f.From > f.To {
		f.Problems = append(f.Problems, "err.date_order")
		f.From, f.To = f.To, f.From
	}
	if o := q.Get("o"); o != "" {
		n, err := strconv.Atoi(o)
		if err != nil || n < 0 || n > 10000 {
			f.Problems = append(f.Problems, "err.offset")
		} else {
			f.Offset = n
		}
	}
	f.Submitted = f.Q != "" || len(f.Filters) > 0 || f.From != "" || f.To != ""
	f.Picked = len(q["p"]) > 0
	if len(q["p"]) == 0 {
		// No choice made: every platform.
		for _, p := range s.o.Platforms {
			f.Chosen = append(f.Chosen, p.ID)
		}
	} else if len(f.Chosen) == 0 && f.Submitted {
		f.Problems = append(f.Problems, "err.no_platform")
	}
	return f
}

func contains(l []string, v string) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// section is one platform's part of a results page.
type section struct {
	Platform *Platform
	Kind     string
	Message  string // the platform's own words, for errors
	Results  []connector.Item
	Total    *int
	Approx   bool
	HasMore  bool
	Offset   int
	// PrevOffset is the offset of the previous page of results.
	PrevOffset int
	Notes      []string
	Cache      string
	QueuedMS   int64
	Position   int
	ETA        int // seconds
	// Ambiguous is the organisations the filter fits, when it fits
	// several (Kind is kindAmbiguous).
	Ambiguous *ambiguity
	// Also are, by result, the other copies of its document (on later
	// sections of the page); Elsewhere counts this section's results that
	// are such copies, shown under an earlier section's result instead.
	Also      [][]copyOf
	Elsewhere int
	// Fragment is the URL that renders this section alone (for the
	// script to fetch again while the platform is still answering).
	Fragment string
	Status   *loadstatus.Status
}

// copyOf is another platform's copy of a result's document.
type copyOf struct {
	Platform *Platform
	Item     connector.Item
}

// AlsoOf is result i's other copies.
func (s *section) AlsoOf(i int) []copyOf {
	if i < len(s.Also) {
		return s.Also[i]
	}
	return nil
}

// groupCopies shows each document once across the sections that have
// answered (crosssearch.Group: results sharing a key the platforms'
// manifests declare are one document): a copy leaves its section and is
// linked under the result shown. A section still answering is rendered
// later on its own and is not grouped.
func groupCopies(secs []*section) {
	type at struct{ sec, item int }
	var rs []crosssearch.Keyed
	var pos []at
	for s, sec := range secs {
		if sec.Kind != kindOK {
			continue
		}
		for j, it := range sec.Results {
			rs = append(rs, crosssearch.Keyed{Keys: it.Keys, HasLink: it.URL != ""})
			pos = append(pos, at{s, j})
		}
	}
	g := crosssearch.Group(rs, func(i int) []string { return secs[pos[i].sec].Platform.Keys })
	if g.Documents == len(rs) {
		return
	}
	drop := map[at]bool{}
	for i, p := range pos {
		sh := g.Shown[i]
		if sh == i {
			continue
		}
		drop[p] = true
		to := secs[pos[sh].sec]
		if to.Also == nil {
			to.Also = make([][]copyOf, len(to.Results))
		}
		to.Also[pos[sh].item] = append(to.Also[pos[sh].item], copyOf{Platform: secs[p.sec].Platform, Item: secs[p.sec].Results[p.item]})
	}
	for s, sec := range secs {
		if sec.Kind != kindOK {
			continue
		}
		var kept []connector.Item
		var also [][]copyOf
		for j, it := range sec.Results {
			if drop[at{s, j}] {
				sec.Elsewhere++
				continue
			}
			kept = append(kept, it)
			also = append(also, sec.AlsoOf(j))
		}
		sec.Results, sec.Also = kept, also
	}
}

// Pending reports whether the platform is still answering.
func (s *section) Pending() bool { return s.Kind == kindSlow || s.Kind == kindQueued }

// searchArgs maps the form to the platform's search tool arguments
// through its manifest's search profile, as besluitbron_search maps its
// own (connector.SearchProfile.Arguments), so the page asks a platform
// what the assistant's search would; ok is false when the platform
// cannot serve the request (words asked of a platform that takes none,
// with no organisation to list instead).
func (s *Server) searchArgs(p *Platform, f form) (json.RawMessage, bool) {
	sp := p.Profile
	if sp == nil {
		sp = &connector.SearchProfile{}
	}
	filter := f.Filters[p.ID]
	if f.Q != "" && sp.QueryArg == "" && filter == "" {
		return nil, false
	}
	a := sp.Arguments(connector.SearchRequest{Query: f.Q, DateFrom: f.From, DateTo: f.To, Limit: s.o.PageSize, Offset: f.Offset,
		Today: s.o.Now().Format("2006-01-02")})
	if filter != "" && p.Filter != nil {
		a[p.Filter.Arg] = filter
	}
	b, _ := json.Marshal(a)
	return b, true
}

// search runs the chosen platforms in parallel and waits for them up to
// Options.Wait.
func (s *Server) search(ctx context.Context, f form, lang string) []*section {
	out := make([]*section, len(f.Chosen))
	var wg sync.WaitGroup
	for i, id := range f.Chosen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = s.searchOne(ctx, s.byID[id], f)
			out[i].Fragment = fragmentURL(f, id, lang)
		}()
	}
	wg.Wait()
	return out
}

func fragmentURL(f form, id, lang string) string {
	v := url.Values{"p": {id}, "lang": {lang}}
	if f.Q != "" {
		v.Set("q", f.Q)
	}
	if fv := f.Filters[id]; fv != "" {
		v.Set("f."+id, fv)
	}
	if f.From != "" {
		v.Set("van", f.From)
	}
	if f.To != "" {
		v.Set("tot", f.To)
	}
	if f.Offset > 0 {
		v.Set("o", strconv.Itoa(f.Offset))
	}
	return "/resultaten?" + v.Encode()
}

func (s *Server) searchOne(ctx context.Context, p *Platform, f form) *section {
	sec := &section{Platform: p, Offset: f.Offset, PrevOffset: max(0, f.Offset-s.o.PageSize)}
	if st, ok := s.statusOf(p.ID); ok && st.State != loadstatus.Unknown {
		sec.Status = &st
	}
	args, ok := s.searchArgs(p, f)
	if !ok {
		sec.Kind = kindUnsupported
		return sec
	}
	pc, err := s.calls.start(p.SearchTool, args)
	if errors.Is(err, errBusy) {
		sec.Kind = kindBusy
		return sec
	}
	if !pc.wait(ctx, s.o.Wait) {
		sec.Kind = kindSlow
		if pos, eta := pc.queued(); pos > 0 {
			sec.Kind, sec.Position, sec.ETA = kindQueued, pos, int(eta.Round(time.Second).Seconds())
		}
		return sec
	}
	sum := pc.ans.Summary
	sec.Cache, sec.QueuedMS = sum.Cache, sum.Queued.Milliseconds()
	if err := pc.ans.Err; err != nil {
		sec.Kind, sec.Message = classify(err.Error()), err.Error()
		if a := parseAmbiguity(err.Error()); a != nil {
			sec.Kind, sec.Ambiguous = kindAmbiguous, a
		}
		return sec
	}
	var r connector.SearchResult
	if err := json.Unmarshal(pc.ans.JSON(), &r); err != nil {
		sec.Kind, sec.Message = kindError, p.Title+": the answer is not a search result: "+err.Error()
		return sec
	}
	sec.Results, sec.Total, sec.Approx, sec.HasMore = r.Results, r.Total, r.TotalIsApproximate, r.HasMore
	// The connector's caveats, then the host's (a stale answer's age).
	sec.Notes = append(r.Notes, sum.Notes...)
	sec.Kind = kindOK
	if len(r.Results) == 0 {
		sec.Kind = kindEmpty
	}
	return sec
}

// searchData is the search page's template data.
type searchData struct {
	Form      form
	Platforms []platformChoice
	Sections  []*section
	// TryDutch, when set, is a Dutch query to try instead: every platform
	// answered with nothing, and the query reads as English.
	TryDutch string
	// Follow offers "Volg deze zoekopdracht" (watches are on).
	Follow bool
}

// tryDutch is the Dutch query to suggest when every section answered
// empty and q reads as English (sdk/querylang), else "".
func tryDutch(q string, secs []*section) string {
	if len(secs) == 0 || !querylang.English(q) {
		return ""
	}
	for _, s := range secs {
		if s.Kind != kindEmpty {
			return ""
		}
	}
	if nl, ok := querylang.Dutch(q); ok {
		return nl
	}
	return "stikstof"
}

type platformChoice struct {
	*Platform
	Chosen  bool
	Filter  string
	Choices []choice
	Status  *loadstatus.Status
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	pg := s.newPage(w, r, "title.search")
	f := s.parseForm(r.URL.Query())
	d := &searchData{Form: f}
	var sections []*section
	var wg sync.WaitGroup
	if f.Submitted && len(f.Chosen) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sections = s.search(r.Context(), f, pg.Lang)
		}()
	}
	for _, p := range s.o.Platforms {
		pc := platformChoice{Platform: s.byID[p.ID], Chosen: contains(f.Chosen, p.ID), Filter: f.Filters[p.ID]}
		if st, ok := s.statusOf(p.ID); ok && st.State != loadstatus.Unknown {
			pc.Status = &st
		}
		d.Platforms = append(d.Platforms, pc)
	}
	s.lists.fill(r.Context(), d.Platforms)
	wg.Wait()
	groupCopies(sections)
	d.Sections = sections
	d.TryDutch = tryDutch(f.Q, sections)
	d.Follow = s.o.Follow != nil && f.Q != ""
	pg.Data = d
	s.render(w, "search", "layout", http.StatusOK, pg)
}

// handleFragment renders one platform's results section (the script asks
// for it again while a platform is still answering).
func (s *Server) handleFragment(w http.ResponseWriter, r *http.Request) {
	pg := s.newPage(w, r, "title.search")
	f := s.parseForm(r.URL.Query())
	if len(r.URL.Query()["p"]) != 1 || len(f.Chosen) != 1 || !f.Submitted {
		http.Error(w, "resultaten: give exactly one known platform p and a query or filter", http.StatusBadRequest)
		return
	}
	pg.Data = s.search(r.Context(), f, pg.Lang)[0]
	s.render(w, "fragment", "fragment", http.StatusOK, pg)
}
