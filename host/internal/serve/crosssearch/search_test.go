package crosssearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// fakePlatforms stands in for the host: each connector answers its tools
// from a function, and every call is recorded.
type fakePlatforms struct {
	mu    sync.Mutex
	calls []string // "tool args"
	tools map[string]func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer
}

func (f *fakePlatforms) invoke(ctx context.Context, info *callinfo.Info, tool string, raw json.RawMessage) invoke.Answer {
	f.mu.Lock()
	f.calls = append(f.calls, tool+" "+string(raw))
	h := f.tools[tool]
	f.mu.Unlock()
	if h == nil {
		return errResult(fmt.Sprintf("unknown tool %q", tool))
	}
	var args map[string]any
	json.Unmarshal(raw, &args)
	return h(ctx, info, args)
}

func (f *fakePlatforms) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func errResult(msg string) invoke.Answer {
	return invoke.Answer{Err: errors.New(msg)}
}

// resultText is an answer's text as a client reads it: its error's, or
// its result's.
func resultText(r invoke.Answer) string {
	if r.Err != nil {
		return r.Err.Error()
	}
	return r.Result.Text
}

// okResult is a search answer with one item per title.
func okResult(id string, cache string, titles ...string) invoke.Answer {
	sr := sdk.SearchResult{Platform: id, Results: []sdk.Item{}}
	for i, t := range titles {
		sr.Results = append(sr.Results, sdk.Item{ID: fmt.Sprintf("%s-%d", id, i), Title: t, URL: "https://example.org/" + id})
	}
	n := len(titles)
	sr.Total = &n
	b, _ := json.Marshal(sr)
	return invoke.Answer{Platform: id, Result: connector.CallResult{Text: string(b), Structured: b}}
}

// answering makes a search tool that records its fetch in info (as the
// gate does) and answers.
func answering(id, cache string, queued, upstream time.Duration, titles ...string) func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
	return func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
		info.AddFetch(cache, queued, upstream)
		return okResult(id, cache, titles...)
	}
}

// hanging waits until its context ends, like a platform that never
// answers behind a gate that honours cancellation.
func hanging(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
	<-ctx.Done()
	return errResult("the platform is unavailable: " + ctx.Err().Error())
}

func list(items ...sdk.Item) func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
	return func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
		info.AddFetch(callinfo.Hit, 0, 0)
		b, _ := json.Marshal(sdk.ListResult{Items: items, Count: len(items)})
		return invoke.Answer{Result: connector.CallResult{Text: string(b), Structured: b}}
	}
}

// allPlatforms are the seven connectors with the search profiles their
// manifests declare, and one without a profile.
var allPlatforms = []Platform{
	{ID: "obk", Title: "Officiële Bekendmakingen", Tools: []string{"search", "get_document"}, Profile: obk.Plugin().Manifest.SearchProfile},
	{ID: "obv", Title: "OpenBesluitvorming", Tools: []string{"search", "list_sources"}, Profile: obv.Plugin().Manifest.SearchProfile},
	{ID: "openarchivaris", Title: "Open Archivaris", Tools: []string{"search", "list_governments"}, Profile: openarchivaris.Plugin().Manifest.SearchProfile},
	{ID: "opentk", Title: "OpenTK", Tools: []string{"search"}, Profile: opentk.Plugin().Manifest.SearchProfile},
	{ID: "ori", Title: "ORI", Tools: []string{"search", "list_organizations"}, Profile: ori.Plugin().Manifest.SearchProfile},
	{ID: "rechtspraak", Title: "Rechtspraak", Tools: []string{"search", "list_courts"}, Profile: rechtspraak.Plugin().Manifest.SearchProfile},
	{ID: "tk", Title: "Tweede Kamer", Tools: []string{"search"}, Profile: tk.Plugin().Manifest.SearchProfile},
	{ID: "example", Title: "Not searchable", Tools: []string{"search"}},
}

