package quota

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

const zoek = "zoek.officielebekendmakingen.nl"

// The services of the tk and obk manifests as they declare them: both
// reach zoek.officielebekendmakingen.nl at 10 per 30 s.
func tkManifest() connector.Manifest {
	return connector.Manifest{ID: "tk", Title: "Tweede Kamer", Services: []connector.Service{
		{Name: "odata", Host: "gegevensmagazijn.tweedekamer.nl"},
		{Name: "obk", Units: 10, Per: connector.Duration(30 * time.Second), Host: zoek},
	}}
}

func obkManifest() connector.Manifest {
	return connector.Manifest{ID: "obk", Title: "Officiële Bekendmakingen", Services: []connector.Service{
		{Name: "sru", Units: 3, Per: connector.Duration(time.Second), Host: "repository.overheid.nl"},
		{Name: "zoek", Units: 10, Per: connector.Duration(30 * time.Second), Host: zoek},
	}}
}

// declared is the manifest's limit, or the override for the service when
// overrides has one.
func declared(overrides map[string]sched.Limit) func(connector.Service) (sched.Limit, bool) {
	return func(s connector.Service) (sched.Limit, bool) {
		if l, ok := overrides[s.Name]; ok {
			return l, true
		}
		return sched.Limit{Units: s.Units, Per: time.Duration(s.Per)}, false
	}
}

