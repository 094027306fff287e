package host_test

// One upstream host, one quota: the tk connector (the official XML of
// Kamerstukken) and the obk connector (publication files) both fetch from
// zoek.officielebekendmakingen.nl, and BesluitBron keeps that host's limit
// for the two together.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// zoekArrivals records when each request reached the simulator's zoek
// host, and its status.
type zoekArrivals struct {
	mu   sync.Mutex
	reqs []zoekArrival
	// first429 is closed when the first 429 has been answered.
	first429 chan struct{}
}

type zoekArrival struct {
	at     time.Time
	path   string
	status int
}

func (z *zoekArrivals) list() []zoekArrival {
	z.mu.Lock()
	defer z.mu.Unlock()
	return slices.Clone(z.reqs)
}

// quotaSim starts the simulator with a sliding window of window for its
// counters; arrivals sees every request to the zoek host as it arrives.
func quotaSim(t *testing.T, window time.Duration) (*platformsim.Sim, string, *zoekArrivals) {
	t.Helper()
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Window: window,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	arrivals := &zoekArrivals{first429: make(chan struct{})}
	h := sim.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/"+platformsim.Zoek+"/") {
			h.ServeHTTP(w, r)
			return
		}
		at := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		arrivals.mu.Lock()
		arrivals.reqs = append(arrivals.reqs, zoekArrival{at: at, path: r.URL.Path, status: sw.status})
		if sw.status == http.StatusTooManyRequests && !slices.ContainsFunc(arrivals.reqs[:len(arrivals.reqs)-1], func(a zoekArrival) bool { return a.status == http.StatusTooManyRequests }) {
			close(arrivals.first429)
		}
		arrivals.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(sim.Close)
	return sim, srv.URL, arrivals
}

// quotaConfig is the proof config (all seven connectors on the simulator;
// tk and obk reach its zoek host through url_rewrites) without caches, so
// that every get_document fetches, and with the zoek host's limit set to
// units per per on both connectors that use it (raised from 10 per 30 s,
// so the test is quick: on one connector alone it would not apply).
func quotaConfig(t *testing.T, simURL string, units int, per time.Duration) string {
	cfg := proofConfig(t, simURL, t.TempDir(), "")
	cfg = strings.Replace(cfg, "[cache]\n", "[cache]\nenabled = false\n", 1)
	for _, key := range []string{"tk.limits.obk", "obk.limits.zoek"} {
		cfg += fmt.Sprintf("[connectors.%s]\nunits = %d\nper = %q\n", key, units, per)
	}
	return cfg
}

// tkLongXML is the simulator's Kamerstuk whose text comes from its official
// XML on zoek.officielebekendmakingen.nl.
func tkLongXML(t *testing.T) platformsim.LongDocument {
	for _, d := range platformsim.LongDocuments() {
		if d.Platform == "tk" && d.Format == "XML" {
			return d
		}
	}
	t.Fatal("the simulator has no tk document with an official XML")
	return platformsim.LongDocument{}
}