func newFake() *fakePlatforms {
	f := &fakePlatforms{tools: map[string]func(context.Context, *callinfo.Info, map[string]any) invoke.Answer{}}
	for _, p := range allPlatforms {
		f.tools[p.ID+"_search"] = answering(p.ID, callinfo.Miss, 0, 10*time.Millisecond, p.ID+" klimaat")
	}
	return f
}

func decode(t *testing.T, r invoke.Answer) Result {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("tool error: %s", resultText(r))
	}
	var res Result
	if err := json.Unmarshal([]byte(resultText(r)), &res); err != nil {
		t.Fatalf("%v: %s", err, resultText(r))
	}
	return res
}

func statuses(res Result) map[string]string {
	out := map[string]string{}
	for _, s := range res.Sections {
		out[s.Platform] = s.Status
	}
	return out
}

// TestPartialResultsWhileOnePlatformHangs: one platform never answers; the
// others' results come back at its deadline, and it is named as timed
// out. Virtual time makes the deadline exact.
func TestPartialResultsWhileOnePlatformHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.tools["ori_search"] = hanging
		s := New(Options{Platforms: allPlatforms, Invoke: f.invoke, PlatformTimeout: 3 * time.Second})
		start := time.Now()
		res := decode(t, s.Handle(context.Background(), &callinfo.Info{Session: "s1"}, json.RawMessage(`{"query":"klimaat"}`)))
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("answered after %v of virtual time, want the 3s per-platform deadline", took)
		}
		want := map[string]string{"obk": "ok", "obv": "ok", "openarchivaris": "ok", "opentk": "ok", "ori": "timeout", "tk": "ok"}
		if diff := cmp.Diff(want, statuses(res)); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
		if !cmp.Equal(res.Failed, []string{"ori"}) || len(res.Answered) != 5 {
			t.Errorf("answered %v failed %v", res.Answered, res.Failed)
		}
		for _, sec := range res.Sections {
			if sec.Platform == "ori" && !strings.Contains(sec.Error, "no answer within 3s") {
				t.Errorf("ori: %q", sec.Error)
			}
			if sec.Status == "ok" && (len(sec.Results) != 1 || sec.Results[0].Title != sec.Platform+" klimaat") {
				t.Errorf("%s: results %+v", sec.Platform, sec.Results)
			}
		}
	})
}

