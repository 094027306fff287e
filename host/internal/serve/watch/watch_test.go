package watch

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeSearch answers besluitbron_search for platform obv: the results
// listed for the query, each poll costing cost units there, and records
// every poll with its time.
type fakeSearch struct {
	clk  *schedtest.Clock
	cost float64
	mu   sync.Mutex
	docs map[string][]crosssearch.Item // by query
	seen []fakePoll
}

type fakePoll struct {
	query  string
	at     time.Time
	public bool
}

func (f *fakeSearch) add(query string, it crosssearch.Item) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs[query] = append(f.docs[query], it)
}

func (f *fakeSearch) search(_ context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	json.Unmarshal(raw, &a)
	f.mu.Lock()
	f.seen = append(f.seen, fakePoll{a.Query, f.clk.Now(), info.Public})
	items := append([]crosssearch.Item(nil), f.docs[a.Query]...)
	f.mu.Unlock()
	res := crosssearch.Result{Query: a.Query, Answered: []string{"obv"},
		Sections: []crosssearch.Section{{Platform: "obv", Status: crosssearch.StatusOK, Results: items, Units: f.cost}}}
	b, _ := json.Marshal(res)
	return invoke.JSONAnswer(b, callinfo.Summary{Units: f.cost})
}

func (f *fakeSearch) polls() []fakePoll {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakePoll(nil), f.seen...)
}

type rig struct {
	t   *testing.T
	clk *schedtest.Clock
	fs  *fakeSearch
	m   *Manager
	mu  sync.Mutex
	got []string // notified URIs
	o   Options
}

func newRig(t *testing.T, edit func(*Options)) *rig {
	t.Helper()
	r := &rig{t: t, clk: schedtest.NewClock(epoch)}
	r.fs = &fakeSearch{clk: r.clk, cost: 1, docs: map[string][]crosssearch.Item{}}
	r.o = Options{
		Search: r.fs.search, Platforms: []string{"obv", "tk"}, Defaults: []string{"obv"},
		Limit: func(p string) Limit {
			if p == "obv" {
				return Limit{Units: 60, Per: time.Minute, Ok: true}
			}
			return Limit{}
		},
		Share: 0.1, MinInterval: 15 * time.Minute, MaxPerOwner: 2000, MaxTotal: 5000,
		File:  filepath.Join(t.TempDir(), "watches.json"),
		Clock: r.clk,
		Notify: func(uri string) {
			r.mu.Lock()
			r.got = append(r.got, uri)
			r.mu.Unlock()
		},
	}
	if edit != nil {
		edit(&r.o)
	}
	r.start()
	return r
}

