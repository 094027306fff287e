package watch

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Freshness says how current a watch is: when its search was last
// checked and how often it is checked now.
type Freshness struct {
	// LastChecked is the latest poll's start (absent before the first).
	LastChecked time.Time `json:"last_checked,omitzero"`
	// LastAnswered is the latest poll at which a platform answered.
	LastAnswered time.Time `json:"last_answered,omitzero"`
	// Checks counts the polls of this search.
	Checks int `json:"checks"`
	// EverySeconds is how often it is checked now: the minimum interval,
	// or longer when the watches' share of a platform's limit cannot
	// poll every search that often.
	EverySeconds float64 `json:"every_seconds"`
	// Behind is true when that is slower than the minimum interval.
	Behind bool `json:"behind,omitempty"`
	// LastError is why the latest poll found nothing, if it failed.
	LastError string `json:"last_error,omitempty"`
	// Note says it in a sentence (English); NoteNL in Dutch.
	Note   string `json:"note"`
	NoteNL string `json:"note_nl"`
}

// freshness of g now; m.mu is held.
func (m *Manager) freshness(g *group, now time.Time) Freshness {
	every := m.o.MinInterval
	for _, p := range m.platformsOf(g) {
		every = max(every, m.round(p))
	}
	f := Freshness{LastChecked: g.lastPoll, LastAnswered: g.lastOK, Checks: g.polls, EverySeconds: math.Round(every.Seconds()), LastError: g.lastErr}
	f.Behind = every > m.o.MinInterval
	mins := every.Round(time.Minute)
	if mins == 0 {
		mins = every.Round(time.Second)
	}
	if g.lastPoll.IsZero() {
		f.Note = fmt.Sprintf("Not checked yet; it will be checked about every %s.", mins)
		f.NoteNL = fmt.Sprintf("Nog niet gecontroleerd; wordt ongeveer elke %s gecontroleerd.", mins)
	} else {
		at := g.lastPoll.UTC().Format("2006-01-02 15:04 UTC")
		f.Note = fmt.Sprintf("Last checked %s (%s ago); checked about every %s.", at, ago(now.Sub(g.lastPoll)), mins)
		f.NoteNL = fmt.Sprintf("Laatst gecontroleerd %s (%s geleden); wordt ongeveer elke %s gecontroleerd.", at, ago(now.Sub(g.lastPoll)), mins)
	}
	if f.Behind {
		f.Note += fmt.Sprintf(" That is slower than the %s the server allows, because all watches together may use only %g%% of each platform's limit.", m.o.MinInterval, m.o.Share*100)
		f.NoteNL += fmt.Sprintf(" Dat is minder vaak dan de %s die de server toestaat: alle gevolgde zoekopdrachten samen gebruiken hoogstens %g%% van de limiet van elk platform.", m.o.MinInterval, m.o.Share*100)
	}
	if g.lastErr != "" {
		f.Note += " The last check failed: " + g.lastErr
		f.NoteNL += " De laatste controle mislukte: " + g.lastErr
	}
	return f
}

// round is how long one round of every search reaching platform p takes
// within the share of p's limit (0 when p has no limit kept); m.mu is
// held.
func (m *Manager) round(p string) time.Duration {
	lim := m.o.Limit(p)
	if !lim.Ok || lim.Units <= 0 || lim.Per <= 0 {
		return 0
	}
	units := 0.0
	for _, g := range m.groups {
		if slices.Contains(m.platformsOf(g), p) {
			units += m.estimate(g, p)
		}
	}
	rate := m.o.Share * lim.Units / lim.Per.Seconds()
	return time.Duration(units / rate * float64(time.Second))
}

// View is a watch as its owner reads it: besluitbron://watch/<id> and one
// entry of besluitbron_watch's list.
type View struct {
	ID        string    `json:"id"`
	URI       string    `json:"uri"`
	Feed      string    `json:"feed"`
	Query     Query     `json:"search"`
	Created   time.Time `json:"created"`
	Freshness Freshness `json:"freshness"`
	// Since is the time the results are new after; Results are those
	// first seen after it, newest first, each as the cross-search shows
	// it (its copies elsewhere under also_on).
	Since      time.Time `json:"since,omitzero"`
	NewCount   int       `json:"new_count"`
	Results    []Entry   `json:"results,omitempty"`
	Subscribe  string    `json:"subscribe,omitempty"`
	Restricted string    `json:"who_may_read"`
}

// view builds w's view, with the results first seen after since when
// withResults; m.mu is held.
func (m *Manager) view(w *Watch, since time.Time, withResults bool) View {
	v := View{ID: w.ID, URI: w.URI(), Feed: w.Feed(), Query: w.Query, Created: w.Created,
		Restricted: "only the client that created it, or whoever has its feed address"}
	g := m.groups[w.Query.key()]
	if g == nil {
		g = newGroup(w.Query)
	}
	v.Freshness = m.freshness(g, m.now())
	v.Since = since
	for _, e := range g.entries {
		if e.Baseline || !e.FirstSeen.After(since) {
			continue
		}
		v.NewCount++
		if withResults {
			v.Results = append(v.Results, e)
		}
	}
	if withResults {
		slices.SortStableFunc(v.Results, func(a, b Entry) int { return b.FirstSeen.Compare(a.FirstSeen) })
	}
	return v
}