// TestOverallDeadline: a platform that ignores its own deadline (a
// connector stuck past cancellation) is cut off at the overall deadline
// plus the grace, not waited for.
func TestOverallDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		release := make(chan struct{})
		f.tools["tk_search"] = func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
			<-release // ignores ctx
			return errResult("late")
		}
		s := New(Options{Platforms: allPlatforms, Invoke: f.invoke, PlatformTimeout: 2 * time.Second, Timeout: 5 * time.Second, Grace: time.Second})
		start := time.Now()
		res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"klimaat","platforms":["tk","obv"]}`)))
		if took := time.Since(start); took != 6*time.Second {
			t.Errorf("answered after %v, want overall 5s + grace 1s", took)
		}
		if st := statuses(res); st["tk"] != "timeout" || st["obv"] != "ok" || len(st) != 2 {
			t.Errorf("statuses %v", st)
		}
		close(release)
	})
}

func TestDefaultsSkipsAndTranslation(t *testing.T) {
	f := newFake()
	f.tools["obv_list_sources"] = list(sdk.Item{ID: "den-helder", Title: "Den Helder"}, sdk.Item{ID: "soest", Title: "Soest"})
	f.tools["ori_list_organizations"] = list(sdk.Item{ID: "den_helder", Title: "Den Helder"})
	f.tools["openarchivaris_list_governments"] = list(sdk.Item{ID: "dh", Title: "Gemeente Den Helder"})
	f.tools["rechtspraak_list_courts"] = list(sdk.Item{ID: "http://standaarden.overheid.nl/owms/terms/Hoge_Raad_der_Nederlanden", Title: "Hoge Raad",
		Extra: map[string]map[string]any{"rechtspraak": {"abbreviation": "HR"}}})
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke, Now: func() time.Time { return time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC) }})

	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"jeugdzorg","organization":"Gemeente Den Helder","date_from":"2025-01-01","limit":50}`)))
	want := map[string]string{"obk": "ok", "obv": "ok", "openarchivaris": "ok", "opentk": "skipped", "ori": "ok", "tk": "skipped"}
	if diff := cmp.Diff(want, statuses(res)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	args := map[string]map[string]any{}
	for _, sec := range res.Sections {
		args[sec.Platform] = sec.Arguments
	}
	wantArgs := map[string]map[string]any{
		"obk":            {"query": "jeugdzorg", "organization": "Den Helder", "date_from": "2025-01-01", "limit": 50.0},
		"obv":            {"query": "jeugdzorg", "organization": "den-helder", "date_from": "2025-01-01", "limit": 50.0},
		"openarchivaris": {"query": "jeugdzorg", "government": "Gemeente Den Helder", "date_from": "2025-01-01", "limit": 50.0},
		"ori":            {"query": "jeugdzorg", "organization": "den_helder", "date_from": "2025-01-01", "limit": 50.0},
		"opentk":         nil,
		"tk":             nil,
	}
	if diff := cmp.Diff(wantArgs, args); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	for _, c := range f.called() {
		if strings.HasPrefix(c, "rechtspraak") || strings.HasPrefix(c, "example") || strings.HasPrefix(c, "tk_") {
			t.Errorf("called %s", c)
		}
	}

	// Named platforms: tk without the organisation (said so), rechtspraak
	// by its filters with the open end closed at today.
	f.calls = nil
	res = decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","platforms":["tk","rechtspraak"],"organization":"HR","date_from":"2020-01-01"}`)))
	if st := statuses(res); st["tk"] != "ok" || st["rechtspraak"] != "ok" {
		t.Fatalf("statuses %v", st)
	}
	for _, sec := range res.Sections {
		notes := strings.Join(sec.Notes, " ")
		switch sec.Platform {
		case "tk":
			if !strings.Contains(notes, "organization was not applied") {
				t.Errorf("tk notes %q", notes)
			}
		case "rechtspraak":
			if diff := cmp.Diff(map[string]any{"court": "http://standaarden.overheid.nl/owms/terms/Hoge_Raad_der_Nederlanden", "date_from": "2020-01-01", "date_to": "2026-03-04", "limit": 10.0}, sec.Arguments); diff != "" {
				t.Errorf("rechtspraak arguments: %s", diff)
			}
			if !strings.Contains(notes, "query was NOT applied") {
				t.Errorf("rechtspraak notes %q", notes)
			}
		}
	}
	// Rechtspraak with nothing to filter on is skipped, not listed
	// wholesale; being the only platform named, nothing answered, which
	// is a tool error giving the reason.
	r := s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","platforms":["rechtspraak"]}`))
	if text := resultText(r); r.Err == nil || !strings.Contains(text, "Rechtspraak (rechtspraak) skipped: ") || !strings.Contains(text, "no free-text search") {
		t.Errorf("rechtspraak without filters: %v %s", (r.Err != nil), text)
	}
	// An organisation a platform does not know skips that platform only.
	res = decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","platforms":["obv","obk"],"organization":"Nergenshuizen"}`)))
	if st := statuses(res); st["obv"] != "skipped" || st["obk"] != "ok" {
		t.Errorf("unknown organisation: %v", st)
	}
	if !strings.Contains(res.Sections[1].Error, "obv_list_sources") {
		t.Errorf("obv skip reason %q", res.Sections[1].Error)
	}
}

