package host_test

// Watches end to end (issue 30): MCP sessions of the go-sdk client over
// HTTP, the real WebAssembly OpenBesluitvorming connector, the host's
// fair scheduler and cache, against the platform simulator on the same
// fake clock (host.Options.Clock and platformsim.Options.Now are one
// schedtest.Clock). Time moves only when a test advances it; after each
// step a test waits until no poll runs (host.WatchesIdle), never sleeping
// to let the host catch up.

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// watchRig is a host with only obv on a fake clock, pointed at the
// simulator, whose OBV search queries are counted as they arrive.
type watchRig struct {
	t       *testing.T
	clk     *schedtest.Clock
	sim     *platformsim.Sim
	cfgPath string
	h       *host.Host
	base    string
	mu      sync.Mutex
	queries map[string]int // OBV search queries the simulator saw
}

// startWatchRig starts the simulator (OBV's bucket: units per per) and a
// host that keeps the same limit, with [watch] as given.
func startWatchRig(t *testing.T, units float64, per time.Duration, watchCfg string) *watchRig {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a host with the WebAssembly connector")
	}
	r := &watchRig{t: t, clk: schedtest.NewClock(seedEpoch), queries: map[string]int{}}
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Now: r.clk.Now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), OBVCapacity: units, OBVRate: units / per.Seconds(), Window: per})
	if err != nil {
		t.Fatal(err)
	}
	r.sim = sim
	h := sim.Handler()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/obv/api/search" {
			r.mu.Lock()
			r.queries[req.URL.Query().Get("query")]++
			r.mu.Unlock()
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close)
	r.cfgPath = writeConfig(t, fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[status]
enabled = false
[mcp_rate_limit]
enabled = false
[server]
stream_poll_after = "0s"
[watch]
%s
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 2
[connectors.obv.limits.api]
units = %g
per = %q
`, proofCompileDir(t), filepath.Join(t.TempDir(), "cache"), watchCfg, wasmbuild.Path(t, "./plugins/obv/cmd"),
		platformsim.BaseURLs(up.URL)["obv"], units, per.String()))
	r.start()
	return r
}

// start starts a host on the rig's config and clock.
func (r *watchRig) start() {
	r.t.Helper()
	c, err := host.LoadConfig(r.cfgPath, []string{})
	if err != nil {
		r.t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "watch", Clock: r.clk,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		r.t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	r.t.Cleanup(func() {
		srv.Close()
		h.Close(context.Background())
	})
	r.h, r.base = h, srv.URL
	r.idle()
}

// restart closes the host (which saves the watches) and starts another on
// the same config.
func (r *watchRig) restart() {
	r.t.Helper()
	if err := r.h.Close(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.start()
}

// idle waits, without moving the clock, until no poll runs.
func (r *watchRig) idle() {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !host.WatchesIdle(r.h) {
		if time.Now().After(deadline) {
			r.t.Fatalf("a watch poll still runs after a minute of real time (%d polls so far)", host.WatchPolls(r.h))
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// advance moves the clock in steps, letting each step's polls run.
func (r *watchRig) advance(total, step time.Duration) {
	r.t.Helper()
	for d := time.Duration(0); d < total; d += step {
		r.clk.Advance(step)
		r.idle()
	}
}

func (r *watchRig) seen() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.queries {
		out[k] = v
	}
	return out
}

// watchClient is one MCP session, told of updated resources.
type watchClient struct {
	t       *testing.T
	cs      *mcp.ClientSession
	updated chan string
}

func (r *watchRig) client(name string) *watchClient {
	r.t.Helper()
	c := &watchClient{t: r.t, updated: make(chan string, 64)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { c.updated <- req.Params.URI },
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: r.base + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c
}

// call calls besluitbron_watch; a tool error comes back as err.
func (c *watchClient) call(args map[string]any) (map[string]any, error) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_watch", Arguments: args})
	if err != nil {
		c.t.Fatal(err)
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return nil, fmt.Errorf("%s", text.String())
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text.String()), &out); err != nil {
		c.t.Fatalf("besluitbron_watch answered no JSON: %v: %s", err, text.String())
	}
	return out, nil
}

func (c *watchClient) create(query string) (uri, feed, secret string) {
	c.t.Helper()
	out, err := c.call(map[string]any{"action": "create", "query": query, "platforms": []string{"obv"}})
	if err != nil {
		c.t.Fatal(err)
	}
	return out["uri"].(string), out["feed"].(string), out["secret"].(string)
}

func (c *watchClient) read(uri string) (string, error) {
	res, err := c.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	return res.Contents[0].Text, nil
}

// atomFeed and atomEntry are Atom 1.0 (RFC 4287) as a feed reader parses
// it, written here apart from the host's own types.
type atomFeed struct {
	XMLName  xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID       string   `xml:"http://www.w3.org/2005/Atom id"`
	Title    string   `xml:"http://www.w3.org/2005/Atom title"`
	Subtitle string   `xml:"http://www.w3.org/2005/Atom subtitle"`
	Updated  string   `xml:"http://www.w3.org/2005/Atom updated"`
	Author   []struct {
		Name string `xml:"http://www.w3.org/2005/Atom name"`
	} `xml:"http://www.w3.org/2005/Atom author"`
	Links   []atomLink  `xml:"http://www.w3.org/2005/Atom link"`
	Entries []atomEntry `xml:"http://www.w3.org/2005/Atom entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	ID      string     `xml:"http://www.w3.org/2005/Atom id"`
	Title   string     `xml:"http://www.w3.org/2005/Atom title"`
	Updated string     `xml:"http://www.w3.org/2005/Atom updated"`
	Links   []atomLink `xml:"http://www.w3.org/2005/Atom link"`
}