// build builds the quotas of manifests (id = manifest id) with per-
// connector overrides, and returns them with the log's lines.
func build(t *testing.T, overrides map[string]map[string]sched.Limit, ms ...connector.Manifest) ([]*Limiter, []string) {
	t.Helper()
	var claims []Claim
	for _, m := range ms {
		claims = append(claims, Claims(m.ID, m, declared(overrides[m.ID]))...)
	}
	var log bytes.Buffer
	ls, err := Build(claims, nil, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return ls, lines
}

func find(ls []*Limiter, name string) *Limiter {
	for _, l := range ls {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// TestSameHostOneLimiter: tk's obk service and obk's zoek service name one
// host and get one limiter, which both services' uses reach; obk's SRU
// host keeps its own; tk's OData, without a limit, gets none. Equal limits
// log nothing.
func TestSameHostOneLimiter(t *testing.T) {
	ls, lines := build(t, nil, tkManifest(), obkManifest())
	if len(ls) != 2 {
		t.Fatalf("%d limiters (%v); want 2: %s and repository.overheid.nl", len(ls), names(ls), zoek)
	}
	z := find(ls, zoek)
	if z == nil {
		t.Fatalf("no limiter for %s: %v", zoek, names(ls))
	}
	if got := z.Users; len(got) != 2 || got[0] != (User{"obk", "Officiële Bekendmakingen", "zoek"}) || got[1] != (User{"tk", "Tweede Kamer", "obk"}) {
		t.Errorf("users %+v; want obk/zoek and tk/obk", got)
	}
	if z.Use("tk", "obk").Quota() != z.Use("obk", "zoek").Quota() {
		t.Error("tk's and obk's uses reach different limiters")
	}
	if z.Limit != (sched.Limit{Units: 10, Per: 30 * time.Second}) || z.Source != "the manifest of obk (service zoek)" {
		t.Errorf("limit %v from %q", z.Limit, z.Source)
	}
	if r := find(ls, "repository.overheid.nl"); r == nil || len(r.Users) != 1 || r.Limit.Units != 3 {
		t.Errorf("repository.overheid.nl: %+v", r)
	}
	if len(lines) != 0 {
		t.Errorf("equal limits logged %q", lines)
	}
	if !z.Shared() || z.Owner() != zoek {
		t.Errorf("shared %v, owner %q", z.Shared(), z.Owner())
	}
	want := zoek + "'s limit (10 units per 30s; shared by Officiële Bekendmakingen and Tweede Kamer)"
	if got := z.Phrase(true); got != want {
		t.Errorf("phrase %q\nwant   %q", got, want)
	}
}

func names(ls []*Limiter) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// TestStrictestWins: when the services of one quota declare different
// limits, the lowest rate applies, then the lowest capacity, wherever it
// comes from; one log line says so and names every source.
func TestStrictestWins(t *testing.T) {
	for _, c := range []struct {
		name      string
		overrides map[string]map[string]sched.Limit
		want      sched.Limit
		from      string
		over      []string
	}{
		{
			name:      "an admin's raise on one connector is outvoted by the other's manifest",
			overrides: map[string]map[string]sched.Limit{"tk": {"obk": {Units: 4, Per: 2 * time.Second}}},
			want:      sched.Limit{Units: 10, Per: 30 * time.Second}, from: "the manifest of obk (service zoek)",
			over: []string{"4 per 2s (connectors.tk.limits.obk)"},
		},
		{
			name:      "an admin's lower limit on one connector applies to both",
			overrides: map[string]map[string]sched.Limit{"obk": {"zoek": {Units: 5, Per: 30 * time.Second}}},
			want:      sched.Limit{Units: 5, Per: 30 * time.Second}, from: "connectors.obk.limits.zoek",
			over: []string{"10 per 30s (the manifest of tk (service obk))"},
		},
		{
			name: "same rate: the smaller bucket",
			overrides: map[string]map[string]sched.Limit{
				"tk":  {"obk": {Units: 20, Per: time.Minute}},
				"obk": {"zoek": {Units: 4, Per: 12 * time.Second}},
			},
			want: sched.Limit{Units: 4, Per: 12 * time.Second}, from: "connectors.obk.limits.zoek",
			over: []string{"20 per 1m0s (connectors.tk.limits.obk)"},
		},
		{
			name:      "a service without a limit waits at the other's",
			overrides: map[string]map[string]sched.Limit{"tk": {"obk": {Units: 0, Per: 30 * time.Second}}},
			want:      sched.Limit{Units: 10, Per: 30 * time.Second}, from: "the manifest of obk (service zoek)",
			over: []string{"no limit (connectors.tk.limits.obk)"},
		},
		{
			name: "both raised: the admin's stricter one",
			overrides: map[string]map[string]sched.Limit{
				"tk":  {"obk": {Units: 4, Per: 2 * time.Second}},
				"obk": {"zoek": {Units: 6, Per: 2 * time.Second}},
			},
			want: sched.Limit{Units: 4, Per: 2 * time.Second}, from: "connectors.tk.limits.obk",
			over: []string{"6 per 2s (connectors.obk.limits.zoek)"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls, lines := build(t, c.overrides, tkManifest(), obkManifest())
			z := find(ls, zoek)
			if z == nil || len(z.Users) != 2 {
				t.Fatalf("no shared limiter: %v", names(ls))
			}
			if z.Limit != c.want || z.Source != c.from {
				t.Errorf("limit %v from %q; want %v from %q", z.Limit, z.Source, c.want, c.from)
			}
			if z.Scheduler().Stats().PlatformUnits != c.want.Units {
				t.Errorf("scheduler's declared capacity %v; want %v", z.Scheduler().Stats().PlatformUnits, c.want.Units)
			}
			if len(lines) != 1 {
				t.Fatalf("%d log lines; want one:\n%s", len(lines), strings.Join(lines, "\n"))
			}
			for _, w := range append([]string{"quota=" + zoek, FormatLimit(c.want), c.from}, c.over...) {
				if !strings.Contains(lines[0], w) {
					t.Errorf("the log line lacks %q:\n%s", w, lines[0])
				}
			}
		})
	}
}

// TestDistinctHostsStaySeparate: quotas of different hosts share nothing:
// a 429 pauses its own quota, for every connector using it, and no other.
func TestDistinctHostsStaySeparate(t *testing.T) {
	obv := connector.Manifest{ID: "obv", Title: "OpenBesluitvorming", Services: []connector.Service{
		{Name: "api", Units: 60, Per: connector.Duration(time.Minute), Host: "openbesluitvorming.nl"}}}
	ls, _ := build(t, nil, tkManifest(), obkManifest(), obv)
	if got := names(ls); strings.Join(got, " ") != "openbesluitvorming.nl repository.overheid.nl "+zoek {
		t.Fatalf("quotas %v", got)
	}
	z, o, r := find(ls, zoek), find(ls, "openbesluitvorming.nl"), find(ls, "repository.overheid.nl")
	h := http.Header{}
	h.Set("Retry-After", "30")
	z.Use("tk", "obk").Observe(http.StatusTooManyRequests, h, time.Time{}, time.Now())

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	info := &callinfo.Info{Session: "s"}
	// obk's calls to the same host wait for the pause tk's 429 started.
	_, err := z.Use("obk", "zoek").Wait(ctx, info, 1, false)
	var fe *connector.FetchError
	if !errors.As(err, &fe) || fe.Kind != connector.FetchQueueTimeout {
		t.Fatalf("obk after tk's 429: %v; want a queue timeout", err)
	}
	if want := zoek + "'s limit (10 units per 30s; shared by Officiële Bekendmakingen and Tweede Kamer) leaves no room"; !strings.HasPrefix(fe.Message, want) {
		t.Errorf("message %q\nwant it to start %q", fe.Message, want)
	}
	// Other hosts are not paused.
	for _, u := range []*Use{r.Use("obk", "sru"), o.Use("obv", "api")} {
		if q, err := u.Wait(ctx, info, 1, false); err != nil || q != 0 {
			t.Errorf("%s/%s: queued %v, %v; want a grant at once", u.Platform, u.Service, q, err)
		}
	}
	// Each use counts its own calls and 429s.
	if st := z.Use("tk", "obk").Stats(); st.Got429 != 1 || st.Calls != 0 {
		t.Errorf("tk/obk: %+v", st)
	}
	if st := z.Use("obk", "zoek").Stats(); st.Got429 != 0 || st.Rejected != 1 {
		t.Errorf("obk/zoek: %+v", st)
	}
	if st := o.Use("obv", "api").Stats(); st.Calls != 1 || st.Units != 1 {
		t.Errorf("obv/api: %+v", st)
	}
}

// TestUnnamedQuotaIsTheServicesOwn: a service naming no host or quota has
// a quota of its own, "<connector>/<service>", and the messages name the
// platform as before.
func TestUnnamedQuotaIsTheServicesOwn(t *testing.T) {
	m := connector.Manifest{ID: "obv", Title: "OpenBesluitvorming", Services: []connector.Service{
		{Name: "api", Units: 60, Per: connector.Duration(time.Minute)}}}
	other := connector.Manifest{ID: "example", Title: "Example", Services: []connector.Service{
		{Name: "api", Units: 60, Per: connector.Duration(time.Minute)}}}
	ls, _ := build(t, nil, m, other)
	if got := names(ls); len(got) != 2 || got[0] != "example/api" || got[1] != "obv/api" {
		t.Fatalf("quotas %v", got)
	}
	if p := ls[1].Phrase(true); p != "OpenBesluitvorming's limit (60 units per 1m0s)" {
		t.Errorf("phrase %q", p)
	}
}

// TestBuildNamesTheKey: an invalid limit fails the build with the key.
func TestBuildNamesTheKey(t *testing.T) {
	claims := Claims("obk", obkManifest(), declared(map[string]sched.Limit{"zoek": {Units: 5}}))
	_, err := Build(claims, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "connectors.obk.limits.zoek") {
		t.Fatalf("got %v", err)
	}
}