func TestFailuresAreNamedAndMetaAggregates(t *testing.T) {
	f := newFake()
	f.tools["obv_search"] = answering("obv", callinfo.Hit, 0, 0, "a")
	f.tools["ori_search"] = answering("ori", callinfo.Stale, 0, 40*time.Millisecond, "b")
	f.tools["tk_search"] = answering("tk", callinfo.Miss, 1500*time.Millisecond, 20*time.Millisecond, "c")
	f.tools["obk_search"] = func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
		return errResult("Officiële Bekendmakingen: search: HTTP 503 (the platform is busy)")
	}
	f.tools["opentk_search"] = func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
		r := okResult("opentk", "")
		r.Result = connector.CallResult{Text: "not json"}
		return r
	}
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	parent := &callinfo.Info{Session: "s"}
	r := s.Handle(context.Background(), parent, json.RawMessage(`{"query":"klimaat"}`))
	res := decode(t, r)
	want := map[string]string{"obk": "error", "obv": "ok", "openarchivaris": "ok", "opentk": "error", "ori": "ok", "tk": "ok"}
	if diff := cmp.Diff(want, statuses(res)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	for _, sec := range res.Sections {
		if sec.Platform == "obk" && !strings.Contains(sec.Error, "HTTP 503") {
			t.Errorf("obk error %q", sec.Error)
		}
		if sec.Platform == "obv" && sec.Cache != callinfo.Hit {
			t.Errorf("obv section cache %q", sec.Cache)
		}
	}
	if r.Summary.Cache != callinfo.Stale || r.Summary.Queued != 1500*time.Millisecond || r.Summary.Upstream != 40*time.Millisecond {
		t.Errorf("the answer's accounting (its _meta) %s, queued %v, upstream %v: want stale, 1.5s, 40ms", r.Summary.Cache, r.Summary.Queued, r.Summary.Upstream)
	}
	if sum := parent.Summary(); sum.Cache != callinfo.Stale || sum.Queued != 1500*time.Millisecond {
		t.Errorf("parent info %+v", sum)
	}
	if r.Result.Structured == nil {
		t.Error("no structured content")
	}
}

func TestBadArgumentsNameTheArgument(t *testing.T) {
	s := New(Options{Platforms: allPlatforms, Invoke: newFake().invoke})
	for args, want := range map[string]string{
		`{}`:                                     `argument "query"`,
		`{"query":"  "}`:                         `argument "query"`,
		`{"query":7}`:                            `argument "query"`,
		`{"query":"x","platforms":["nope"]}`:     `argument "platforms": "nope"`,
		`{"query":"x","platforms":["example"]}`:  `argument "platforms": "example"`,
		`{"query":"x","platforms":[]}`:           `argument "platforms"`,
		`{"query":"x","platforms":["tk","tk"]}`:  `named twice`,
		`{"query":"x","limit":51}`:               `argument "limit"`,
		`{"query":"x","date_from":"2024-02-30"}`: `argument "date_from"`,
		`{"query":"x","date_from":"2025-01-02","date_to":"2025-01-01"}`: `"date_from" and "date_to"`,
		`{"query":"x","timeout_seconds":600}`:                           `argument "timeout_seconds"`,
		`{"query":"x","organization":"A"}`:                              `argument "organization"`,
		`{"query":"x","colour":"red"}`:                                  `argument "colour"`,
		`[1]`:                                                           `arguments`,
		`{"query":"` + strings.Repeat("a", 501) + `"}`:                  `argument "query"`,
	} {
		r := s.Handle(context.Background(), nil, json.RawMessage(args))
		if r.Err == nil || !strings.Contains(resultText(r), want) || !strings.HasPrefix(resultText(r), ToolName) {
			t.Errorf("%.60s: got %q, want a tool error naming %s", args, resultText(r), want)
		}
	}
}

func TestToolDescribesTheLimits(t *testing.T) {
	s := New(Options{Platforms: allPlatforms, Invoke: newFake().invoke})
	tool := s.Tool()
	for _, want := range []string{"rechtspraak", "no free-text search", "titles and subjects", "opentk, tk", "Cost:"} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, tool.Description)
		}
	}
	if strings.Contains(tool.Description, "example") {
		t.Error("description names a connector without a translation")
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema.(json.RawMessage), &schema); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(s.IDs(), []string{"obk", "obv", "openarchivaris", "opentk", "ori", "rechtspraak", "tk"}) {
		t.Errorf("ids %v", s.IDs())
	}
}

