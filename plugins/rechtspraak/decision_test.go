package rechtspraak_test

import (
	"context"
	"fmt"
	"math/rand"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// fakeIndex is an ECLI index that follows the documented filters (date
// once or twice, max, from, sort by modification): an oracle written from
// upstreams.md §6, not from the connector.
type fakeIndex struct {
	mu       sync.Mutex
	decided  map[string]string // ECLI → decision date
	modified map[string]string // ECLI → modification
	requests []string
}

func newFakeIndex(n int, seed int64) *fakeIndex { return newFakeIndexLag(n, seed, 0) }

// newFakeIndexLag is newFakeIndex whose records are all modified up to
// lag days after their decision, past the newest decision.
func newFakeIndexLag(n int, seed int64, lag int) *fakeIndex {
	r := rand.New(rand.NewSource(seed))
	f := &fakeIndex{decided: map[string]string{}, modified: map[string]string{}}
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		d := start.AddDate(0, 0, r.Intn(3650))
		ecli := fmt.Sprintf("ECLI:NL:HR:%d:%d", d.Year(), i+1)
		f.decided[ecli] = d.Format("2006-01-02")
		// Published days to weeks later, in no order of decision; one
		// in ten modified again up to two years later.
		m := d.AddDate(0, 0, r.Intn(60))
		if r.Intn(10) == 0 {
			m = m.AddDate(0, 0, r.Intn(730))
		}
		if today := start.AddDate(10, 0, 0); m.After(today) {
			m = today
		}
		if lag > 0 {
			m = d.AddDate(0, 0, r.Intn(lag))
		}
		f.modified[ecli] = m.Format("2006-01-02") + "T10:00:00"
	}
	return f
}

func (f *fakeIndex) Fetch(_ context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req.URL)
	u, err := url.Parse(req.URL)
	if err != nil || u.Path != "/uitspraken/zoeken" {
		return connector.FetchResponse{Status: 404}, nil
	}
	q := u.Query()
	var hits []string
	for e, d := range f.decided {
		switch dates := q["date"]; len(dates) {
		case 1:
			if d != dates[0] {
				continue
			}
		case 2:
			if d < dates[0] || d > dates[1] {
				continue
			}
		}
		hits = append(hits, e)
	}
	sort.Slice(hits, func(i, j int) bool {
		if f.modified[hits[i]] != f.modified[hits[j]] {
			return f.modified[hits[i]] > f.modified[hits[j]]
		}
		return hits[i] > hits[j]
	})
	maxN := 1000
	fmt.Sscan(q.Get("max"), &maxN)
	var b strings.Builder
	fmt.Fprintf(&b, "<feed xmlns=\"http://www.w3.org/2005/Atom\"><subtitle>Aantal gevonden ECLI's: %d</subtitle>", len(hits))
	for i, e := range hits {
		if i == maxN {
			break
		}
		d, _ := time.Parse("2006-01-02", f.decided[e])
		fmt.Fprintf(&b, "<entry><id>%s</id><title>%s, Hoge Raad, %s, 1</title><summary>-</summary><updated>%sZ</updated></entry>", e, e, d.Format("02-01-2006"), f.modified[e])
	}
	b.WriteString("</feed>")
	return connector.FetchResponse{Status: 200, Body: []byte(b.String())}, nil
}

func (f *fakeIndex) Log(context.Context, int, string) {}

// newest is the oracle's answer: the n newest decisions by date (ties by
// ECLI, descending), and the date of the last.
func (f *fakeIndex) newest(n int) []string {
	var all []string
	for e := range f.decided {
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool {
		if f.decided[all[i]] != f.decided[all[j]] {
			return f.decided[all[i]] > f.decided[all[j]]
		}
		return all[i] > all[j]
	})
	return all[:n]
}

func TestSearchByDecisionDateMatchesOracle(t *testing.T) {
	for _, c := range []struct {
		n     int
		limit int
	}{{40, 20}, {3000, 20}, {20000, 50}, {200, 100}} {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			idx := newFakeIndex(c.n, int64(c.n))
			var sr sdk.SearchResult
			sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), idx, "search", fmt.Sprintf(`{"sort":"decision_desc","limit":%d}`, c.limit)), &sr)
			want := idx.newest(min(c.limit, c.n))
			var got []string
			for _, it := range sr.Results {
				got = append(got, it.ID)
				if it.Date != idx.decided[it.ID] {
					t.Errorf("%s dated %s, decided %s", it.ID, it.Date, idx.decided[it.ID])
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("got  %v\nwant %v", got, want)
			}
			if len(idx.requests) > 8 {
				t.Errorf("%d index requests, want at most 8", len(idx.requests))
			}
			if len(sr.Notes) == 0 || !strings.Contains(sr.Notes[0], "Ordered by decision date") || !strings.Contains(sr.Notes[0], "index requests") {
				t.Errorf("notes = %q", sr.Notes)
			}
		})
	}
}

