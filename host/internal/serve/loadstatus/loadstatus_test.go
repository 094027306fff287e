package loadstatus_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var t0 = time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)

// platform is a fake platform whose answer the test sets.
type platform struct {
	mu      sync.Mutex
	reach   loadstatus.Reach
	err     error
	fresh   *loadstatus.Freshness
	freshE  error
	reaches atomic.Int64
	freshes atomic.Int64
}

func (p *platform) set(r loadstatus.Reach, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reach, p.err = r, err
}

func (p *platform) target(id string) loadstatus.Target {
	return loadstatus.Target{
		ID: id, Title: strings.ToUpper(id),
		Reach: func(ctx context.Context) (loadstatus.Reach, error) {
			p.reaches.Add(1)
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.reach, p.err
		},
		Freshness: func(ctx context.Context) (*loadstatus.Freshness, error) {
			p.freshes.Add(1)
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.freshE != nil {
				return nil, p.freshE
			}
			return p.fresh, nil
		},
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRoundsFollowTheClock(t *testing.T) {
	clk := schedtest.NewClock(t0)
	a, b := &platform{}, &platform{}
	a.set(loadstatus.Reach{Status: 200, Upstream: 80 * time.Millisecond}, nil)
	b.set(loadstatus.Reach{Status: 404, Upstream: 10 * time.Millisecond}, nil)
	j := loadstatus.New([]loadstatus.Target{a.target("a"), b.target("b")}, &loadstatus.Options{Interval: 5 * time.Minute, Clock: clk, Logger: quiet()})
	if s, _ := j.Status("a"); s.State != loadstatus.Unknown {
		t.Fatalf("before any round: %+v", s)
	}
	stop := j.Start(context.Background())
	defer stop()
	steps := []struct {
		advance time.Duration
		want    int64
	}{{0, 1}, {4 * time.Minute, 1}, {time.Minute, 2}, {5*time.Minute - time.Nanosecond, 2}, {time.Nanosecond, 3}, {15 * time.Minute, 6}}
	for i, st := range steps {
		clk.Advance(st.advance)
		if got := a.reaches.Load(); got != st.want {
			t.Fatalf("step %d: %d rounds, want %d", i, got, st.want)
		}
		if b.reaches.Load() != a.reaches.Load() {
			t.Fatalf("step %d: targets checked unevenly", i)
		}
	}
	s, _ := j.Status("b")
	if s.State != loadstatus.Up || s.HTTPStatus != 404 || s.LatencyMS != 10 || !s.CheckedAt.Equal(t0.Add(25*time.Minute)) {
		t.Errorf("b = %+v (a 404 is an answer: the platform is up)", s)
	}
	stop()
	clk.Advance(time.Hour)
	if got := a.reaches.Load(); got != 6 {
		t.Errorf("after stop: %d rounds, want 6 (none after stop)", got)
	}
}

func TestStopBeforeFirstRound(t *testing.T) {
	clk := schedtest.NewClock(t0)
	a := &platform{}
	j := loadstatus.New([]loadstatus.Target{a.target("a")}, &loadstatus.Options{Clock: clk, Logger: quiet()})
	stop := j.Start(context.Background())
	stop()
	clk.Advance(time.Hour)
	if n := a.reaches.Load(); n != 0 {
		t.Errorf("%d probes after an immediate stop", n)
	}
	if len(clk.Pending()) != 0 {
		t.Errorf("timers left: %v", clk.Pending())
	}
}

func TestStates(t *testing.T) {
	cases := []struct {
		name  string
		reach loadstatus.Reach
		err   error
		want  loadstatus.State
		msg   string
		// reason and detail are what a page words in its own language
		// and shows behind a disclosure.
		reason loadstatus.Reason
		detail string
	}{
		{"up", loadstatus.Reach{Status: 200, Upstream: time.Second}, nil, loadstatus.Up, "answered in 1000 ms", loadstatus.Answered, ""},
		{"slow", loadstatus.Reach{Status: 200, Upstream: 6 * time.Second}, nil, loadstatus.Slow, "slowly: 6.0 s", loadstatus.AnsweredSlowly, ""},
		{"429", loadstatus.Reach{Status: 429}, nil, loadstatus.Busy, "429", loadstatus.Got429, ""},
		{"503", loadstatus.Reach{Status: 503}, nil, loadstatus.Down, "HTTP 503", loadstatus.ServerError, ""},
		{"unavailable", loadstatus.Reach{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"}, loadstatus.Down, "does not answer: connection refused", loadstatus.NoAnswer, "connection refused"},
		{"queue", loadstatus.Reach{}, &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "no room"}, loadstatus.Busy, "busy", loadstatus.NoRoom, "no room"},
		{"refused", loadstatus.Reach{}, &connector.FetchError{Kind: connector.FetchRefused, Message: "private address"}, loadstatus.Down, "policy: private address", loadstatus.Refused, "private address"},
		{"plain error", loadstatus.Reach{}, errors.New("boom"), loadstatus.Down, "boom", loadstatus.NoAnswer, "boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &platform{}
			p.set(c.reach, c.err)
			j := loadstatus.New([]loadstatus.Target{p.target("x")}, &loadstatus.Options{Clock: schedtest.NewClock(t0), Logger: quiet()})
			j.CheckAll(context.Background())
			s, _ := j.Status("x")
			if s.State != c.want || !strings.Contains(s.Message, c.msg) || !strings.Contains(s.Message, "X") {
				t.Errorf("got %s %q, want %s and a message naming X and containing %q", s.State, s.Message, c.want, c.msg)
			}
			if s.Reason != c.reason || s.Detail != c.detail {
				t.Errorf("reason %q, detail %q; want %q, %q", s.Reason, s.Detail, c.reason, c.detail)
			}
			if fresh := p.freshes.Load(); (c.want == loadstatus.Up || c.want == loadstatus.Slow) != (fresh == 1) {
				t.Errorf("freshness asked %d times in state %s (only a platform that answers is asked)", fresh, c.want)
			}
		})
	}
}

func TestDownSinceAndFreshnessKept(t *testing.T) {
	clk := schedtest.NewClock(t0)
	p := &platform{fresh: &loadstatus.Freshness{Newest: "2026-06-29", Counts: map[string]int{"ok": 3}}}
	p.set(loadstatus.Reach{Status: 200}, nil)
	j := loadstatus.New([]loadstatus.Target{p.target("x")}, &loadstatus.Options{Clock: clk, Logger: quiet()})
	ctx := context.Background()
	j.CheckAll(ctx)
	p.set(loadstatus.Reach{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "reset"})
	clk.Advance(time.Minute)
	j.CheckAll(ctx)
	clk.Advance(time.Minute)
	j.CheckAll(ctx)
	s, _ := j.Status("x")
	if s.State != loadstatus.Down || s.Failures != 2 || !s.DownSince.Equal(t0.Add(time.Minute)) || !s.LastUpAt.Equal(t0) {
		t.Errorf("down: %+v", s)
	}
	if s.Freshness == nil || s.Freshness.Newest != "2026-06-29" {
		t.Errorf("last good freshness lost while down: %+v", s.Freshness)
	}
	p.set(loadstatus.Reach{Status: 200}, nil)
	p.mu.Lock()
	p.freshE = errors.New("status answer lacks sources")
	p.mu.Unlock()
	clk.Advance(time.Minute)
	j.CheckAll(ctx)
	s, _ = j.Status("x")
	if s.State != loadstatus.Up || s.Failures != 0 || !s.DownSince.IsZero() || s.Freshness == nil || s.FreshnessError != "status answer lacks sources" {
		t.Errorf("recovered with a failing freshness probe: %+v", s)
	}
	// Snapshots are copies.
	snap := j.Snapshot()
	snap.Platforms[0].Freshness.Counts["ok"] = 99
	if s, _ := j.Status("x"); s.Freshness.Counts["ok"] != 3 {
		t.Error("a snapshot shares the job's maps")
	}
}

func TestPanickingProbeIsDown(t *testing.T) {
	j := loadstatus.New([]loadstatus.Target{{ID: "x", Title: "X", Reach: func(context.Context) (loadstatus.Reach, error) { panic("guest bug") }}},
		&loadstatus.Options{Clock: schedtest.NewClock(t0), Logger: quiet()})
	j.CheckAll(context.Background())
	if s, _ := j.Status("x"); s.State != loadstatus.Down || !strings.Contains(s.Message, "guest bug") {
		t.Errorf("got %+v", s)
	}
	if err := j.Check(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Check(nope) = %v", err)
	}
}

func TestParseSourceStatus(t *testing.T) {
	// The obv connector's answer for testdata/obv/obv-status.json, state all.
	text := `{"platform":"obv","generated_at":"2026-06-30T08:00:00.000Z","window_hours":36,"index_activity_available":true,
	"counts":{"failing":1,"stale":1,"ok":1,"discontinued":1},
	"suppliers":[{"supplier":"ibabs","label":"iBabs","state":"degraded","source_count":2,"ok_source_count":0,"last_error":"HTTP 503"}],
	"sources":[{"key":"soest","label":"Soest","supplier":"notubiz","state":"ok","last_success_at":"2026-06-30T01:45:12.000Z","latest_content_date":"2026-07-09"},
	{"key":"lopik","label":"Lopik","supplier":"ibabs","state":"stale"},{"key":"houten","label":"Houten","supplier":"ibabs","state":"failing"}]}`
	f, err := loadstatus.ParseSourceStatus(json.RawMessage(text))
	if err != nil {
		t.Fatal(err)
	}
	if !f.ReportedAt.Equal(time.Date(2026, 6, 30, 8, 0, 0, 0, time.UTC)) || f.WindowHours != 36 || f.Suppliers[0].LastError != "HTTP 503" {
		t.Errorf("freshness = %+v", f)
	}
	keys := func(ss []loadstatus.Source) (k []string) {
		for _, s := range ss {
			k = append(k, s.Key)
		}
		return k
	}
	if diff := cmp.Diff([]string{"houten", "lopik"}, keys(f.Problems())); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for q, want := range map[string][]string{"soest": {"soest"}, "SOEST": {"soest"}, "o": {"houten", "lopik", "soest"}, "nergens": nil, " ": nil} {
		if diff := cmp.Diff(want, keys(f.Find(q))); diff != "" {
			t.Errorf("Find(%q) (-want +got):\n%s", q, diff)
		}
	}
	for _, bad := range []string{`{`, `{"counts":{}}`, `[]`} {
		if _, err := loadstatus.ParseSourceStatus(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseSourceStatus(%s): no error", bad)
		}
	}
}

func TestParseNewest(t *testing.T) {
	f, err := loadstatus.ParseNewest(json.RawMessage(`{"platform":"tk","has_more":true,"offset":0,"results":[{"id":"1","title":"Motie","date":"2026-06-29"}]}`), "document")
	if err != nil || f.Newest != "2026-06-29" || f.NewestOf != "document" {
		t.Errorf("got %+v, %v", f, err)
	}
	for _, bad := range []string{`{"results":[]}`, `{"results":[{"title":"x"}]}`, `{}`, `nope`} {
		if _, err := loadstatus.ParseNewest(json.RawMessage(bad), "x"); err == nil {
			t.Errorf("ParseNewest(%s): no error", bad)
		}
	}
}

// TestFreshnessProbe: the probe calls the manifest's tool as the public
// session and reads the connector's structured JSON (never the text, which
// a connector may word as it likes); a tool error is its error, in the
// words a client would read. It catches a probe that counts against a
// visitor's session, decodes the text, or loses the error.
func TestFreshnessProbe(t *testing.T) {
	type got struct {
		info *callinfo.Info
		tool string
		args string
	}
	var calls []got
	answer := invoke.Answer{}
	run := func(_ context.Context, info *callinfo.Info, tool string, args json.RawMessage) invoke.Answer {
		calls = append(calls, got{info, tool, string(args)})
		return answer
	}
	newest := `{"platform":"tk","has_more":true,"offset":0,"results":[{"id":"1","title":"Motie","date":"2026-06-29"}]}`
	answer.Result = connector.CallResult{Text: "Newest first: Motie (29 June)", Structured: json.RawMessage(newest)}
	f, err := loadstatus.FreshnessProbe(run, "tk_search", nil, "document")(context.Background())
	if err != nil || f.Newest != "2026-06-29" || f.NewestOf != "document" {
		t.Errorf("newest: %+v, %v", f, err)
	}
	if len(calls) != 1 || calls[0].tool != "tk_search" || calls[0].args != "{}" || calls[0].info.Session != sched.PublicSession || !calls[0].info.Public {
		t.Errorf("calls %+v, want tk_search {} as the public session", calls)
	}
	answer.Result = connector.CallResult{Text: `{"counts":{"ok":1},"sources":[{"key":"soest","label":"Soest","state":"ok"}]}`}
	f, err = loadstatus.FreshnessProbe(run, "obv_status", json.RawMessage(`{"state":"all"}`), "")(context.Background())
	if err != nil || f.Counts["ok"] != 1 || len(f.Sources) != 1 || calls[1].args != `{"state":"all"}` {
		t.Errorf("source status from a JSON text: %+v, %v (args %s)", f, err, calls[1].args)
	}
	answer = invoke.Answer{Err: errors.New("OpenBesluitvorming: status: HTTP 503")}
	if _, err := loadstatus.FreshnessProbe(run, "obv_status", nil, "")(context.Background()); err == nil || err.Error() != "OpenBesluitvorming: status: HTTP 503" {
		t.Errorf("tool error: %v", err)
	}
}

func TestCollector(t *testing.T) {
	p := &platform{fresh: &loadstatus.Freshness{Counts: map[string]int{"ok": 3, "stale": 1}}}
	p.set(loadstatus.Reach{Status: 200, Upstream: 250 * time.Millisecond}, nil)
	j := loadstatus.New([]loadstatus.Target{p.target("obv")}, &loadstatus.Options{Clock: schedtest.NewClock(t0), Logger: quiet()})
	reg := prometheus.NewRegistry()
	reg.MustRegister(loadstatus.NewCollector(j))
	if got := gather(t, reg); got["besluitbron_platform_probe_latency_seconds{platform=obv}"] != nil {
		t.Errorf("latency before any check: %v", got)
	}
	j.CheckAll(context.Background())
	got := gather(t, reg)
	want := map[string]float64{
		"besluitbron_platform_sources{platform=obv,state=ok}":             3,
		"besluitbron_platform_sources{platform=obv,state=stale}":          1,
		"besluitbron_platform_state{platform=obv,state=up}":               1,
		"besluitbron_platform_state{platform=obv,state=down}":             0,
		"besluitbron_platform_state{platform=obv,state=unknown}":          0,
		"besluitbron_platform_probe_latency_seconds{platform=obv}":        0.25,
		"besluitbron_platform_consecutive_failures{platform=obv}":         0,
		"besluitbron_platform_last_check_timestamp_seconds{platform=obv}": float64(t0.Unix()),
	}
	for k, v := range want {
		if g := got[k]; g == nil || *g != v {
			t.Errorf("%s = %v, want %v", k, g, v)
		}
	}
}

// gather returns every series as "name{k=v,…}" → value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]*float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			v := m.GetGauge().GetValue()
			out[mf.GetName()+"{"+strings.Join(ls, ",")+"}"] = &v
		}
	}
	return out
}

