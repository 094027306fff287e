package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// storeVersion is the file's format; another version is refused by name.
const storeVersion = 1

// stored is the file: the watches and, per search, what its polls found.
type stored struct {
	Version int           `json:"version"`
	Watches []*Watch      `json:"watches"`
	Groups  []storedGroup `json:"groups"`
	// Spent is the polls' spend per platform within the last window, so
	// that a restart does not forget it and spend the share twice.
	Spent map[string][]storedSpend `json:"spent,omitempty"`
	// Total is each platform's spend since the first poll, and Typical
	// the last cost a poll measured there (a new search's estimate):
	// kept so that a replica that takes the polls over (in a cluster)
	// reports and paces as the one before it.
	Total   map[string]float64 `json:"total,omitempty"`
	Typical map[string]float64 `json:"typical,omitempty"`
}

type storedGroup struct {
	Query    Query              `json:"query"`
	LastPoll time.Time          `json:"last_poll,omitzero"`
	PrevPoll time.Time          `json:"prev_poll,omitzero"`
	Claimed  time.Time          `json:"claimed,omitzero"`
	LastOK   time.Time          `json:"last_ok,omitzero"`
	Polls    int                `json:"polls"`
	Turn     uint64             `json:"turn"`
	LastErr  string             `json:"last_error,omitempty"`
	Cost     map[string]float64 `json:"cost,omitempty"`
	Touched  []string           `json:"touched,omitempty"`
	Entries  []Entry            `json:"entries,omitempty"`
	Seen     []string           `json:"seen,omitempty"`
}

type storedSpend struct {
	At    time.Time `json:"at"`
	Units float64   `json:"units"`
}

// load reads the file, if there is one.
func (m *Manager) load() error {
	if m.o.File == "" {
		return nil
	}
	b, err := os.ReadFile(m.o.File)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("watch.file %s: %w", m.o.File, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.decode(b, "watch.file "+m.o.File, "move it away to start without its watches")
}

// decode replaces the state with the store b (the file, or the cluster's
// copy), naming from in an error, with fix as the way out; m.mu is held.
func (m *Manager) decode(b []byte, from, fix string) error {
	var s stored
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s: not a watch store (%v); %s", from, err, fix)
	}
	if s.Version != storeVersion {
		return fmt.Errorf("%s: format version %d, this BesluitBron reads version %d", from, s.Version, storeVersion)
	}
	watches, secrets, groups := map[string]*Watch{}, map[string]*Watch{}, map[string]*group{}
	var turns uint64
	for _, sg := range s.Groups {
		g := newGroup(sg.Query)
		g.lastPoll, g.prevPoll, g.claimed, g.lastOK, g.polls, g.lastErr, g.turn = sg.LastPoll, sg.PrevPoll, sg.Claimed, sg.LastOK, sg.Polls, sg.LastErr, sg.Turn
		turns = max(turns, sg.Turn)
		g.touched, g.entries = sg.Touched, sg.Entries
		for p, c := range sg.Cost {
			g.cost[p] = c
		}
		for _, k := range sg.Seen {
			g.see(k)
		}
		groups[sg.Query.key()] = g
	}
	for _, w := range s.Watches {
		if w == nil || w.ID == "" || len(w.Secret) != 32 {
			return fmt.Errorf("%s: a watch without its id or its 128-bit secret", from)
		}
		watches[w.ID] = w
		secrets[w.Secret] = w
		g := groups[w.Query.key()]
		if g == nil {
			g = newGroup(w.Query)
			groups[w.Query.key()] = g
		}
		g.watches[w.ID] = true
	}
	for k, g := range groups {
		if len(g.watches) == 0 {
			delete(groups, k)
		}
	}
	ledgers := map[string]*ledger{}
	for p, ss := range s.Spent {
		l := &ledger{total: s.Total[p]}
		for _, sp := range ss {
			l.spends = append(l.spends, spend{sp.At, sp.Units})
		}
		ledgers[p] = l
	}
	m.watches, m.secrets, m.groups, m.ledger = watches, secrets, groups, ledgers
	m.turns = max(m.turns, turns)
	for p, c := range s.Typical {
		m.typical[p] = c
	}
	return nil
}

// encode is the whole state as the store keeps it; m.mu is held.
func (m *Manager) encode() ([]byte, error) {
	s := stored{Version: storeVersion, Spent: map[string][]storedSpend{}, Total: map[string]float64{}, Typical: m.typical}
	for _, w := range m.watches {
		s.Watches = append(s.Watches, w)
	}
	for _, g := range m.groups {
		s.Groups = append(s.Groups, storedGroup{Query: g.q, LastPoll: g.lastPoll, PrevPoll: g.prevPoll, Claimed: g.claimed, LastOK: g.lastOK, Polls: g.polls, Turn: g.turn,
			LastErr: g.lastErr, Cost: g.cost, Touched: g.touched, Entries: g.entries, Seen: g.order})
	}
	for p, l := range m.ledger {
		s.Total[p] = l.total
		for _, sp := range l.spends {
			s.Spent[p] = append(s.Spent[p], storedSpend{sp.at, sp.units})
		}
	}
	return json.Marshal(s)
}

// persist saves, logging a failure: a poll or a change goes on whether
// the disk took it or not.
func (m *Manager) persist() {
	if err := m.save(); err != nil {
		m.log.Warn("watches not saved", "file", m.o.File, "error", err)
	}
}

// save writes the whole store to a temporary file beside the file and
// renames it over the file, so that a crash leaves the old store or the
// new one, never half of one. Saves run one at a time, each with the
// state at its start.
func (m *Manager) save() error {
	if m.o.File == "" || m.o.Shared != nil {
		return nil
	}
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	m.mu.Lock()
	if len(m.watches) == 0 {
		if _, err := os.Stat(m.o.File); errors.Is(err, os.ErrNotExist) {
			// Nothing to keep and nothing kept: no file for a server
			// whose users never made a watch.
			m.mu.Unlock()
			return nil
		}
	}
	b, err := m.encode()
	m.mu.Unlock()
	if err != nil {
		return err
	}
	dir := filepath.Dir(m.o.File)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".watches-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The secrets are in it: readable by the server's user only.
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, m.o.File)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
