package cache_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

func persisted(t *testing.T) *env {
	dir := t.TempDir()
	return newEnv(t, func(o *cache.Options) { o.Dir, o.MaxBytes = filepath.Join(dir, "obv"), 64<<20 })
}

// fill puts n entries per class (one of them large) into the store.
func (e *env) fill(n int) {
	e.t.Helper()
	for c := range testTTL {
		for i := range n {
			body := fmt.Sprint(c, i)
			if i == 0 {
				body = strings.Repeat("L", 100<<10)
			}
			e.expect(c, fmt.Sprint("k", i), &upstream{body: body}, callinfo.Miss, 1)
		}
	}
}

func (e *env) allHits(n int) {
	e.t.Helper()
	for c := range testTTL {
		for i := range n {
			u := &upstream{body: "refetched"}
			if got := e.expect(c, fmt.Sprint("k", i), u, callinfo.Hit, 0); i > 0 && got != fmt.Sprint(c, i) {
				e.t.Fatalf("%s k%d: %q", c, i, got)
			}
		}
	}
}

func snapNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.Name() != "lock" {
			out = append(out, e.Name())
		}
	}
	return out
}

// A restart of the same version keeps every entry and the counters.
func TestRestartKeepsEverything(t *testing.T) {
	e := persisted(t)
	e.fill(50)
	e.allHits(50)
	before := e.s.Stats()
	e.reopen(nil)
	after := e.s.Stats()
	if after.Entries != before.Entries || after.Entries == 0 {
		t.Errorf("entries %d after restart, %d before", after.Entries, before.Entries)
	}
	e.allHits(50)
	if c := e.counters("search"); c.Hits != 100 || c.Misses != 50 || c.Stored != 50 {
		t.Errorf("counters after restart %+v", c)
	}
	if strings.Contains(e.log.String(), "WARN") {
		t.Errorf("warnings: %s", e.log)
	}
}

// After an upgrade (another version or another module) the first request
// of an entry goes to the platform and is counted as a discard; the next
// is a hit. Nothing is cleared ahead of time.
func TestUpgradeDiscardsOnRead(t *testing.T) {
	for _, change := range []func(*cache.Options){
		func(o *cache.Options) { o.Version = "1.0.1" },
		func(o *cache.Options) { o.ModuleSHA256 = "bbbb" },
	} {
		e := persisted(t)
		e.fill(5)
		entries := e.s.Stats().Entries
		e.reopen(change)
		if got := e.s.Stats().Entries; got != entries {
			t.Errorf("entries %d after upgrade, %d before: something was cleared ahead of time", got, entries)
		}
		u := &upstream{body: "new"}
		e.expect("document", "k1", u, callinfo.Miss, 1)
		e.expect("document", "k1", u, callinfo.Hit, 1)
		e.expect("document", "k0", u, callinfo.Miss, 2) // the large one too
		if c := e.counters("document"); c.VersionDiscards != 2 {
			t.Errorf("version discards %d, want 2", c.VersionDiscards)
		}
		if c := e.counters("search"); c.VersionDiscards != 0 {
			t.Errorf("search discards %d: only what is requested is judged", c.VersionDiscards)
		}
	}
}

// An expired entry of another version is never served as stale.
func TestNoStaleFromAnotherVersion(t *testing.T) {
	e := persisted(t)
	e.expect("search", "k", &upstream{body: "old"}, callinfo.Miss, 1)
	e.clock.Advance(time.Hour)
	e.reopen(func(o *cache.Options) { o.Version = "2.0.0" })
	if body, outcome, _, _ := e.do("search", "k", &upstream{status: 503}); outcome != callinfo.Miss || body == "old" {
		t.Errorf("%q %q", outcome, body)
	}
}

// Checkpoint writes only what changed: nothing, meta.json, or everything.
func TestCheckpointWritesOnlyChanges(t *testing.T) {
	e := persisted(t)
	if err := e.s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := snapNames(t, e.o.Dir); len(got) != 0 {
		t.Errorf("an untouched cache was written: %v", got)
	}
	e.fill(3)
	if err := e.s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	first := snapNames(t, e.o.Dir)
	if len(first) != 1 || !strings.HasPrefix(first[0], "snap-") {
		t.Fatalf("after a save: %v", first)
	}
	dataFile := filepath.Join(e.o.Dir, first[0], "data", "metadata.bin")
	st1, _ := os.Stat(dataFile)
	e.expect("search", "k1", &upstream{}, callinfo.Hit, 0) // a counter moves
	if err := e.s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := snapNames(t, e.o.Dir); len(got) != 1 || got[0] != first[0] {
		t.Errorf("a counter change rewrote the cache: %v", got)
	}
	if st2, _ := os.Stat(dataFile); !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("data rewritten for a counter change")
	}
	m, err := cache.ReadSaved(e.o.Dir)
	if err != nil || m.Classes["search"].Hits != 1 || m.Platform != "obv" || m.MaxBytes != 64<<20 {
		t.Errorf("meta %+v %v", m, err)
	}
	e.expect("search", "new", &upstream{body: "n"}, callinfo.Miss, 1)
	if err := e.s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if got := snapNames(t, e.o.Dir); len(got) != 1 || got[0] == first[0] {
		t.Errorf("after a change: %v (was %v)", got, first)
	}
}