// TestQuotaSharedByTkAndObk: tk_get_document (official XML) and
// obk_get_document (publication files), called in parallel from several
// sessions, together never send zoek.officielebekendmakingen.nl more than
// its one limit allows: in any window of the simulator's, at most the
// bucket plus the window's refill. With a limiter per connector, as before,
// the host saw nearly twice that.
//
// The limit, 10 per 5 s, keeps the local bucket's headroom of one unit
// worth half a second of refill: the first calls' requests, granted while
// 20 calls start their instances on a small machine, may reach the host
// that much later than later ones.
func TestQuotaSharedByTkAndObk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all seven connectors")
	}
	const (
		units  = 10 // per 5 s, on both connectors
		per    = 5 * time.Second
		window = 2 * time.Second
		nTK    = 5
		nOBK   = 15
	)
	sim, simURL, arrivals := quotaSim(t, window)
	_, base, counter := proofHost(t, quotaConfig(t, simURL, units, per))
	long := tkLongXML(t)

	clients := []*proofClient{newProofClient(t, base, "a"), newProofClient(t, base, "b"), newProofClient(t, base, "c")}
	defer func() {
		for _, c := range clients {
			c.close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	results := make([]callResult, nTK+nOBK)
	start := time.Now()
	for i := range nTK + nOBK {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[i%len(clients)]
			if i < nTK {
				results[i] = c.call(ctx, "tk", "tk_get_document", map[string]any{long.Arg: long.ID})
			} else {
				// Distinct publications: every call reaches the zoek host
				// (these are unknown there: it answers 404).
				results[i] = c.call(ctx, "obk", "obk_get_document", map[string]any{"id": fmt.Sprintf("stcrt-2026-%d", 90000+i)})
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	for i, r := range results {
		switch {
		case r.err != nil:
			t.Fatalf("call %d (%s): %v", i, r.platform, r.err)
		case r.platform == "tk" && (r.res.IsError || !strings.Contains(resultText(r.res), long.StartPhrase)):
			t.Errorf("tk_get_document: %.300s", resultText(r.res))
		case r.platform == "obk" && !strings.Contains(resultText(r.res), "has no XML for"):
			t.Errorf("obk_get_document: want the zoek host's 404, got %.300s", resultText(r.res))
		}
	}
	st := sim.Stats().Platforms[platformsim.Zoek]
	bound := float64(units) + units*window.Seconds()/per.Seconds()
	if st.Requests < nTK+nOBK {
		t.Errorf("the zoek host saw %d requests; want at least one per call (%d): the cache answered, the test proves nothing", st.Requests, nTK+nOBK)
	}
	if st.MaxWindowUnits > bound {
		t.Errorf("the zoek host saw %v requests within %v; its limit (%d per %v, for tk and obk together) allows at most %v", st.MaxWindowUnits, window, units, per, bound)
	}
	if st.TooMany != 0 {
		t.Errorf("the zoek host answered 429 %d times", st.TooMany)
	}
	var fromTK, fromOBK int
	for _, a := range arrivals.list() {
		if strings.Contains(a.path, "stcrt-2026-") {
			fromOBK++
		} else {
			fromTK++
		}
	}
	if fromTK < nTK || fromOBK < nOBK {
		t.Errorf("zoek requests: %d from tk, %d from obk; want at least %d and %d", fromTK, fromOBK, nTK, nOBK)
	}
	if n := counter.fiveXX.Load(); n != 0 {
		t.Errorf("BesluitBron answered %d HTTP 5xx (last %v)", n, counter.lastFiveX.Load())
	}
	// /status.json shows the quota by host, with both connectors' shares.
	q := statusQuota(t, base, "zoek.officielebekendmakingen.nl")
	users := map[string]loadstatus.QuotaUser{}
	for _, u := range q.Connectors {
		users[u.Platform+"/"+u.Service] = u
	}
	if !q.Limited || !q.Shared || q.Units != units || q.PerSeconds != per.Seconds() || len(users) != 2 ||
		users["tk/obk"].Calls < nTK || users["obk/zoek"].Calls < nOBK {
		t.Errorf("/status.json quota: %+v", q)
	}
	// besluitbron_status says the two share the host's limit.
	sr := clients[0].call(ctx, "", "besluitbron_status", map[string]any{"platform": "tk"})
	if sr.err != nil || sr.res.IsError {
		t.Fatalf("besluitbron_status: %v %s", sr.err, resultText(sr.res))
	}
	var answer struct {
		Summary []string           `json:"summary"`
		Quotas  []loadstatus.Quota `json:"quotas"`
	}
	if err := json.Unmarshal([]byte(resultText(sr.res)), &answer); err != nil {
		t.Fatal(err)
	}
	// Both connectors' keys set the limit: either may be the one named.
	wantLine := "Limit at zoek.officielebekendmakingen.nl: 10 units per 5s, for Officiële Bekendmakingen and Tweede Kamer (Gegevensmagazijn) together; set by the administrator (connectors."
	if !slices.ContainsFunc(answer.Summary, func(l string) bool { return strings.HasPrefix(l, wantLine) }) || len(answer.Quotas) == 0 {
		t.Errorf("besluitbron_status for tk: summary %q, quotas %+v; want the line %q", answer.Summary, answer.Quotas, wantLine)
	}
	for _, q := range answer.Quotas {
		if !slices.ContainsFunc(q.Connectors, func(u loadstatus.QuotaUser) bool { return u.Platform == "tk" }) {
			t.Errorf("besluitbron_status for tk lists %s, which tk does not use", q.Quota)
		}
	}
	// The metrics keep their names and labels, with the quota's added:
	// each connector's own calls at the shared quota.
	for series, want := range map[string]float64{
		`besluitbron_sched_granted_calls_total{platform="tk",quota="zoek.officielebekendmakingen.nl",service="obk"}`:   nTK,
		`besluitbron_sched_granted_calls_total{platform="obk",quota="zoek.officielebekendmakingen.nl",service="zoek"}`: nOBK,
		`besluitbron_quota_limit_units{quota="zoek.officielebekendmakingen.nl"}`:                                       units,
	} {
		if got := scrape(t, base, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	t.Logf("%d calls (%d tk, %d obk) in %v: the zoek host saw %d requests (%d from tk, %d from obk), at most %v within %v (bound %v)",
		nTK+nOBK, nTK, nOBK, took.Round(time.Millisecond), st.Requests, fromTK, fromOBK, st.MaxWindowUnits, window, bound)
}

// TestQuota429PausesBothConnectors: a 429 that the zoek host gives obk
// pauses tk's calls to that host too: no request of either reaches it
// before the Retry-After has passed, and tk's call waits at the limit.
func TestQuota429PausesBothConnectors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all seven connectors")
	}
	const retryAfter = 3 * time.Second
	sim, simURL, arrivals := quotaSim(t, time.Minute)
	_, base, _ := proofHost(t, quotaConfig(t, simURL, 10, 5*time.Second))
	long := tkLongXML(t)
	c := newProofClient(t, base, "pause")
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	if err := sim.SetFault(platformsim.Zoek, platformsim.Fault{Storm429: true, RetryAfter: int(retryAfter / time.Second)}); err != nil {
		t.Fatal(err)
	}
	obkDone := make(chan callResult, 1)
	go func() {
		obkDone <- c.call(ctx, "obk", "obk_get_document", map[string]any{"id": "stcrt-2015-47076"})
	}()
	// The first 429, then the host is healthy again.
	select {
	case <-arrivals.first429:
	case <-ctx.Done():
		t.Fatal("obk's request never reached the zoek host")
	}
	sim.ClearFaults()
	first := arrivals.list()
	if len(first) != 1 || first[0].status != http.StatusTooManyRequests {
		t.Fatalf("zoek arrivals %+v; want one 429", first)
	}
	t429 := first[0].at
	// The simulator has sent the 429; wait until BesluitBron has read it
	// (the quota counts it), so tk's call starts under the pause rather
	// than racing the answer on its way back (under -race the host reads
	// it milliseconds later). A condition with a deadline, not a sleep.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if got429(statusQuota(t, base, "zoek.officielebekendmakingen.nl"), "obk") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("BesluitBron never counted the zoek host's 429")
		}
		runtime.Gosched()
	}
	tkStart := time.Now()
	tk := c.call(ctx, "tk", "tk_get_document", map[string]any{long.Arg: long.ID})
	obk := <-obkDone
	if tk.err != nil || tk.res.IsError || !strings.Contains(resultText(tk.res), long.StartPhrase) {
		t.Fatalf("tk_get_document: %v %.300s", tk.err, resultText(tk.res))
	}
	if obk.err != nil || obk.res.IsError {
		t.Fatalf("obk_get_document after the 429: %v %.300s", obk.err, resultText(obk.res))
	}
	// No request of either connector reached the host before the pause
	// the 429 set had passed (it began when BesluitBron read the answer,
	// after the simulator sent it).
	var sawTK bool
	for _, a := range arrivals.list()[1:] {
		if early := t429.Add(retryAfter).Sub(a.at); early > 0 {
			t.Errorf("%s reached the zoek host %v after the 429, %v before its Retry-After of %v ended", a.path, a.at.Sub(t429), early, retryAfter)
		}
		sawTK = sawTK || !strings.Contains(a.path, "stcrt-2015-47076")
	}
	if !sawTK {
		t.Errorf("tk's request never reached the zoek host: %+v", arrivals.list())
	}
	// tk waited at the shared limit, not at a platform it never asked:
	// unless this machine stalled for the whole pause before tk called.
	queued, _ := tk.res.Meta["besluitbron/queued_ms"].(float64)
	if left := t429.Add(retryAfter).Sub(tkStart); left > time.Second && time.Duration(queued)*time.Millisecond < left/2 {
		t.Errorf("tk's call started %v before the pause ended but waited %v ms at the limit", left, queued)
	}
	q := statusQuota(t, base, "zoek.officielebekendmakingen.nl")
	for _, u := range q.Connectors {
		if want := map[string]uint64{"obk": 1, "tk": 0}[u.Platform]; u.Got429 != want {
			t.Errorf("/status.json: %s received %d 429s; want %d", u.Platform, u.Got429, want)
		}
	}
	t.Logf("429 at the zoek host; tk called %v later and waited %v ms; every later request arrived ≥ %v after the 429", tkStart.Sub(t429).Round(time.Millisecond), queued, retryAfter)
}

// got429 is the 429s a quota counted for platform's calls.
func got429(q loadstatus.Quota, platform string) uint64 {
	for _, u := range q.Connectors {
		if u.Platform == platform {
			return u.Got429
		}
	}
	return 0
}

// statusQuota reads one quota from /status.json.
func statusQuota(t *testing.T, base, name string) loadstatus.Quota {
	t.Helper()
	resp, err := http.Get(base + "/status.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var snap loadstatus.Snapshot
	if err := json.NewDecoder(resp.Body).Decode(&snap); err != nil {
		t.Fatal(err)
	}
	for _, q := range snap.Quotas {
		if q.Quota == name {
			return q
		}
	}
	t.Fatalf("/status.json has no quota %s: %+v", name, snap.Quotas)
	return loadstatus.Quota{}
}

// TestQuotasOfTheSevenConnectors: the connectors' manifests name the
// upstream host of every service, and the quotas the host builds from them
// are one per host, except where a platform limits parts of a host apart:
// tk and obk share zoek.officielebekendmakingen.nl, Rechtspraak's index and
// documents share data.rechtspraak.nl, OpenTK's search and pages stay two.
func TestQuotasOfTheSevenConnectors(t *testing.T) {
	var claims []quota.Claim
	for _, p := range []*sdk.Plugin{obk.Plugin(), obv.Plugin(), openarchivaris.Plugin(), opentk.Plugin(), ori.Plugin(), rechtspraak.Plugin(), tk.Plugin()} {
		m := p.Manifest
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, s := range m.Services {
			if s.Host == "" {
				t.Errorf("%s: service %s names no host", m.ID, s.Name)
			}
		}
		claims = append(claims, quota.Claims(m.ID, m, func(s connector.Service) (sched.Limit, bool) {
			return sched.Limit{Units: s.Units, Per: time.Duration(s.Per)}, false
		})...)
	}
	quotas := map[string][]string{}
	for _, c := range claims {
		quotas[c.Quota] = append(quotas[c.Quota], c.Platform+"/"+c.Service)
	}
	want := map[string][]string{
		"zoek.officielebekendmakingen.nl": {"obk/zoek", "tk/obk"},
		"repository.overheid.nl":          {"obk/sru"},
		"openbesluitvorming.nl":           {"obv/api"},
		"openarchivaris.nl":               {"openarchivaris/api"},
		"berthub.eu/search":               {"opentk/search"},
		"berthub.eu/pages":                {"opentk/pages"},
		"api.openraadsinformatie.nl":      {"ori/elastic"},
		"data.rechtspraak.nl":             {"rechtspraak/search", "rechtspraak/content"},
		"gegevensmagazijn.tweedekamer.nl": {"tk/odata"},
	}
	if d := cmp.Diff(want, quotas); d != "" {
		t.Errorf("quotas (-want +got):\n%s", d)
	}
	var log bytes.Buffer
	ls, err := quota.Build(claims, nil, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("the manifests' own limits conflict:\n%s", log.String())
	}
	limited := map[string]string{}
	for _, l := range ls {
		limited[l.Name] = quota.FormatLimit(l.Limit)
	}
	if d := cmp.Diff(map[string]string{
		"zoek.officielebekendmakingen.nl": "10 per 30s",
		"repository.overheid.nl":          "3 per 1s",
		"openbesluitvorming.nl":           "60 per 1m0s",
		"openarchivaris.nl":               "120 per 1m0s",
		"data.rechtspraak.nl":             "10 per 1s",
	}, limited); d != "" {
		t.Errorf("limited quotas (-want +got):\n%s", d)
	}
}
