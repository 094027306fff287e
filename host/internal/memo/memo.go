package memo

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"sync"
	"time"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// maxValue caps one kept result; larger results (long lists) are rebuilt
// from the platform cache each time.
const maxValue = 1 << 20

// bigValue is where fastcache's Set silently drops an entry.
const bigValue = 60 << 10

// Store keeps tool results until they expire.
type Store struct {
	c   *fastcache.Cache
	now func() time.Time
	mu  sync.Mutex
	gen map[string]uint64
}

// New returns a store of about maxBytes (fastcache's minimum is 32 MiB).
// now is the clock (nil = time.Now).
func New(maxBytes int, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{c: fastcache.New(maxBytes), now: now, gen: map[string]uint64{}}
}

// Key is the key of a call: platform, the module's stamp, the platform's
// generation, the tool and the arguments in canonical form (object keys
// sorted, insignificant space removed). ok is false for arguments that are
// not a JSON object.
func (s *Store) Key(platform, stamp, tool string, args json.RawMessage) (key []byte, ok bool) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, false
	}
	canon, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return nil, false
	}
	s.mu.Lock()
	g := s.gen[platform]
	s.mu.Unlock()
	var b bytes.Buffer
	b.WriteString(platform)
	b.WriteByte(0)
	b.WriteString(stamp)
	b.WriteByte(0)
	b.Write(binary.AppendUvarint(nil, g))
	b.WriteByte(0)
	b.WriteString(tool)
	b.WriteByte(0)
	b.Write(canon)
	return b.Bytes(), true
}

// kept is a stored value after its expiry.
type kept struct {
	Result  connector.CallResult `json:"r"`
	Classes []string             `json:"c,omitempty"`
}

// Get returns a kept result that has not expired, and the cache classes of
// the answers it was built from.
func (s *Store) Get(key []byte) (connector.CallResult, []string, bool) {
	v := s.c.GetBig(nil, key)
	if len(v) == 0 {
		v = s.c.Get(nil, key)
	}
	if len(v) < 8 {
		return connector.CallResult{}, nil, false
	}
	until := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
	if !s.now().Before(until) {
		s.c.Del(key)
		return connector.CallResult{}, nil, false
	}
	var k kept
	if err := json.Unmarshal(v[8:], &k); err != nil {
		s.c.Del(key)
		return connector.CallResult{}, nil, false
	}
	return k.Result, k.Classes, true
}

// Put keeps res, built from cached answers of classes, until until. Errors
// and results past maxValue are not kept.
func (s *Store) Put(key []byte, res connector.CallResult, classes []string, until time.Time) {
	if res.IsError || !s.now().Before(until) {
		return
	}
	body, err := json.Marshal(kept{Result: res, Classes: classes})
	if err != nil || len(body)+8 > maxValue {
		return
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(body)), uint64(until.UnixNano()))
	v = append(v, body...)
	if len(key)+len(v)+4 >= bigValue {
		s.c.SetBig(key, v)
		return
	}
	s.c.Set(key, v)
}

// Clear forgets every kept result of platform (its keys change).
func (s *Store) Clear(platform string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen[platform]++
}
