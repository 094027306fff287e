package cache

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/VictoriaMetrics/fastcache"
	"github.com/cespare/xxhash/v2"
)

// On disk, a platform's folder holds at most one complete snapshot:
//
//	<dir>/snap-<sequence>/meta.json   this file's Saved, written last
//	<dir>/snap-<sequence>/data/       fastcache's files
//	<dir>/tmp-*/                      a save in progress (removed at start)
//	<dir>/clear-requested             `besluitbron cache clear` was run
//
// A save writes a tmp- folder completely, then renames it to a new snap-
// name (atomic), then removes the older snapshot. A crash at any point
// leaves a complete snapshot to load. meta.json records the cache size
// (fastcache silently returns an empty cache for another size) and a
// checksum of every data file, so a damaged file is noticed before
// fastcache reads it.
const (
	snapPrefix = "snap-"
	tmpPrefix  = "tmp-"
	metaName   = "meta.json"
	dataName   = "data"
	clearName  = "clear-requested"
	saveFormat = 1
)

// Saved describes a saved snapshot: its meta.json.
type Saved struct {
	Format       int       `json:"format"`
	Platform     string    `json:"platform"`
	MaxBytes     int       `json:"max_bytes"`
	SavedAt      time.Time `json:"saved_at"`
	Version      string    `json:"version"`
	ModuleSHA256 string    `json:"module_sha256"`
	// Stamp is the hex stamp of the entries this version wrote.
	Stamp       string `json:"stamp"`
	Entries     uint64 `json:"entries"`
	MemoryBytes uint64 `json:"memory_bytes"`
	// TTL is each class's time to live when saved.
	TTL map[string]time.Duration `json:"ttl"`
	// Files maps each data file to its xxhash64 (hex).
	Files   map[string]string   `json:"files"`
	Classes map[string]Counters `json:"classes"`
	// Dir is the snapshot's folder (not saved).
	Dir string `json:"-"`
}

// PlatformDir is the folder of platform id's cache under the configured
// cache.dir.
func PlatformDir(root, id string) string { return filepath.Join(root, id) }

// Checkpoint saves the store if anything changed since the last save: the
// whole cache when entries changed, only meta.json when only counters
// did. A pending `cache clear` request is applied first. Without a Dir,
// or when another process owns the folder, it does nothing.
func (s *Store) Checkpoint() error {
	if !s.owner {
		return nil
	}
	s.PollClear()
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	switch {
	case s.changes.Load() != s.saved:
		return s.saveLocked()
	case s.counterSum() == s.countersSaved:
		return nil
	case s.current == "":
		return s.saveLocked() // no snapshot yet to hold the counters
	}
	return s.saveMetaLocked()
}