// damage describes one way a saved cache can be broken; every one of them
// gives an empty cache and a warning, never a failed start.
var damages = []struct {
	name string
	do   func(t *testing.T, snap string)
	want string
}{
	{"flipped byte in a data file", func(t *testing.T, snap string) {
		p := dataFiles(t, snap)[0]
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 0xff
		os.WriteFile(p, b, 0o644)
	}, "damaged"},
	{"truncated data file", func(t *testing.T, snap string) {
		p := dataFiles(t, snap)[0]
		b, _ := os.ReadFile(p)
		os.WriteFile(p, b[:len(b)/3], 0o644)
	}, "damaged"},
	{"missing data file", func(t *testing.T, snap string) { os.Remove(dataFiles(t, snap)[0]) }, "damaged"},
	{"extra data file", func(t *testing.T, snap string) {
		os.WriteFile(filepath.Join(snap, "data", "data.99.bin"), []byte("x"), 0o644)
	}, "does not list"},
	{"missing meta.json", func(t *testing.T, snap string) { os.Remove(filepath.Join(snap, "meta.json")) }, "meta.json"},
	{"garbage meta.json", func(t *testing.T, snap string) {
		os.WriteFile(filepath.Join(snap, "meta.json"), []byte("{not json"), 0o644)
	}, "meta.json"},
	{"future format", func(t *testing.T, snap string) { editMeta(t, snap, func(m map[string]any) { m["format"] = 99 }) }, "format 99"},
	{"other platform", func(t *testing.T, snap string) { editMeta(t, snap, func(m map[string]any) { m["platform"] = "tk" }) }, "saved for connector"},
	{"data folder gone", func(t *testing.T, snap string) { os.RemoveAll(filepath.Join(snap, "data")) }, "no such file"},
}

func dataFiles(t *testing.T, snap string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(snap, "data", "data.*.bin"))
	// Largest first: a save worker that got no bucket writes an empty file.
	slices.SortFunc(m, func(a, b string) int {
		sa, _ := os.Stat(a)
		sb, _ := os.Stat(b)
		return cmp.Compare(sb.Size(), sa.Size())
	})
	if len(m) == 0 {
		t.Fatalf("no data files in %s", snap)
	}
	return m
}

func editMeta(t *testing.T, snap string, f func(map[string]any)) {
	t.Helper()
	p := filepath.Join(snap, "meta.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	f(m)
	b, _ = json.Marshal(m)
	os.WriteFile(p, b, 0o644)
}

func TestDamagedCacheStartsEmptyWithWarning(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			e := persisted(t)
			e.fill(20)
			if err := e.s.Close(); err != nil {
				t.Fatal(err)
			}
			d.do(t, filepath.Join(e.o.Dir, snapNames(t, e.o.Dir)[0]))
			e.s = e.open()
			if n := e.s.Stats().Entries; n != 0 {
				t.Errorf("%d entries from a damaged cache", n)
			}
			log := e.log.String()
			if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "starts with an empty cache") || !strings.Contains(log, d.want) {
				t.Errorf("log lacks a warning naming %q:\n%s", d.want, log)
			}
			// It works and saves again.
			e.expect("search", "k1", &upstream{body: "x"}, callinfo.Miss, 1)
			e.reopen(nil)
			e.expect("search", "k1", &upstream{}, callinfo.Hit, 0)
		})
	}
}

// A cache folder that cannot be created: a warning, and a cache that
// works in memory only.
func TestUnusableFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, []byte("x"), 0o644)
	e := newEnv(t, func(o *cache.Options) { o.Dir = file })
	if !strings.Contains(e.log.String(), "level=WARN") || !strings.Contains(e.log.String(), "memory only") {
		t.Errorf("no warning: %s", e.log)
	}
	e.expect("search", "k", &upstream{body: "x"}, callinfo.Miss, 1)
	e.expect("search", "k", &upstream{}, callinfo.Hit, 0)
	if err := e.s.Save(); err != nil {
		t.Errorf("save: %v", err)
	}
}