func (r *rig) start() {
	r.t.Helper()
	m, err := New(r.o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.m = m
	r.t.Cleanup(func() { m.Close() })
	m.Start()
	r.idle()
}

// idle waits (real time, never the fake clock) until no poll runs.
func (r *rig) idle() {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !r.m.Idle() {
		if time.Now().After(deadline) {
			r.t.Fatal("the poll loop did not go idle within 30 s")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// advance moves the fake clock in steps, letting each step's polls run.
func (r *rig) advance(total, step time.Duration) {
	r.t.Helper()
	for d := time.Duration(0); d < total; d += step {
		r.clk.Advance(step)
		r.idle()
	}
}

func (r *rig) notified() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

// TestWatchNewResultNotifiesAndReads: a watch's first poll is its
// baseline (nothing new, nobody told); a result that appears later is new
// at the next poll, within one interval: the subscriber is told, reading
// the resource gives it (and not the baseline), and ?since after it gives
// nothing. It fails if the baseline counts as new, if a poll does not
// come within the interval, or if a later poll repeats the news.
func TestWatchNewResultNotifiesAndReads(t *testing.T) {
	r := newRig(t, nil)
	r.fs.add("stikstof", crosssearch.Item{ID: "old-1", Title: "Oud besluit", Date: "2024-01-01"})
	w, err := r.m.Create("session-a", Query{Query: "  stikstof  "})
	if err != nil {
		t.Fatal(err)
	}
	r.idle()
	if n := len(r.fs.polls()); n != 1 {
		t.Fatalf("%d polls after create; want the baseline poll", n)
	}
	if got := r.notified(); len(got) != 0 {
		t.Fatalf("the baseline notified %v", got)
	}
	r.fs.add("stikstof", crosssearch.Item{ID: "new-1", Title: "Nieuw besluit stikstof", Date: "2025-03-01", URL: "https://example.org/new-1",
		AlsoOn: []crosssearch.Copy{{Platform: "ori", ID: "ori-new-1", URL: "https://example.org/ori", By: "source_url"}}})
	r.advance(15*time.Minute, time.Minute)
	if got := r.notified(); len(got) != 1 || got[0] != w.URI() {
		t.Fatalf("notified %v after one interval; want [%s]", got, w.URI())
	}
	text, err := r.m.Read("session-a", w.URI())
	if err != nil {
		t.Fatal(err)
	}
	var v View
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	if v.NewCount != 1 || len(v.Results) != 1 || v.Results[0].ID != "new-1" || len(v.Results[0].AlsoOn) != 1 {
		t.Fatalf("read: %s; want new-1 alone, with its copy", text)
	}
	if v.Freshness.Checks != 2 || v.Freshness.LastChecked.IsZero() || !strings.Contains(v.Freshness.Note, "Last checked") {
		t.Fatalf("freshness %+v", v.Freshness)
	}
	later := r.clk.Now().Format(time.RFC3339)
	text, err = r.m.Read("session-a", w.URI()+"?since="+later)
	if err != nil || !strings.Contains(text, `"new_count":0`) {
		t.Fatalf("read since %s: %v %s", later, err, text)
	}
	r.advance(15*time.Minute, time.Minute)
	if got := r.notified(); len(got) != 1 {
		t.Fatalf("a poll finding nothing new notified again: %v", got)
	}
	for _, p := range r.fs.polls() {
		if !p.public {
			t.Fatal("a poll ran as a counted session, not the public one")
		}
	}
}

// TestWatchThousandWatchesFiftySearchesWithinShare: 1,000 watches over 50
// distinct queries on a platform of 60 units a minute with a share of
// 0.1: one poll per query (never one per watch), never more than 6 units
// in any minute, every query polled in turn (fairly: counts differ by at
// most one), and every watch says it is behind the interval and how
// fresh it is. It fails if identical watches poll apart, if the share is
// exceeded in any window, or if a query starves.
func TestWatchThousandWatchesFiftySearchesWithinShare(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MinInterval = time.Minute })
	var ws []*Watch
	for i := range 1000 {
		w, err := r.m.Create(fmt.Sprintf("owner-%d", i%20), Query{Query: fmt.Sprintf("onderwerp %d", i%50)})
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	r.idle()
	r.advance(40*time.Minute, 5*time.Second)
	polls := r.fs.polls()
	perQuery := map[string]int{}
	for i, p := range polls {
		perQuery[p.query]++
		// Units in the window (p.at-60s, p.at]: at 1 unit a poll, the polls.
		n := 0
		for _, q := range polls[:i+1] {
			if q.at.After(p.at.Add(-time.Minute)) {
				n++
			}
		}
		if n > 6 {
			t.Fatalf("%d units within the minute up to %s: over the share of 6", n, p.at.Sub(epoch))
		}
	}
	lo, hi := len(polls), 0
	for _, n := range perQuery {
		lo, hi = min(lo, n), max(hi, n)
	}
	if len(perQuery) != 50 || lo < 4 {
		t.Fatalf("%d queries polled, %d to %d times each; want all 50, each in every round", len(perQuery), lo, hi)
	}
	// Round robin: between two polls of one query every other query is
	// polled once, and no query waits much more than a round (50 units at
	// 6 a minute: 8 min 20 s).
	last := map[string]int{}
	var longest time.Duration
	for i, p := range polls {
		// From the second round: the first began while the watches were
		// still being created.
		if j, ok := last[p.query]; ok && j >= 50 {
			if i-j != 50 {
				t.Fatalf("%q polled again after %d other polls; want 49 (every other query once)", p.query, i-j-1)
			}
		}
		if j, ok := last[p.query]; ok {
			longest = max(longest, p.at.Sub(polls[j].at))
		}
		last[p.query] = i
	}
	if longest > 9*time.Minute+30*time.Second {
		t.Fatalf("a query waited %v between polls; a round is 8 min 20 s", longest)
	}
	// 40 minutes at 6 units a minute, and the first minute's 6.
	if len(polls) > 6*41 {
		t.Fatalf("%d polls in 40 minutes: over the share", len(polls))
	}
	st := r.m.Status()
	if st.Watches != 1000 || st.Searches != 50 || len(st.Platforms) != 1 || st.Platforms[0].Budget != 6 || st.Platforms[0].UsedInWindow > 6 {
		t.Fatalf("status %+v", st)
	}
	for _, w := range ws[:50] {
		text, err := r.m.Read(w.Owner, w.URI())
		if err != nil {
			t.Fatal(err)
		}
		var v View
		json.Unmarshal([]byte(text), &v)
		if !v.Freshness.Behind || v.Freshness.LastChecked.IsZero() || !strings.Contains(v.Freshness.Note, "slower than") {
			t.Fatalf("watch %s freshness %+v: want behind, with when it was checked", w.ID, v.Freshness)
		}
	}
	t.Logf("1000 watches, 50 queries, 40 virtual minutes: %d polls (%d to %d per query, longest gap %v), at most 6 units a minute (share 0.1 of 60); round %v s",
		len(polls), lo, hi, longest, st.Platforms[0].RoundSeconds)
}

// TestWatchOwnership: another caller can neither read, list, subscribe
// to nor delete a watch, and its answer is the same as for a watch that
// does not exist; the feed's secret opens it to anyone who has it.
func TestWatchOwnership(t *testing.T) {
	r := newRig(t, nil)
	w, err := r.m.Create("session-a", Query{Query: "woningbouw"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.Read("session-b", w.URI()); err == nil || !strings.Contains(err.Error(), "no such watch of yours") {
		t.Fatalf("another caller read it: %v", err)
	}
	if err := r.m.Subscribable("session-b", w.URI()); err == nil {
		t.Fatal("another caller may subscribe")
	}
	if l := r.m.List("session-b", ""); len(l) != 0 {
		t.Fatalf("another caller lists %d", len(l))
	}
	if _, err := r.m.Delete("session-b", w.ID, ""); err == nil {
		t.Fatal("another caller deleted it")
	}
	if _, err := r.m.Delete("session-b", w.ID, strings.Repeat("0", 32)); err == nil {
		t.Fatal("a wrong secret deleted it")
	}
	if _, err := r.m.Read("session-b", w.URI()+"?secret="+w.Secret); err != nil {
		t.Fatalf("the secret does not open it: %v", err)
	}
	if l := r.m.List("session-c", w.Secret); len(l) != 1 {
		t.Fatalf("list by secret: %d", len(l))
	}
	if err := r.m.Subscribable("session-a", w.URI()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.Delete("session-a", w.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.m.BySecret(w.Secret); ok {
		t.Fatal("the feed outlives its watch")
	}
}

// TestWatchSurvivesRestart: a second Manager on the same file has the
// watches, their owners, secrets and seen results, and does not report
// the results seen before the restart as new.
func TestWatchSurvivesRestart(t *testing.T) {
	r := newRig(t, nil)
	r.fs.add("stikstof", crosssearch.Item{ID: "a", Title: "A"})
	w, err := r.m.Create("stdio", Query{Query: "stikstof", Platforms: []string{"obv"}})
	if err != nil {
		t.Fatal(err)
	}
	r.idle()
	r.fs.add("stikstof", crosssearch.Item{ID: "b", Title: "B"})
	r.advance(15*time.Minute, time.Minute)
	if err := r.m.Close(); err != nil {
		t.Fatal(err)
	}
	r.start()
	got, err := r.m.Get("stdio", w.ID, "")
	if err != nil || got.Secret != w.Secret {
		t.Fatalf("after restart: %v %+v", err, got)
	}
	text, _ := r.m.Read("stdio", w.URI())
	if !strings.Contains(text, `"new_count":1`) || !strings.Contains(text, `"id":"b"`) {
		t.Fatalf("after restart: %s", text)
	}
	before := len(r.notified())
	r.advance(15*time.Minute, time.Minute)
	if len(r.notified()) != before {
		t.Fatal("results seen before the restart were new again")
	}
}

// TestWatchAtomFeedIsValid: the feed parses as Atom 1.0 with the
// required elements (feed id, title, updated, author; entry id, title,
// link, updated) and says how fresh it is; an unknown secret is 404.
func TestWatchAtomFeedIsValid(t *testing.T) {
	r := newRig(t, nil)
	r.fs.add("stikstof", crosssearch.Item{ID: "x:1", Title: "Besluit & co", Date: "2025-02-01", Snippet: "stikstof <b>"})
	w, err := r.m.Create("s", Query{Query: "stikstof"})
	if err != nil {
		t.Fatal(err)
	}
	r.idle()
	mux := http.NewServeMux()
	mux.Handle("GET /watch/{feed}", r.m.FeedHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + w.Feed())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Fatalf("content type %q", ct)
	}
	var f AtomFeed
	if err := xml.NewDecoder(resp.Body).Decode(&f); err != nil {
		t.Fatal(err)
	}
	checkAtom(t, f)
	if len(f.Entries) != 1 || f.Entries[0].Title != "Besluit & co" || !strings.Contains(f.Subtitle, "Laatst gecontroleerd") {
		t.Fatalf("feed %+v", f)
	}
	resp2, _ := http.Get(srv.URL + "/watch/" + strings.Repeat("a", 32) + ".atom")
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown feed: %d", resp2.StatusCode)
	}
}

// checkAtom fails t when f lacks an element RFC 4287 requires.
func checkAtom(t *testing.T, f AtomFeed) {
	t.Helper()
	if f.XMLName.Space != AtomNS || f.ID == "" || f.Title == "" || f.Author.Name == "" {
		t.Fatalf("feed lacks namespace, id, title or author: %+v", f)
	}
	if _, err := time.Parse(time.RFC3339, f.Updated); err != nil {
		t.Fatalf("feed updated %q: %v", f.Updated, err)
	}
	for _, e := range f.Entries {
		if e.ID == "" || e.Title == "" || len(e.Links) == 0 || e.Links[0].Href == "" {
			t.Fatalf("entry lacks id, title or link: %+v", e)
		}
		if _, err := time.Parse(time.RFC3339, e.Updated); err != nil {
			t.Fatalf("entry updated %q: %v", e.Updated, err)
		}
	}
}

// TestWatchBadInputAndCaps: every wrong argument is refused naming it;
// the caps per owner and in all hold.
func TestWatchBadInputAndCaps(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MaxPerOwner, o.MaxTotal = 2, 3 })
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{}, `"query"`},
		{Query{Query: strings.Repeat("x", 501)}, `"query"`},
		{Query{Query: "a", Platforms: []string{"nope"}}, `"platforms"`},
		{Query{Query: "a", Platforms: []string{"obv", "obv"}}, "twice"},
		{Query{Query: "a", Platforms: []string{}}, `"platforms"`},
		{Query{Query: "a", Organization: "x"}, `"organization"`},
		{Query{Query: "a", DateFrom: "2025-13-01"}, `"date_from"`},
		{Query{Query: "a", DateFrom: "2025-02-01", DateTo: "2025-01-01"}, "after"},
	} {
		if _, err := r.m.Create("o", c.q); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want an error naming %s", c.q, err, c.want)
		}
	}
	for range 2 {
		if _, err := r.m.Create("o", Query{Query: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.m.Create("o", Query{Query: "a"}); err == nil || !strings.Contains(err.Error(), "max_per_owner") {
		t.Fatalf("third of one owner: %v", err)
	}
	if _, err := r.m.Create("p", Query{Query: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.m.Create("q", Query{Query: "a"}); err == nil || !strings.Contains(err.Error(), "max_total") {
		t.Fatalf("past the total: %v", err)
	}
	for _, uri := range []string{"besluitbron://status", URIPrefix, URIPrefix + "x?since=yesterday", URIPrefix + "x?foo=1"} {
		if _, err := r.m.Read("o", uri); err == nil {
			t.Errorf("read %s: no error", uri)
		}
	}
	tool := r.m.Tool()
	for _, c := range []struct{ args, want string }{
		{`{}`, `"action"`},
		{`{"action":"fly"}`, `"action"`},
		{`{"action":"list","query":"x"}`, `"query"`},
		{`{"action":"delete"}`, "id"},
	} {
		a := tool.Handler(context.Background(), &callinfo.Info{Session: "o"}, json.RawMessage(c.args))
		if a.Err == nil || !strings.Contains(a.Err.Error(), c.want) {
			t.Errorf("%s: %v; want an error naming %s", c.args, a.Err, c.want)
		}
	}
}
