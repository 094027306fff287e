package host_test

// The requirement's sentences about limits (../shared/seed/
// buffering-and-limits.md) that are shares and rates, through the whole
// host in real time: MCP sessions over HTTP, the real WebAssembly
// OpenBesluitvorming connector, its fair scheduler and instance pool,
// against a fake platform that enforces its own token bucket at a
// scaled-down limit and records who was served and when. Time is real but
// scaled (limits of seconds, not minutes); what is asserted are shares,
// counts and a rate read off the platform's own grant times over many
// grants, so that the verdict does not depend on how busy the machine is:
// the ratios within 0.10 of the weights' prediction, the newcomers' share
// closer to the weights' prediction than to what round robin would give by
// a margin computed in the test, a lone session at >= 90 % of the limit.
// A refusal by the platform is asserted separately: it is the load the
// seed exists to prevent.
//
// Every other sentence is proven in virtual time, exactly, through the
// host as well (seed_virtual_test.go, host.Options.Clock a fake clock): a
// call with room goes at once, the same usage gets the same share, the
// order within a session is kept, the longest waiting goes first, a call
// per refill window however much was used, an oversized call, forgetting
// after thirty minutes, clearing one platform's cache, each cache class's
// TTL, another version's items discarded when asked and only then.
// docs/proof.md maps each sentence of the seed to its test.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// seedPlatform is a fake OpenBesluitvorming with its own token bucket: a
// search costs max(1, ceil(limit/24)) units, as on the real platform, and
// the query's text before "-" names who asked.
type seedPlatform struct {
	mu             sync.Mutex
	capacity, rate float64 // units, units per second
	tokens         float64
	last           time.Time
	latency        time.Duration
	body           []byte
	grants         []seedGrant
	units          float64 // of all grants
	rejected       int
	inflight, most int // requests being answered now; the most at once
	// waiters are closed once units reach their mark.
	waiters []seedWaiter
}

type seedWaiter struct {
	mark float64
	ch   chan struct{}
}

// after returns a channel closed once the platform has granted n more
// units than it has now.
func (p *seedPlatform) after(n float64) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	p.waiters = append(p.waiters, seedWaiter{mark: p.units + n, ch: ch})
	return ch
}

type seedGrant struct {
	who  string
	cost float64
	at   time.Time
}

func (p *seedPlatform) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	cost := obv.SearchCost(limit)
	who, _, _ := strings.Cut(r.URL.Query().Get("query"), "-")
	p.mu.Lock()
	now := time.Now()
	if !p.last.IsZero() {
		p.tokens = min(p.capacity, p.tokens+now.Sub(p.last).Seconds()*p.rate)
	}
	p.last = now
	if p.tokens < cost {
		p.rejected++
		// When the bucket will hold the cost: a refusal pauses the
		// quota that long and no longer, so that one refusal (asserted
		// on its own) does not also cost the rate a whole second.
		retry := strconv.FormatFloat((cost-p.tokens)/p.rate, 'f', 3, 64)
		p.mu.Unlock()
		w.Header().Set("Retry-After", retry)
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":"Te veel verzoeken."}`))
		return
	}
	p.tokens -= cost
	p.grants = append(p.grants, seedGrant{who: who, cost: cost, at: now})
	p.units += cost
	kept := p.waiters[:0]
	for _, w := range p.waiters {
		if p.units >= w.mark {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	p.waiters = kept
	p.inflight++
	p.most = max(p.most, p.inflight)
	p.mu.Unlock()
	time.Sleep(p.latency) // the platform's answer time
	p.mu.Lock()
	p.inflight--
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(p.body)
}

// served returns the grants so far and the 429s sent.
func (p *seedPlatform) served() ([]seedGrant, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seedGrant(nil), p.grants...), p.rejected
}