// TestHammer runs rounds, single checks and snapshots at once (-race).
func TestHammer(t *testing.T) {
	var ps []*platform
	var ts []loadstatus.Target
	for i := range 4 {
		p := &platform{fresh: &loadstatus.Freshness{Counts: map[string]int{"ok": i}}}
		p.set(loadstatus.Reach{Status: 200 + i*100}, nil)
		ps = append(ps, p)
		ts = append(ts, p.target(string(rune('a'+i))))
	}
	clk := schedtest.NewClock(t0)
	j := loadstatus.New(ts, &loadstatus.Options{Clock: clk, Logger: quiet()})
	stop := j.Start(context.Background())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch (g + i) % 4 {
				case 0:
					j.CheckAll(context.Background())
				case 1:
					_ = j.Check(context.Background(), "b")
				case 2:
					for _, s := range j.Snapshot().Platforms {
						if s.Freshness != nil {
							_ = s.Freshness.Counts["ok"]
						}
					}
				case 3:
					ps[i%4].set(loadstatus.Reach{Status: 200 + (i%5)*100}, nil)
				}
			}
		}()
	}
	for range 50 {
		clk.Advance(5 * time.Minute)
	}
	wg.Wait()
	stop()
	if n := ps[0].reaches.Load(); n < 51 {
		t.Errorf("a checked %d times, want at least the 51 scheduled rounds", n)
	}
}