// Save writes the whole cache now. Without a Dir, or when another
// process owns the folder, it does nothing.
func (s *Store) Save() error {
	if !s.owner {
		return nil
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	return s.saveLocked()
}

// Close saves the store (a [Store.Checkpoint]) and frees its memory; a
// closed store answers every fetch through fill.
func (s *Store) Close() error {
	err := s.Checkpoint()
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	if !s.closed {
		s.closed = true
		s.off.Store(true)
		if s.unlock != nil {
			s.unlock()
		}
		s.o.Metrics.remove(s)
		s.c.Reset()
	}
	return err
}

func (s *Store) counterSum() uint64 {
	var n uint64
	for _, c := range s.classes {
		k := c.counters()
		n += k.Hits + k.Misses + k.Stale + k.Coalesced + k.VersionDiscards + k.Oversize + k.Stored
	}
	return n
}

func (s *Store) meta(now time.Time) Saved {
	var fs fastcache.Stats
	s.c.UpdateStats(&fs)
	m := Saved{
		Format: saveFormat, Platform: s.o.Platform, MaxBytes: s.o.MaxBytes, SavedAt: now.UTC(),
		Version: s.o.Version, ModuleSHA256: s.o.ModuleSHA256, Stamp: strconv.FormatUint(s.stamp, 16),
		Entries: fs.EntriesCount, MemoryBytes: fs.BytesSize,
		TTL: map[string]time.Duration{}, Classes: map[string]Counters{},
	}
	for name, c := range s.classes {
		m.TTL[name] = c.ttl
		m.Classes[name] = c.counters()
	}
	return m
}

// saveLocked writes a new snapshot and removes the older ones.
func (s *Store) saveLocked() (err error) {
	if s.closed {
		return nil
	}
	start := time.Now()
	defer func() { s.o.Metrics.saved(s.o.Platform, err, "ok", time.Since(start)) }()
	changes, sum := s.changes.Load(), s.counterSum()
	if err := os.MkdirAll(s.o.Dir, 0o755); err != nil {
		return fmt.Errorf("cache %s: %w", s.o.Platform, err)
	}
	tmp, err := os.MkdirTemp(s.o.Dir, tmpPrefix)
	if err != nil {
		return fmt.Errorf("cache %s: %w", s.o.Platform, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	data := filepath.Join(tmp, dataName)
	if err := s.c.SaveToFileConcurrent(data, runtime.GOMAXPROCS(0)); err != nil {
		return fmt.Errorf("cache %s: saving: %w", s.o.Platform, err)
	}
	files, err := checksums(data, true)
	if err != nil {
		return fmt.Errorf("cache %s: saving: %w", s.o.Platform, err)
	}
	now := s.o.Now()
	m := s.meta(now)
	m.Files = files
	if err := writeJSON(filepath.Join(tmp, metaName), m); err != nil {
		return fmt.Errorf("cache %s: saving: %w", s.o.Platform, err)
	}
	s.seq = max(s.seq+1, now.UnixNano())
	name := fmt.Sprintf("%s%020d", snapPrefix, s.seq)
	if err := os.Rename(tmp, filepath.Join(s.o.Dir, name)); err != nil {
		return fmt.Errorf("cache %s: saving: %w", s.o.Platform, err)
	}
	syncDir(s.o.Dir)
	s.current, s.saved, s.countersSaved = name, changes, sum
	s.removeAllBut(name)
	return nil
}

// saveMetaLocked rewrites the current snapshot's meta.json (counters only
// changed).
func (s *Store) saveMetaLocked() (err error) {
	defer func() { s.o.Metrics.saved(s.o.Platform, err, "meta_only", 0) }()
	dir := filepath.Join(s.o.Dir, s.current)
	old, err := readSaved(dir)
	if err != nil {
		return s.saveLocked()
	}
	sum := s.counterSum()
	m := s.meta(s.o.Now())
	// The data files are the old ones: so is the size they were saved at.
	m.Files, m.Entries, m.MemoryBytes, m.SavedAt, m.MaxBytes = old.Files, old.Entries, old.MemoryBytes, old.SavedAt, old.MaxBytes
	tmp := filepath.Join(dir, metaName+".tmp")
	if err := writeJSON(tmp, m); err != nil {
		return fmt.Errorf("cache %s: %w", s.o.Platform, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, metaName)); err != nil {
		return fmt.Errorf("cache %s: %w", s.o.Platform, err)
	}
	s.countersSaved = sum
	return nil
}

// removeAllBut removes every snapshot and unfinished save except keep.
func (s *Store) removeAllBut(keep string) {
	ents, err := os.ReadDir(s.o.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if n != keep && (strings.HasPrefix(n, snapPrefix) || strings.HasPrefix(n, tmpPrefix)) {
			if err := os.RemoveAll(filepath.Join(s.o.Dir, n)); err != nil {
				s.o.Logger.Warn("cache: cannot remove an old snapshot", "connector", s.o.Platform, "path", n, "error", err)
			}
		}
	}
}

// load returns the saved cache, or an empty one with a warning.
func (s *Store) load() *fastcache.Cache {
	if s.o.Dir == "" {
		return fastcache.New(s.o.MaxBytes)
	}
	if s.owner && s.takeClearRequest() {
		s.o.Logger.Info("cache cleared on request (besluitbron cache clear)", "connector", s.o.Platform)
		s.removeAllBut("")
		return fastcache.New(s.o.MaxBytes)
	}
	snaps, err := snapshots(s.o.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.o.Logger.Warn("cache unreadable; this platform starts with an empty cache", "connector", s.o.Platform, "dir", s.o.Dir, "error", err)
	}
	for _, name := range snaps {
		c, m, err := s.loadSnapshot(filepath.Join(s.o.Dir, name))
		if err != nil {
			s.o.Logger.Warn("saved cache unusable; this platform starts with an empty cache", "connector", s.o.Platform, "snapshot", filepath.Join(s.o.Dir, name), "error", err)
			continue
		}
		for name, k := range m.Classes {
			if cl := s.classes[name]; cl != nil {
				cl.restore(k)
			}
		}
		seq, _ := strconv.ParseInt(strings.TrimPrefix(name, snapPrefix), 10, 64)
		s.seq, s.current, s.countersSaved = seq, name, s.counterSum()
		if m.MaxBytes != s.o.MaxBytes {
			s.changes.Add(1) // resized: the next checkpoint saves it whole, at its new size
		}
		if s.owner {
			s.removeAllBut(name)
		}
		return c
	}
	if s.owner {
		s.removeAllBut("")
	}
	return fastcache.New(s.o.MaxBytes)
}

func (s *Store) loadSnapshot(dir string) (*fastcache.Cache, Saved, error) {
	m, err := readSaved(dir)
	if err != nil {
		return nil, m, err
	}
	switch {
	case m.Format != saveFormat:
		return nil, m, fmt.Errorf("format %d, this build reads %d", m.Format, saveFormat)
	case m.Platform != s.o.Platform:
		return nil, m, fmt.Errorf("saved for connector %q", m.Platform)
	}
	data := filepath.Join(dir, dataName)
	got, err := checksums(data, false)
	if err != nil {
		return nil, m, err
	}
	for f, sum := range m.Files {
		if got[f] != sum {
			return nil, m, fmt.Errorf("data file %s is damaged or missing (checksum %q, recorded %q)", f, got[f], sum)
		}
	}
	if len(got) != len(m.Files) {
		return nil, m, fmt.Errorf("data folder %s holds files meta.json does not list", data)
	}
	c, err := fastcache.LoadFromFileMaxBytes(data, m.MaxBytes)
	if err != nil {
		return nil, m, err
	}
	if m.MaxBytes != s.o.MaxBytes {
		if c, err = s.resize(c, data, m.MaxBytes); err != nil {
			return nil, m, err
		}
	}
	return c, m, nil
}

// resize moves the entries of old, a cache loaded at the size it was saved
// with (from the data folder data), into a cache of the configured size:
// an admin who changes cache_mb keeps the platform's cache (fastcache
// itself only loads a file at the size it was saved with). Entries go in
// the order they were written, so when the cache shrinks the newest are
// the ones kept; an entry too large for the new size is left out as a
// store would refuse it (write).
func (s *Store) resize(old *fastcache.Cache, data string, oldBytes int) (*fastcache.Cache, error) {
	defer old.Reset()
	type kv struct {
		k, v    []byte
		written int64
	}
	var entries []kv
	names, _ := filepath.Glob(filepath.Join(data, "data.*.bin"))
	for _, name := range names {
		err := readBuckets(name, func(k, v []byte) {
			if s.classes[classOf(k)] == nil {
				return // a piece of a large value (under its hash), or a class gone
			}
			if len(v) == 16 { // a large value's index
				if v = old.GetBig(nil, k); len(v) == 0 {
					return
				}
			}
			if _, written, _, err := peek(v); err == nil {
				entries = append(entries, kv{k, v, written.UnixNano()})
			}
		})
		if err != nil {
			return nil, fmt.Errorf("resizing from cache_mb = %d: %s: %w", oldBytes>>20, name, err)
		}
	}
	slices.SortStableFunc(entries, func(a, b kv) int { return cmp.Compare(a.written, b.written) })
	c := fastcache.New(s.o.MaxBytes)
	written := 0
	for _, e := range entries {
		switch {
		case len(e.k)+len(e.v) > s.o.MaxBytes/8:
		case 4+len(e.k)+len(e.v) >= bigValue:
			if fitsBig(e.k, e.v, s.o.MaxBytes) {
				c.SetBig(e.k, e.v)
				written++
			}
		default:
			c.Set(e.k, e.v)
			written++
		}
	}
	s.o.Logger.Info("cache_mb changed: the saved cache moved to the new size", "connector", s.o.Platform,
		"from_mb", oldBytes>>20, "to_mb", s.o.MaxBytes>>20, "entries", len(entries), "written", written)
	return c, nil
}

// snapshots lists dir's snapshots, newest first.
func snapshots(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), snapPrefix) {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out, nil
}

func readSaved(dir string) (Saved, error) {
	var m Saved
	b, err := os.ReadFile(filepath.Join(dir, metaName))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, metaName), err)
	}
	m.Dir = dir
	return m, nil
}