// seedHost starts a host with only obv, pointed at a fake platform of
// capacity units refilled per window, whose limit the host is told; extra
// goes into [connectors.obv].
func seedHost(t *testing.T, units float64, per time.Duration, latency time.Duration, extra string) (*host.Host, string, *seedPlatform) {
	t.Helper()
	if proofRace() || testing.Short() {
		t.Skip("seconds of real, scaled traffic; its shares mean nothing under -race")
	}
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		t.Fatal(err)
	}
	plat := &seedPlatform{capacity: units, rate: units / per.Seconds(), tokens: units, latency: latency, body: body}
	up := httptest.NewServer(plat)
	t.Cleanup(up.Close)
	cfg := fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[status]
enabled = false
[mcp_rate_limit]
enabled = false
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
%s
[connectors.obv.limits.api]
units = %g
per = %q
`, proofCompileDir(t), t.TempDir(), wasmbuild.Path(t, "./plugins/obv/cmd"), up.URL, extra, units, per.String())
	c, err := host.LoadConfig(writeConfig(t, cfg), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "seed"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		h.Close(context.Background())
	})
	return h, srv.URL, plat
}

// seedSession is one MCP client session.
type seedSession struct {
	name string
	cs   *mcp.ClientSession
	n    int
	mu   sync.Mutex
}

func newSeedSession(t *testing.T, base, name string) *seedSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &seedSession{name: name, cs: cs}
}

// search makes one uncached search costing max(1, ceil(limit/24)) units.
func (s *seedSession) search(ctx context.Context, limit int) error {
	s.mu.Lock()
	s.n++
	q := fmt.Sprintf("%s-%d", s.name, s.n)
	s.mu.Unlock()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": q, "limit": limit}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s: %s", q, text(res))
	}
	return nil
}

// keepBusy runs parallel searches of limit for s until ctx ends.
func keepBusy(ctx context.Context, wg *sync.WaitGroup, s *seedSession, parallel, limit int) {
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				s.search(ctx, limit)
			}
		}()
	}
}

// shareOf counts the grants of each asker after from.
func shareOf(grants []seedGrant, from time.Time) (map[string]float64, float64) {
	by, total := map[string]float64{}, 0.0
	for _, g := range grants {
		if !g.at.Before(from) {
			by[g.who] += g.cost
			total += g.cost
		}
	}
	return by, total
}

// "At OpenBesluitvorming, a session that has used 60 units receives half
// of what a new session receives. After 120 units, this is reduced to
// one-third." Scaled to a bucket of 20 units refilled in 4 s: a session
// that used 20 units weighs 1/2, one that used 40 weighs 1/3, exactly as
// 60 and 120 at OBV. The rate, 5 units a second, is one a machine with
// every core busy still keeps calls waiting at (at 20 and at 10 a second
// it could not always send the calls, every call was granted as it came,
// and the shares flattened to a third each). TestSeedVirtualRatios shows
// the same at OBV's own 60 per minute, exactly.
func TestSeedRatios(t *testing.T) {
	h, base, plat := seedHost(t, 20, 4*time.Second, 0, "")
	a, b, c := newSeedSession(t, base, "a"), newSeedSession(t, base, "b"), newSeedSession(t, base, "c")
	ctx := context.Background()
	// a uses 20 units, b 40: searches of 100 results cost 5 each.
	var wg sync.WaitGroup
	for _, x := range []struct {
		s *seedSession
		n int
	}{{a, 4}, {b, 8}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range x.n {
				if err := x.s.search(ctx, 100); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	now := time.Now()
	for _, x := range []struct {
		s    *seedSession
		want float64
	}{{a, 1.0 / 2}, {b, 1.0 / 3}, {c, 1}} {
		if got := host.SchedulerWeight(h, "obv", x.s.cs.ID(), now); got != x.want {
			t.Errorf("session %s (used %g units): weight %v, want exactly %v", x.s.name, host.SchedulerUsage(h, "obv", x.s.cs.ID(), now), got, x.want)
		}
	}
	// Now all three keep searches waiting: the units they get follow
	// C/(C+used), used growing as they are served. Twelve calls each,
	// started in turn, so that each session has calls waiting at the
	// scheduler even when the machine is slow to send the next (with
	// three, a busy machine let sessions drop out of the queue and the
	// shares flattened to a 0.32, b 0.32, c 0.36). The window opens after
	// a bucketful, which goes to whoever asked first, with the usage the
	// host has then.
	bctx, cancel := context.WithCancel(ctx)
	var busy sync.WaitGroup
	for range 12 {
		for _, s := range []*seedSession{a, b, c} {
			keepBusy(bctx, &busy, s, 1, 24)
		}
	}
	<-plat.after(20)
	start := time.Now()
	enough := plat.after(45)
	var used []float64
	for _, s := range []*seedSession{a, b, c} {
		used = append(used, host.SchedulerUsage(h, "obv", s.cs.ID(), start))
	}
	<-enough
	cancel()
	busy.Wait()
	grants, rejected := plat.served()
	by, total := shareOf(grants, start)
	want := schedtest.FairShares(20, used, []bool{false, false, false}, total)
	for i, name := range []string{"a", "b", "c"} {
		got := by[name] / total
		if w := want[i] / total; got < w-0.10 || got > w+0.10 {
			t.Errorf("session %s got %.2f of %g units, the weights predict %.2f", name, got, total, w)
		}
	}
	if rejected > 0 {
		t.Errorf("the platform refused %d requests: BesluitBron went over its limit", rejected)
	}
	t.Logf("shares of %g units: a %.2f, b %.2f, c %.2f; predicted %.2f %.2f %.2f from usage %v", total, by["a"]/total, by["b"]/total, by["c"]/total, want[0]/total, want[1]/total, want[2]/total, used)
}

// "If there are requests queued from multiple sessions, the amount of
// resources used determines which one takes priority", with more sessions
// than the connector has instances: eight sessions that have used 15 units
// each (weight 5/20) and eight new ones, four calls each, sixteen
// instances at most, at 5 units per half second. Instances must not
// decide: round robin, by instance or by session, would give the newcomers
// half of the units; the weights, from the usage when every session
// waits, give them about 0.68 of the next 120. The newcomers'
// share must lie within half that distance of the weights' prediction, so
// that neither can pass for the other.
func TestSeedNewcomersWithMoreSessionsThanInstances(t *testing.T) {
	h, base, plat := seedHost(t, 5, time.Second/2, 0, "pool_size = 2\nmax_instances = 16")
	ctx := context.Background()
	var heavy, fresh []*seedSession
	for i := range 8 {
		heavy = append(heavy, newSeedSession(t, base, fmt.Sprintf("heavy%d", i)))
		fresh = append(fresh, newSeedSession(t, base, fmt.Sprintf("new%d", i)))
	}
	// The heavy sessions use 15 units each (five searches of 72).
	var wg sync.WaitGroup
	for _, s := range heavy {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if err := s.search(ctx, 72); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	bctx, cancel := context.WithCancel(ctx)
	var busy sync.WaitGroup
	for i := range heavy {
		keepBusy(bctx, &busy, heavy[i], 4, 24)
		keepBusy(bctx, &busy, fresh[i], 4, 24)
	}
	// The window opens once every session waits (the first bucket goes
	// to whoever asked first), with the usage the host has then.
	<-plat.after(10)
	start := time.Now()
	enough := plat.after(120)
	used := make([]float64, 0, 16)
	for _, s := range append(append([]*seedSession(nil), heavy...), fresh...) {
		used = append(used, host.SchedulerUsage(h, "obv", s.cs.ID(), start))
	}
	<-enough
	cancel()
	busy.Wait()
	grants, rejected := plat.served()
	by, total := shareOf(grants, start)
	want := schedtest.FairShares(5, used, make([]bool, 16), total)
	var got, predicted float64
	for i, s := range fresh {
		got += by[s.name]
		predicted += want[8+i]
	}
	got, predicted = got/total, predicted/total
	// Round robin serves every waiting session alike: 8 of 16.
	const roundRobin = 0.5
	margin := (predicted - roundRobin) / 2
	if margin < 0.08 {
		t.Fatalf("the weights predict %.2f for the newcomers, too close to round robin's %.2f to tell them apart (heavy usage %v)", predicted, roundRobin, used[:8])
	}
	if got < predicted-margin || got > predicted+margin {
		t.Errorf("newcomers got %.2f of %g units; the weights predict %.2f, round robin would give %.2f; want within %.2f of the prediction", got, total, predicted, roundRobin, margin)
	}
	if rejected > 0 {
		t.Errorf("the platform refused %d requests", rejected)
	}
	t.Logf("newcomers got %.2f of %g units, predicted %.2f (round robin %.2f, margin %.2f); usage when the window opened %v", got, total, predicted, roundRobin, margin, used)
}

// "If there is only one session, it is allocated the entire space": a lone
// session with 32 parallel calls keeps a platform that answers in one
// second at its full rate. At 10 units a second that needs 10 calls in
// flight at the platform at once, which the old cap of half the pool (4)
// never allowed. The rate is read off the platform's own grant times after
// the first bucket: the slope of 90 grants' times against their order (a
// least-squares fit, so that a late or early arrival at either end does
// not decide), at least 90 % of the limit. With 32 calls the scheduler
// has calls waiting as long as the host's own work per call stays under
// 2 s, so that the rate is the scheduler's, not the machine's.
func TestSeedLoneSessionUsesTheEntireSpace(t *testing.T) {
	const units, n = 10, 100
	_, base, plat := seedHost(t, units, time.Second, time.Second, "")
	s := newSeedSession(t, base, "lone")
	enough := plat.after(n)
	ctx, cancel := context.WithCancel(context.Background())
	var busy sync.WaitGroup
	keepBusy(ctx, &busy, s, 32, 24)
	<-enough
	cancel()
	busy.Wait()
	grants, rejected := plat.served()
	plat.mu.Lock()
	most := plat.most
	plat.mu.Unlock()
	if most < units {
		t.Errorf("a lone session had at most %d calls in flight at a platform that needs %d to be used in full", most, units)
	}
	if rejected > 0 {
		t.Errorf("the platform refused %d requests", rejected)
	}
	rate := grantRate(grants[units:n])
	if rate < 0.9*units {
		t.Errorf("a lone session was granted %.2f units a second after the first bucket, below 90 %% of the limit of %d", rate, units)
	}
	t.Logf("lone session: %d calls in flight at most; %.2f units a second of %d (grants %d to %d)", most, rate, units, units, n)
}

// grantRate is the units per second of grants of one cost each: the
// inverse of the least-squares slope of their times against their order.
func grantRate(gs []seedGrant) float64 {
	var si, st float64
	for i, g := range gs {
		si += float64(i)
		st += g.at.Sub(gs[0].at).Seconds()
	}
	mi, mt := si/float64(len(gs)), st/float64(len(gs))
	var cov, vi float64
	for i, g := range gs {
		di := float64(i) - mi
		cov += di * (g.at.Sub(gs[0].at).Seconds() - mt)
		vi += di * di
	}
	return gs[0].cost * vi / cov
}

// "The search page and BesluitBron's own maintenance activities ... count
// together as a single session. For these, usage is not counted."
func TestSeedPublicSessionIsNotCounted(t *testing.T) {
	h, base, plat := seedHost(t, 60, 3*time.Second, 0, "")
	for i := range 3 {
		resp, err := http.Get(base + "/?q=public-" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	grants, _ := plat.served()
	if len(grants) == 0 {
		t.Fatal("the search page reached no platform")
	}
	if u := host.SchedulerUsage(h, "obv", sched.PublicSession, time.Now()); u != 0 {
		t.Errorf("the public session is charged %g units, want 0", u)
	}
	if w := host.SchedulerWeight(h, "obv", sched.PublicSession, time.Now()); w != 1 {
		t.Errorf("the public session's weight %v, want 1", w)
	}
}