// Read is the content of a watch's resource URI for caller:
// besluitbron://watch/<id>, optionally with ?since=<RFC 3339 time> (the
// default is the watch's creation) and &secret=<the feed's secret> for a
// caller that is not its creator. Errors name what is wrong.
func (m *Manager) Read(caller, uri string) (string, error) {
	id, params, err := parseURI(uri)
	if err != nil {
		return "", err
	}
	for k := range params {
		if k != "since" && k != "secret" {
			return "", fmt.Errorf("%s: unknown parameter %q (this resource takes since and secret)", clip(uri, 120), clip(k, 40))
		}
	}
	w, err := m.Get(caller, id, params.Get("secret"))
	if err != nil {
		return "", err
	}
	since := w.Created
	if s := params.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "", fmt.Errorf("%s: since %q is not a time written as RFC 3339 (such as 2025-03-01T12:00:00Z)", clip(uri, 120), clip(s, 40))
		}
		since = t
	}
	m.mu.Lock()
	v := m.view(w, since, true)
	m.mu.Unlock()
	v.Subscribe = "resources/subscribe to " + w.URI() + " to be told when new results come."
	b, err := json.Marshal(v)
	return string(b), err
}

// Subscribable says whether caller may subscribe to uri: its own watch's
// URI, without parameters.
func (m *Manager) Subscribable(caller, uri string) error {
	id, params, err := parseURI(uri)
	if err != nil {
		return err
	}
	if len(params) > 0 {
		return fmt.Errorf("subscribe to %s without parameters", URIPrefix+id)
	}
	_, err = m.Get(caller, id, "")
	return err
}

// parseURI splits a watch URI into its id and parameters.
func parseURI(uri string) (string, url.Values, error) {
	rest, ok := strings.CutPrefix(uri, URIPrefix)
	if !ok {
		return "", nil, fmt.Errorf("%q is not a watch's URI (%s<id>)", clip(uri, 120), URIPrefix)
	}
	id, query, _ := strings.Cut(rest, "?")
	if id == "" || len(id) > 64 {
		return "", nil, fmt.Errorf("%q: no watch id after %s", clip(uri, 120), URIPrefix)
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, fmt.Errorf("%q: its parameters are not a query string: %v", clip(uri, 120), err)
	}
	return id, params, nil
}

// ago is a duration as the notes say it.
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

// Share is the watches' part of the platforms' limits, for the
// Laadstatus.
type Share struct {
	// Share is watch.quota_share; MinIntervalSeconds watch.min_interval.
	Share              float64 `json:"share"`
	MinIntervalSeconds float64 `json:"min_interval_seconds"`
	Watches            int     `json:"watches"`
	Searches           int     `json:"searches"`
	// StalestSeconds is how long ago the least recently checked search
	// was checked (0 when none was).
	StalestSeconds float64 `json:"stalest_seconds"`
	// Behind counts the searches checked less often than the interval.
	Behind    int             `json:"behind"`
	Platforms []PlatformShare `json:"platforms"`
}

// PlatformShare is the watches' use of one platform's limit.
type PlatformShare struct {
	Platform string `json:"platform"`
	// Searches reaching it.
	Searches int `json:"searches"`
	// Limited is false where BesluitBron keeps no limit (then Budget and
	// WindowSeconds are 0).
	Limited bool `json:"limited"`
	// Budget is the share of the limit's units per WindowSeconds the
	// polls may use; UsedInWindow what they used in the last window;
	// UsedTotal since the start.
	Budget        float64 `json:"budget_units"`
	WindowSeconds float64 `json:"window_seconds"`
	UsedInWindow  float64 `json:"used_in_window"`
	UsedTotal     float64 `json:"used_total"`
	// RoundSeconds is how long one round of its searches takes within
	// the share.
	RoundSeconds float64 `json:"round_seconds"`
}

// Status is the watches' share of each platform's limit now.
func (m *Manager) Status() Share {
	m.current()
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	s := Share{Share: m.o.Share, MinIntervalSeconds: m.o.MinInterval.Seconds(), Watches: len(m.watches), Searches: len(m.groups), Platforms: []PlatformShare{}}
	reach := map[string]int{}
	for _, g := range m.groups {
		for _, p := range m.platformsOf(g) {
			reach[p]++
		}
		if !g.lastPoll.IsZero() {
			s.StalestSeconds = max(s.StalestSeconds, math.Round(now.Sub(g.lastPoll).Seconds()))
		}
		if m.freshness(g, now).Behind {
			s.Behind++
		}
	}
	for _, p := range m.o.Platforms {
		ps := PlatformShare{Platform: p, Searches: reach[p]}
		if l := m.ledger[p]; l != nil {
			ps.UsedTotal = l.total
		}
		if lim := m.o.Limit(p); lim.Ok && lim.Units > 0 && lim.Per > 0 {
			ps.Limited, ps.Budget, ps.WindowSeconds = true, m.o.Share*lim.Units, lim.Per.Seconds()
			ps.UsedInWindow = m.ledgerOf(p).inWindow(now, lim.Per)
			ps.RoundSeconds = math.Round(m.round(p).Seconds())
		}
		if ps.Searches > 0 || ps.UsedTotal > 0 {
			s.Platforms = append(s.Platforms, ps)
		}
	}
	return s
}