// Two processes on one folder (two stdio clients): the first owns it and
// saves; the second reads it at start and never writes.
func TestOneOwnerPerFolder(t *testing.T) {
	a := persisted(t)
	a.fill(3)
	a.s.Save()
	b := newEnv(t, func(o *cache.Options) { o.Dir, o.MaxBytes = a.o.Dir, a.o.MaxBytes })
	if !strings.Contains(b.log.String(), "another BesluitBron process owns") {
		t.Errorf("second store: %s", b.log)
	}
	b.allHits(3)
	b.expect("search", "only-b", &upstream{body: "b"}, callinfo.Miss, 1)
	b.s.Close()
	a.reopen(nil)
	a.allHits(3)
	a.expect("search", "only-b", &upstream{body: "b"}, callinfo.Miss, 1) // b never saved
}

// A save that crashed half-way leaves a tmp- folder: removed at start,
// the complete snapshot next to it is used.
func TestLeftoversOfACrashedSave(t *testing.T) {
	e := persisted(t)
	e.fill(5)
	e.s.Close()
	os.MkdirAll(filepath.Join(e.o.Dir, "tmp-123", "data"), 0o755)
	e.s = e.open()
	e.allHits(5)
	for _, n := range snapNames(t, e.o.Dir) {
		if strings.HasPrefix(n, "tmp-") {
			t.Errorf("leftover %s not removed", n)
		}
	}
}

// `cache clear` on one platform: a running store empties itself at its
// next poll, a starting one at load; the other platform is untouched.
func TestClearOnePlatform(t *testing.T) {
	root := t.TempDir()
	obv := newEnv(t, func(o *cache.Options) { o.Dir = cache.PlatformDir(root, "obv") })
	tk := newEnv(t, func(o *cache.Options) { o.Platform, o.Dir = "tk", cache.PlatformDir(root, "tk") })
	obv.fill(5)
	tk.fill(5)
	obv.s.Checkpoint()
	tk.s.Checkpoint()

	m, err := cache.RequestClear(cache.PlatformDir(root, "obv"))
	if err != nil || m.Entries == 0 {
		t.Fatalf("RequestClear: %+v %v", m, err)
	}
	if !cache.ClearPending(cache.PlatformDir(root, "obv")) || cache.ClearPending(cache.PlatformDir(root, "tk")) {
		t.Error("ClearPending wrong")
	}
	if _, err := cache.ReadSaved(cache.PlatformDir(root, "obv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("saved cache still there: %v", err)
	}
	if !obv.s.PollClear() || obv.s.PollClear() {
		t.Error("PollClear should apply the request once")
	}
	if tk.s.PollClear() {
		t.Error("tk cleared too")
	}
	if n := obv.s.Stats().Entries; n != 0 {
		t.Errorf("obv holds %d entries after clear", n)
	}
	obv.expect("search", "k1", &upstream{body: "x"}, callinfo.Miss, 1)
	tk.allHits(5)

	// Cleared while stopped: the next start is empty.
	obv.s.Close()
	cache.RequestClear(cache.PlatformDir(root, "obv"))
	obv.s = obv.open()
	if n := obv.s.Stats().Entries; n != 0 || cache.ClearPending(cache.PlatformDir(root, "obv")) {
		t.Errorf("after a clear while stopped: %d entries, pending %v", n, cache.ClearPending(cache.PlatformDir(root, "obv")))
	}
	tk.reopen(nil)
	tk.allHits(5)
}

// A clear that lands during a save still wins: the request stays until a
// poll or a checkpoint applies it.
func TestClearBeforeCheckpointWins(t *testing.T) {
	e := persisted(t)
	e.fill(3)
	e.s.Checkpoint()
	cache.RequestClear(e.o.Dir)
	e.expect("search", "k1", &upstream{}, callinfo.Hit, 0) // not polled yet
	e.s.Checkpoint()                                       // applies the clear first
	if n := e.s.Stats().Entries; n != 0 {
		t.Errorf("%d entries", n)
	}
	e.reopen(nil)
	if n := e.s.Stats().Entries; n != 0 {
		t.Errorf("%d entries after restart", n)
	}
}

// Saving runs alongside fetches.
func TestSaveDuringTraffic(t *testing.T) {
	e := persisted(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for p := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				e.s.Do(t.Context(), "search", fmt.Sprint(p, "-", i%300), (&upstream{body: "v"}).fill)
			}
		})
	}
	for range 3 {
		e.clock.Advance(time.Second)
		if err := e.s.Save(); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	e.reopen(nil)
	if e.s.Stats().Entries == 0 {
		t.Error("nothing saved")
	}
}