// fetchFeed GETs a feed and checks what RFC 4287 requires of it: the
// feed's id, title, updated and author, a self link, and every entry's
// id, title, updated and link.
func (r *watchRig) fetchFeed(feed string) atomFeed {
	r.t.Helper()
	resp, err := http.Get(r.base + feed)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml") {
		b, _ := io.ReadAll(resp.Body)
		r.t.Fatalf("GET %s: %d %s: %.300s", feed, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var f atomFeed
	if err := xml.NewDecoder(resp.Body).Decode(&f); err != nil {
		r.t.Fatalf("the feed is not XML Atom: %v", err)
	}
	if f.ID == "" || f.Title == "" || len(f.Author) == 0 || f.Author[0].Name == "" {
		r.t.Fatalf("feed lacks id, title or author: %+v", f)
	}
	if _, err := time.Parse(time.RFC3339, f.Updated); err != nil {
		r.t.Fatalf("feed updated %q is not an RFC 3339 date: %v", f.Updated, err)
	}
	self := false
	for _, l := range f.Links {
		self = self || l.Rel == "self" && strings.HasSuffix(l.Href, feed)
	}
	if !self {
		r.t.Fatalf("feed has no self link to %s: %+v", feed, f.Links)
	}
	for _, e := range f.Entries {
		if e.ID == "" || e.Title == "" || len(e.Links) == 0 || e.Links[0].Href == "" {
			r.t.Fatalf("entry lacks id, title or link: %+v", e)
		}
		if _, err := time.Parse(time.RFC3339, e.Updated); err != nil {
			r.t.Fatalf("entry updated %q: %v", e.Updated, err)
		}
	}
	return f
}

// TestWatchNewDocumentNotifiesAndFeeds: a watch created through MCP on a
// query nothing matches yet; a matching document added to the simulator;
// within one poll interval of virtual time the subscriber is told
// (notifications/resources/updated), reading the resource gives the
// document, and the Atom feed (parsed as Atom) lists it and says how
// fresh it is. It fails if a poll does not come within the interval, if
// the subscriber is not told, or if the feed is not valid Atom.
func TestWatchNewDocumentNotifiesAndFeeds(t *testing.T) {
	r := startWatchRig(t, 60, time.Minute, "min_interval = \"15m\"\nquota_share = 0.1")
	c := r.client("journalist")
	uri, feed, _ := c.create("kwelwaterzorgen")
	if err := c.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	r.idle()
	if host.WatchPolls(r.h) != 1 || r.seen()["kwelwaterzorgen"] != 1 {
		t.Fatalf("after create: %d polls, the simulator saw %v; want the baseline poll", host.WatchPolls(r.h), r.seen())
	}
	doc := `{"entityId":"document:notubiz:gemeente:soest:99001","entityType":"Document","entityTypeLabel":"Document",
	 "title":"Raadsinformatiebrief kwelwaterzorgen Soesterberg","organization":"Soest","date":"1 maart 2025",
	 "sortDate":"2025-03-01 00:00:00","markdownText":"# Raadsinformatiebrief\n\nDe kwelwaterzorgen in Soesterberg nemen toe.",
	 "downloadUrl":"https://soest.raadsinformatie.nl/document/99001/1/kwelwater"}`
	if err := r.sim.AddOBVEntity(json.RawMessage(doc)); err != nil {
		t.Fatal(err)
	}
	start := r.clk.Now()
	var got string
	for got == "" && r.clk.Now().Sub(start) < 15*time.Minute {
		r.advance(time.Minute, time.Minute)
		select {
		case got = <-c.updated:
		case <-time.After(50 * time.Millisecond):
		}
	}
	if got == "" {
		select {
		case got = <-c.updated:
		case <-time.After(5 * time.Second):
			t.Fatalf("no notifications/resources/updated within one interval (15 min virtual; %d polls)", host.WatchPolls(r.h))
		}
	}
	if got != uri {
		t.Fatalf("updated %s; want %s", got, uri)
	}
	t.Logf("told after %v of virtual time (interval 15m), %d polls", r.clk.Now().Sub(start), host.WatchPolls(r.h))
	text, err := c.read(uri)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		NewCount int `json:"new_count"`
		Results  []struct {
			ID, Title, Platform string
		} `json:"results"`
		Freshness struct {
			Note string `json:"note"`
		} `json:"freshness"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	if v.NewCount != 1 || len(v.Results) != 1 || v.Results[0].ID != "document:notubiz:gemeente:soest:99001" || !strings.Contains(v.Freshness.Note, "Last checked") {
		t.Fatalf("read %s: %.600s", uri, text)
	}
	f := r.fetchFeed(feed)
	if len(f.Entries) != 1 || !strings.Contains(f.Entries[0].Title, "kwelwaterzorgen") {
		t.Fatalf("feed entries %+v", f.Entries)
	}
	if !strings.Contains(f.Subtitle, "Laatst gecontroleerd") || !strings.Contains(f.Subtitle, "Last checked") {
		t.Fatalf("the feed does not say how fresh it is: %q", f.Subtitle)
	}
}

// TestWatchThousandWatchesOverFiftyQueries: 1,000 watches from 20
// sessions over 50 distinct queries, on an OpenBesluitvorming whose own
// bucket holds 20 units a minute, with watch.quota_share 0.1 (2 units a
// minute for all watches) and a minimum interval of 1 minute the share
// cannot keep. The simulator sees only the 50 queries, never more than 2
// units in any minute of its own window and no 429; each query is polled
// in every round; every feed says how fresh it is, and besluitbron_status
// reports the share. It fails if identical watches poll apart, if the
// share or the limit is exceeded, or if a query starves.
func TestWatchThousandWatchesOverFiftyQueries(t *testing.T) {
	r := startWatchRig(t, 20, time.Minute, "min_interval = \"1m\"\nquota_share = 0.1\nmax_per_owner = 50\nmax_total = 1000")
	var feeds []string
	for s := range 20 {
		c := r.client(fmt.Sprintf("reader-%d", s))
		for i := range 50 {
			_, feed, _ := c.create(fmt.Sprintf("onderwerpzoek%d", (s*50+i)%50))
			feeds = append(feeds, feed)
		}
		if s == 0 {
			if _, err := c.call(map[string]any{"action": "create", "query": "eentje te veel"}); err == nil || !strings.Contains(err.Error(), "max_per_owner") {
				t.Fatalf("a 51st watch of one session: %v", err)
			}
		}
	}
	r.idle()
	r.advance(60*time.Minute, 10*time.Second)
	seen := r.seen()
	st := r.sim.Stats().Platforms["obv"]
	lo, hi := 1<<30, 0
	for q, n := range seen {
		if !strings.HasPrefix(q, "onderwerpzoek") {
			t.Fatalf("the simulator saw query %q", q)
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	if len(seen) != 50 {
		t.Fatalf("the simulator saw %d distinct queries; want the 50 (one poll per query, not per watch)", len(seen))
	}
	if st.TooMany != 0 {
		t.Fatalf("%d answers over the platform's limit (429)", st.TooMany)
	}
	if st.MaxWindowUnits > 2+1e-9 {
		t.Fatalf("%g units within one minute: over the share (0.1 of 20)", st.MaxWindowUnits)
	}
	// 60 minutes at 2 units a minute: a round of 50 takes 25 minutes.
	if lo < 2 {
		t.Fatalf("a query was polled %d times in 60 minutes; a round takes 25", lo)
	}
	c := r.client("status")
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_status", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Summary []string `json:"summary"`
		Watches struct {
			Watches, Searches int
			Platforms         []struct {
				Platform     string  `json:"platform"`
				Budget       float64 `json:"budget_units"`
				UsedInWindow float64 `json:"used_in_window"`
			} `json:"platforms"`
		} `json:"watches"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &status); err != nil {
		t.Fatal(err)
	}
	if status.Watches.Watches != 1000 || status.Watches.Searches != 50 || len(status.Watches.Platforms) != 1 || status.Watches.Platforms[0].Budget != 2 {
		t.Fatalf("besluitbron_status watches: %+v", status.Watches)
	}
	said := false
	for _, l := range status.Summary {
		said = said || strings.HasPrefix(l, "Watches: 1000 over 50 distinct searches")
	}
	if !said {
		t.Fatalf("besluitbron_status does not say the watches' share: %v", status.Summary)
	}
	resp, err := http.Get(r.base + "/status")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "1000 gevolgde zoekopdrachten over 50 verschillende zoekvragen") || !strings.Contains(string(page), "obv: ") {
		t.Fatalf("the Laadstatus page does not show the watches' share: %d bytes", len(page))
	}
	for _, feed := range feeds {
		f := r.fetchFeed(feed)
		if !strings.Contains(f.Subtitle, "Laatst gecontroleerd") || !strings.Contains(f.Subtitle, "slower than") {
			t.Fatalf("feed %s does not say how fresh it is, or that it is behind: %q", feed, f.Subtitle)
		}
	}
	t.Logf("1000 watches, 50 queries, 60 virtual minutes: the platform saw %d searches (%d to %d per query), %g units at most in a minute (share 0.1 of 20 = 2), %d answers 429; %d feeds say how fresh they are",
		int(st.Requests), lo, hi, st.MaxWindowUnits, st.TooMany, len(feeds))
}