// TestQueuedPositionsForwardedOneAtATime: platforms waiting at their limits
// report queue positions concurrently; the caller's progress callback sees
// them one at a time, and none after the call returned (run with -race).
func TestQueuedPositionsForwardedOneAtATime(t *testing.T) {
	f := newFake()
	for _, p := range allPlatforms {
		f.tools[p.ID+"_search"] = func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
			for i := 0; i < 50; i++ {
				info.OnQueued(i, time.Second)
			}
			return okResult(p.ID, callinfo.Miss, "x")
		}
	}
	var n int // deliberately unsynchronised: the forwarder must serialise
	returned := false
	var mu sync.Mutex
	parent := &callinfo.Info{Session: "s", OnQueued: func(int, time.Duration) {
		n++
		mu.Lock()
		late := returned
		mu.Unlock()
		if late {
			t.Error("progress after the call returned")
		}
	}}
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	decode(t, s.Handle(context.Background(), parent, json.RawMessage(`{"query":"x"}`)))
	mu.Lock()
	returned = true
	mu.Unlock()
	if n != 6*50 {
		t.Errorf("%d progress calls, want %d", n, 6*50)
	}
}

func TestOrganisationMatching(t *testing.T) {
	items := []sdk.Item{{ID: "zuid_holland", Title: "Provincie Zuid-Holland"}, {ID: "utrecht", Title: "Utrecht"}, {ID: "s-gravenhage", Title: "'s-Gravenhage"}}
	l := func(context.Context, string, map[string]any) ([]sdk.Item, error) { return items, nil }
	for want, id := range map[string]string{
		"Zuid-Holland": "zuid_holland", "provincie zuid-holland": "zuid_holland", "Gemeente Utrecht": "utrecht",
		"UTRECHT": "utrecht", "'s-Gravenhage": "s-gravenhage",
	} {
		got, _, err := resolveOrg(context.Background(), l, "x", "x_list", nil, want)
		if err != nil || got.ID != id {
			t.Errorf("%q → %q %v, want %q", want, got.ID, err, id)
		}
	}
	if _, _, err := resolveOrg(context.Background(), l, "x", "x_list", nil, "Amsterdam"); err == nil {
		t.Error("Amsterdam matched")
	}
	if got := stripKind("Gemeente Den Helder"); got != "Den Helder" {
		t.Errorf("stripKind: %q", got)
	}
	if got := stripKind("Provinciale Staten Fryslân"); got != "Fryslân" {
		t.Errorf("stripKind: %q", got)
	}
}

// TestNoPlatformAnsweredIsAnError: when every platform failed, timed out
// or was skipped, the result is a tool error that says why for each (an
// assistant reading `"answered": []` in a normal result took it for "no
// documents"); each reason is cut so seven long errors stay short. A
// partial answer stays a result (TestFailuresAreNamedAndMetaAggregates).
func TestNoPlatformAnsweredIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.tools["obv_search"] = func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
			return errResult("OpenBesluitvorming: search: could not reach api.openbesluitvorming.nl " + strings.Repeat("(detail) ", 2000))
		}
		f.tools["ori_search"] = hanging
		f.tools["tk_search"] = func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
			return errResult("Tweede Kamer: search: HTTP 503")
		}
		s := New(Options{Platforms: allPlatforms, Invoke: f.invoke, PlatformTimeout: 2 * time.Second})
		r := s.Handle(context.Background(), &callinfo.Info{Session: "s"}, json.RawMessage(`{"query":"klimaat","platforms":["obv","ori","tk","rechtspraak"]}`))
		text := resultText(r)
		if r.Err == nil {
			t.Fatalf("not an error: %s", text)
		}
		for _, want := range []string{
			`besluitbron_search: no platform answered "klimaat".`,
			"\n- OpenBesluitvorming (obv) failed: OpenBesluitvorming: search: could not reach api.openbesluitvorming.nl (detail)",
			"\n- ORI (ori) timed out: no answer within 2s",
			"\n- Tweede Kamer (tk) failed: Tweede Kamer: search: HTTP 503",
			"\n- Rechtspraak (rechtspraak) skipped: Rechtspraak's index has no free-text search",
			"timeout_seconds (at most 60)",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("error lacks %q:\n%s", want, text)
			}
		}
		if len(text) > 1500 {
			t.Errorf("error is %d bytes", len(text))
		}
	})
}