// ReadSaved returns the description of the newest snapshot in a
// platform's folder without loading it; an error wrapping
// fs.ErrNotExist means nothing is saved there.
func ReadSaved(dir string) (Saved, error) {
	snaps, err := snapshots(dir)
	if err != nil {
		return Saved{}, err
	}
	var errs []error
	for _, name := range snaps {
		m, err := readSaved(filepath.Join(dir, name))
		if err == nil {
			return m, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return Saved{}, fmt.Errorf("no saved cache in %s: %w", dir, fs.ErrNotExist)
	}
	return Saved{}, errors.Join(errs...)
}

// checksums returns the xxhash64 of every file in dir; with sync it also
// flushes them to the disk.
func checksums(dir string, sync bool) (map[string]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		h := xxhash.New()
		_, err = io.Copy(h, f)
		if err == nil && sync {
			err = f.Sync()
		}
		f.Close()
		if err != nil {
			return nil, err
		}
		out[e.Name()] = hex.EncodeToString(h.Sum(nil))
	}
	if sync {
		syncDir(dir)
	}
	return out, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a rename in dir durable; failure only weakens durability.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// RequestClear empties a platform's saved cache and leaves a request that
// a running server applies at its next poll (within seconds) and a
// starting one at load. It returns the description of what was saved, if
// anything was.
func RequestClear(dir string) (Saved, error) {
	m, _ := ReadSaved(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return m, err
	}
	if err := os.WriteFile(filepath.Join(dir, clearName), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		return m, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return m, err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), snapPrefix) || strings.HasPrefix(e.Name(), tmpPrefix) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return m, err
			}
		}
	}
	return m, nil
}

// ClearPending reports whether a clear request waits in a platform's
// folder (no server has applied it yet).
func ClearPending(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, clearName))
	return err == nil
}

func (s *Store) takeClearRequest() bool {
	p := filepath.Join(s.o.Dir, clearName)
	if _, err := os.Stat(p); err != nil {
		return false
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.o.Logger.Warn("cache: cannot remove the clear request", "connector", s.o.Platform, "path", p, "error", err)
	}
	return true
}

// PollClear applies a pending `besluitbron cache clear`: it empties the
// cache in memory and saves the empty cache. It reports whether it did.
// The counters are kept: they are the platform's history, not its
// content.
func (s *Store) PollClear() bool {
	if !s.owner || !s.takeClearRequest() {
		return false
	}
	s.c.Reset()
	if s.o.OnClear != nil {
		s.o.OnClear()
	}
	s.changes.Add(1)
	s.o.Logger.Info("cache cleared on request (besluitbron cache clear)", "connector", s.o.Platform)
	if err := s.Save(); err != nil {
		s.o.Logger.Warn("cache: saving the cleared cache failed", "connector", s.o.Platform, "error", err)
	}
	return true
}