// TestSearchByDecisionDateBounded: when records were modified long after
// the newest decision, the walk may not reach the decisions within its
// requests; what it returns is still the newest of what it read in full,
// and it says how far back it looked.
func TestSearchByDecisionDateBounded(t *testing.T) {
	idx := newFakeIndexLag(3000, 3, 2000)
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), idx, "search", `{"sort":"decision_desc","limit":20}`), &sr)
	want := idx.newest(20)
	for i, it := range sr.Results {
		if it.ID != want[i] {
			t.Fatalf("result %d is %s, want %s", i, it.ID, want[i])
		}
	}
	if len(idx.requests) > 8 || !sr.HasMore {
		t.Errorf("%d requests, has_more %v", len(idx.requests), sr.HasMore)
	}
	if len(sr.Results) < 20 && (len(sr.Notes) == 0 || !strings.Contains(sr.Notes[0], "older decisions are not included")) {
		t.Errorf("%d results, notes %q", len(sr.Results), sr.Notes)
	}
	t.Logf("%d of 20 within %d requests: %s", len(sr.Results), len(idx.requests), sr.Notes[0])
}

func TestSearchByDecisionDateWithinDates(t *testing.T) {
	idx := newFakeIndex(500, 7)
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), idx, "search", `{"sort":"decision_desc","date_from":"2016-01-01","date_to":"2016-12-31","limit":5}`), &sr)
	if len(sr.Results) != 5 {
		t.Fatalf("results = %+v", sr)
	}
	for i, it := range sr.Results {
		if it.Date < "2016-01-01" || it.Date > "2016-12-31" || i > 0 && it.Date > sr.Results[i-1].Date {
			t.Errorf("result %d dated %s", i, it.Date)
		}
	}
	// date_to given: no probe; the first window ends there.
	if first := idx.requests[0]; !strings.Contains(first, "date=2016-12-31") {
		t.Errorf("first request %s", first)
	}
}

func TestSearchSubjectLabels(t *testing.T) {
	list := td + "rechtspraak-waardelijst-rechtsgebieden-full.xml"
	for _, c := range []struct{ subject, want string }{
		{"Civiel recht", "civielRecht"},
		{"civiel recht", "civielRecht"},
		{"Strafrecht", "strafrecht"},
		{"Civiel recht; Arbeidsrecht", "civielRecht_arbeidsrecht"},
		{"Arbeidsrecht", "civielRecht_arbeidsrecht"},
		{"Bestuursrecht; Mededingingsrecht", "bestuursrecht_mededingingsrecht"},
		{"Civiel recht - Personen- en familierecht", "civielRecht_personenEnFamilierecht"},
	} {
		h := sdktest.NewHost(t).
			Handle(base+"/Waardelijst/Rechtsgebieden", 200, list).
			Handle(zoeken+"*", 200, td+"rechtspraak-zoeken-empty.xml")
		res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", fmt.Sprintf(`{"subject":%q}`, c.subject))
		if res.IsError {
			t.Errorf("%q: %s", c.subject, res.Text)
			continue
		}
		urls := h.URLs()
		if want := "subject=http%3A%2F%2Fpsi.rechtspraak.nl%2Frechtsgebied%23" + c.want; !strings.Contains(urls[len(urls)-1], want) {
			t.Errorf("%q: %s, want %s", c.subject, urls[len(urls)-1], want)
		}
	}
	h := sdktest.NewHost(t).Handle(base+"/Waardelijst/Rechtsgebieden", 200, list)
	res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"subject":"Mededingingsrecht"}`)
	if !res.IsError || !strings.Contains(res.Text, `"Bestuursrecht; Mededingingsrecht"`) || !strings.Contains(res.Text, `"Civiel recht; Mededingingsrecht"`) {
		t.Errorf("ambiguous: %s", res.Text)
	}
	res = sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"subject":"Civil law"}`)
	if want := `argument "subject": "Civil law" is not a value it accepts; closest accepted: "Civiel recht"`; !res.IsError || !strings.HasPrefix(res.Text, want) || !strings.Contains(res.Text, "rechtspraak_list_subjects") {
		t.Errorf("unknown: %s\nwant it to start %s", res.Text, want)
	}
}

// TestSearchByDecisionDateStopsAtTheEarliest: when few decisions match,
// the empty windows grow eightfold each time; the walk stops at 1900,
// where the open data begins, instead of asking the index for dates
// before it (the simulator was asked for "-0508-07-01" and refused it),
// and says it read every matching decision.
func TestSearchByDecisionDateStopsAtTheEarliest(t *testing.T) {
	idx := newFakeIndex(3, 11)
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), idx, "search", `{"sort":"decision_desc","limit":20}`), &sr)
	iso := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for _, r := range idx.requests {
		u, _ := url.Parse(r)
		for _, d := range u.Query()["date"] {
			if !iso.MatchString(d) || d < "1900-01-01" {
				t.Errorf("request %s asks for date %q", r, d)
			}
		}
	}
	if len(sr.Results) != 3 || sr.HasMore {
		t.Errorf("%d results, has_more %v; want the 3 decisions and no more", len(sr.Results), sr.HasMore)
	}
	if len(sr.Notes) == 0 || !strings.Contains(sr.Notes[0], "all matching decisions of 1900-01-01") {
		t.Errorf("notes %q", sr.Notes)
	}
}