// TestWatchSurvivesRestartOwnerOnly: watches are kept across a restart;
// another client can neither list, read, subscribe to nor delete them,
// before or after; the feed's secret opens one to whoever has it.
func TestWatchSurvivesRestartOwnerOnly(t *testing.T) {
	r := startWatchRig(t, 60, time.Minute, "min_interval = \"15m\"")
	a := r.client("owner")
	uri, feed, secret := a.create("woningbouw")
	r.idle()
	b := r.client("stranger")
	if _, err := b.read(uri); err == nil || !strings.Contains(err.Error(), "no such watch of yours") {
		t.Fatalf("another client read it: %v", err)
	}
	if err := b.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err == nil {
		t.Fatal("another client subscribed to it")
	}
	id := strings.TrimPrefix(uri, "besluitbron://watch/")
	if _, err := b.call(map[string]any{"action": "delete", "id": id}); err == nil {
		t.Fatal("another client deleted it")
	}
	if out, err := b.call(map[string]any{"action": "list"}); err != nil || len(out["watches"].([]any)) != 0 {
		t.Fatalf("another client lists %v %v", out, err)
	}
	if out, err := a.call(map[string]any{"action": "list"}); err != nil || len(out["watches"].([]any)) != 1 {
		t.Fatalf("the owner lists %v %v", out, err)
	}

	r.restart()
	c := r.client("owner-after-restart")
	if out, err := c.call(map[string]any{"action": "list"}); err != nil || len(out["watches"].([]any)) != 0 {
		t.Fatalf("a new session lists someone's watch: %v %v", out, err)
	}
	if _, err := c.read(uri); err == nil {
		t.Fatal("a new session read it without the secret")
	}
	out, err := c.call(map[string]any{"action": "list", "secret": secret})
	if err != nil || len(out["watches"].([]any)) != 1 {
		t.Fatalf("after the restart the watch is gone: %v %v", out, err)
	}
	if _, err := c.read(uri + "?secret=" + secret); err != nil {
		t.Fatalf("the secret does not open it after the restart: %v", err)
	}
	r.fetchFeed(feed)
	if _, err := c.call(map[string]any{"action": "delete", "secret": secret}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(r.base + feed)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a deleted watch's feed answers %d", resp.StatusCode)
	}
}