// TestSnapshotCarriesQuotas: the snapshot asks for the quotas when it is
// taken, and QuotasOf picks a platform's.
func TestSnapshotCarriesQuotas(t *testing.T) {
	calls := 0
	quotas := []loadstatus.Quota{
		{Quota: "openbesluitvorming.nl", Limited: true, Connectors: []loadstatus.QuotaUser{{Platform: "obv", Title: "OpenBesluitvorming", Service: "api"}}},
		{Quota: "zoek.officielebekendmakingen.nl", Limited: true, Shared: true, Connectors: []loadstatus.QuotaUser{
			{Platform: "obk", Title: "Officiële Bekendmakingen", Service: "zoek"}, {Platform: "tk", Title: "Tweede Kamer", Service: "obk"}}},
	}
	j := loadstatus.New(nil, &loadstatus.Options{Quotas: func() []loadstatus.Quota { calls++; return quotas }})
	snap := j.Snapshot()
	if calls != 1 || len(snap.Quotas) != 2 {
		t.Fatalf("%d calls, quotas %+v", calls, snap.Quotas)
	}
	if got := snap.QuotasOf("tk"); len(got) != 1 || got[0].Quota != "zoek.officielebekendmakingen.nl" {
		t.Errorf("QuotasOf(tk) = %+v", got)
	}
	if got := snap.Quotas[1].Titles(); len(got) != 2 || got[0] != "Officiële Bekendmakingen" {
		t.Errorf("Titles = %v", got)
	}
	if got := snap.QuotasOf("ori"); len(got) != 0 {
		t.Errorf("QuotasOf(ori) = %+v", got)
	}
}