// TestSomeAnsweredIsNoError: the same failures with one platform
// answering give a normal result naming the failed ones.
func TestSomeAnsweredIsNoError(t *testing.T) {
	f := newFake()
	f.tools["tk_search"] = func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
		return errResult("Tweede Kamer: search: HTTP 503")
	}
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"klimaat","platforms":["tk","obv"]}`)))
	if strings.Join(res.Answered, ",") != "obv" || strings.Join(res.Failed, ",") != "tk" {
		t.Errorf("answered %v failed %v", res.Answered, res.Failed)
	}
}

// TestNothingToSearchIsAnError: with no platform that takes free text
// and none named, the error says to name one.
func TestNothingToSearchIsAnError(t *testing.T) {
	var only []Platform
	for _, p := range allPlatforms {
		if p.ID == "rechtspraak" {
			only = append(only, p)
		}
	}
	s := New(Options{Platforms: only, Invoke: newFake().invoke})
	r := s.Handle(context.Background(), nil, json.RawMessage(`{"query":"klimaat"}`))
	if r.Err == nil || !strings.Contains(resultText(r), "No platform was searched") {
		t.Errorf("%v %s", (r.Err != nil), resultText(r))
	}
}

// TestSectionNotesFromTheConnectorAndTheHost: a section's notes are the
// connector's caveats (in its result) followed by the host's (in the
// call's summary, such as a stale answer's age), each once. It catches a
// host note lost, or one read back out of the result's text.
func TestSectionNotesFromTheConnectorAndTheHost(t *testing.T) {
	f := newFake()
	f.tools["obv_search"] = func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
		info.AddFetch(callinfo.Stale, 0, 0)
		total := 1
		b, _ := json.Marshal(sdk.SearchResult{Platform: "obv", Total: &total, Results: []sdk.Item{{ID: "1", Title: "Besluit"}},
			Notes: []string{"date_to is not applied by this platform."}})
		return invoke.Answer{Platform: "obv", Result: connector.CallResult{Text: string(b), Structured: b},
			Summary: callinfo.Summary{Cache: callinfo.Stale, Notes: []string{"answer from the cache, 2 h old: the platform did not answer"}}}
	}
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"klimaat","platforms":["obv"]}`)))
	want := []string{"date_to is not applied by this platform.", "answer from the cache, 2 h old: the platform did not answer"}
	if diff := cmp.Diff(want, res.Sections[0].Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestErrorAtTheDeadlineIsATimeout: a platform whose call fails at its
// deadline is reported as timed out, whichever of the two notices it
// first. The call's own parts keep their own timers for the same instant
// (the cache's fill outlives a caller that leaves, under the caller's
// deadline), so the call may return "canceled: … context deadline
// exceeded" before the search's context says it is done; the user saw
// either wording depending on the machine's speed. Here the clock shows
// the deadline passed and the context has not fired yet, the order a busy
// machine produced.
func TestErrorAtTheDeadlineIsATimeout(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	f := newFake()
	f.tools["ori_search"] = func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
		mu.Lock()
		now = now.Add(3 * time.Second) // the deadline's instant
		mu.Unlock()
		if ctx.Err() != nil {
			t.Error("the context fired: this test wants the clock first")
		}
		return errResult("canceled: the call ended while ori was answering: context deadline exceeded")
	}
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke, PlatformTimeout: time.Hour, Now: clock})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"klimaat","platforms":["ori","obv"],"timeout_seconds":3}`)))
	for _, sec := range res.Sections {
		if sec.Platform == "ori" && (sec.Status != "timeout" || !strings.Contains(sec.Error, "no answer within 3s")) {
			t.Errorf("ori: %s %q, want a timeout naming the 3s deadline", sec.Status, sec.Error)
		}
	}
	if !cmp.Equal(res.Failed, []string{"ori"}) || !cmp.Equal(res.Answered, []string{"obv"}) {
		t.Errorf("answered %v failed %v", res.Answered, res.Failed)
	}
}