// TestWatchFollowFromSearchPage: the search page offers "Volg deze
// zoekopdracht" (in English "Follow this search") for a query; posting it
// answers an absolute feed address that a feed reader takes as is, and
// that address is an Atom feed of the search. It fails if the page lacks
// the offer, if the address is relative or not the feed, or if a page
// without a query offers it.
func TestWatchFollowFromSearchPage(t *testing.T) {
	r := startWatchRig(t, 60, time.Minute, "min_interval = \"15m\"")
	get := func(path string, header ...string) string {
		req, _ := http.NewRequest("GET", r.base+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if page := get("/?q=woningbouw"); !strings.Contains(page, "Volg deze zoekopdracht") || !strings.Contains(page, `action="/volg"`) {
		t.Fatalf("the search page does not offer to follow the search: %.400s", page)
	}
	if page := get("/?q=woningbouw", "Cookie", "lang=en"); !strings.Contains(page, "Follow this search") {
		t.Fatal("the English search page does not offer \"Follow this search\"")
	}
	if page := get("/"); strings.Contains(page, "Volg deze zoekopdracht") {
		t.Fatal("the page without a query offers to follow one")
	}
	resp, err := http.PostForm(r.base+"/volg", map[string][]string{"q": {"woningbouw"}, "p": {"obv"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /volg: %d %.400s", resp.StatusCode, b)
	}
	i := strings.Index(string(b), r.base+"/watch/")
	if i < 0 {
		t.Fatalf("no absolute feed address on the follow page: %.600s", b)
	}
	addr := string(b[i:])
	addr = addr[:strings.Index(addr, ".atom")+len(".atom")]
	r.idle()
	f := r.fetchFeed(strings.TrimPrefix(addr, r.base))
	if !strings.Contains(f.Title, "woningbouw") || len(f.Entries) == 0 {
		t.Fatalf("feed %s: title %q, %d entries; want the search's results", addr, f.Title, len(f.Entries))
	}
	resp, err = http.PostForm(r.base+"/volg", map[string][]string{"q": {""}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("following an empty search: %d", resp.StatusCode)
	}
}