// TestSnapshotSaysWhereEachLimitComesFrom: a quota given without its
// limit's origin is snapshotted with the reading Quota.Origin gives (the
// admin's when its source is the admin's, polite with a limit, unknown
// without), never with none; one given with it keeps it.
func TestSnapshotSaysWhereEachLimitComesFrom(t *testing.T) {
	j := loadstatus.New(nil, &loadstatus.Options{Quotas: func() []loadstatus.Quota {
		return []loadstatus.Quota{
			{Quota: "a", Limited: true, Units: 1, PerSeconds: 1, LimitFrom: "published", LimitWhere: "a/docs"},
			{Quota: "b", Limited: true, Units: 1, PerSeconds: 1},
			{Quota: "c", Limited: true, Units: 1, PerSeconds: 1, SourceAdmin: true},
			{Quota: "d"},
		}
	}})
	got := map[string]string{}
	for _, q := range j.Snapshot().Quotas {
		got[q.Quota] = q.LimitFrom
	}
	if want := map[string]string{"a": "published", "b": "polite", "c": loadstatus.LimitAdmin, "d": "unknown"}; cmp.Diff(want, got) != "" {
		t.Errorf("limit_from (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// A check that finds a platform's host name unresolvable (no network)
// says once, over every platform and round, to try `make demo`; a
// platform that refuses the connection is no reason to. Catches the
// seven "no such host" warnings `make run` logged offline with no hint.
func TestOfflineHintOnce(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(b)
	}), nil))
	var ps []*platform
	var ts []loadstatus.Target
	for _, id := range []string{"obv", "ori", "tk"} {
		p := &platform{}
		p.set(loadstatus.Reach{}, &connector.FetchError{Kind: connector.FetchUnavailable,
			Message: `Get "https://` + id + `.example/": dial tcp: lookup ` + id + `.example: no such host`})
		ps, ts = append(ps, p), append(ts, p.target(id))
	}
	refusing := &platform{}
	refusing.set(loadstatus.Reach{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"})
	ts = append(ts, refusing.target("rechtspraak"))
	j := loadstatus.New(ts, &loadstatus.Options{Clock: schedtest.NewClock(t0), Logger: logger})
	j.CheckAll(context.Background())
	j.CheckAll(context.Background())
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if n := strings.Count(out, "make demo"); n != 1 {
		t.Errorf("the hint logged %d times, want once:\n%s", n, out)
	}
	if n := strings.Count(out, "no such host"); n != 6 {
		t.Errorf("%d warnings naming the lookup, want 3 platforms × 2 rounds:\n%s", n, out)
	}

	logs.Reset()
	j = loadstatus.New([]loadstatus.Target{refusing.target("rechtspraak")}, &loadstatus.Options{Clock: schedtest.NewClock(t0), Logger: logger})
	j.CheckAll(context.Background())
	if strings.Contains(logs.String(), "make demo") {
		t.Errorf("the hint for a refused connection:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
