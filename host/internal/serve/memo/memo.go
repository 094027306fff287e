package memo

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/maphash"
	"sync"
	"sync/atomic"
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
	c     *fastcache.Cache
	now   func() time.Time
	mu    sync.Mutex
	gen   map[string]uint64
	canon canonCache
}

// canonCache remembers the canonical form of recently seen argument bytes.
// A repeated question arrives as the same bytes, and decoding them only to
// encode them again was the largest part of answering it from a kept
// result (RATIONALE, "What a repeated call costs"). It is direct-mapped:
// a slot per hash, a newer entry replacing an older one, so it needs no
// eviction and holds at most canonSlots entries of canonMaxArgs bytes.
type canonCache struct {
	seed  maphash.Seed
	slots [canonSlots]atomic.Pointer[canonEntry]
}

const (
	canonSlots   = 1024
	canonMaxArgs = 1024
)

type canonEntry struct {
	raw   string
	canon []byte
}

func (c *canonCache) slot(raw []byte) *atomic.Pointer[canonEntry] {
	return &c.slots[maphash.Bytes(c.seed, raw)%canonSlots]
}

func (c *canonCache) get(raw []byte) ([]byte, bool) {
	if len(raw) > canonMaxArgs {
		return nil, false
	}
	if e := c.slot(raw).Load(); e != nil && e.raw == string(raw) {
		return e.canon, true
	}
	return nil, false
}

func (c *canonCache) put(raw, canon []byte) {
	if len(raw) > canonMaxArgs {
		return
	}
	c.slot(raw).Store(&canonEntry{raw: string(raw), canon: canon})
}

// New returns a store of about maxBytes (fastcache's minimum is 32 MiB).
// now is the clock (nil = time.Now).
func New(maxBytes int, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{c: fastcache.New(maxBytes), now: now, gen: map[string]uint64{}, canon: canonCache{seed: maphash.MakeSeed()}}
}

// Key is the key of a call: platform, the module's stamp, the platform's
// generation, the tool and the arguments in canonical form (object keys
// sorted, insignificant space removed). ok is false for arguments that are
// not a JSON object.
func (s *Store) Key(platform, stamp, tool string, args json.RawMessage) (key []byte, ok bool) {
	canon, ok := s.canon.get(args)
	if !ok {
		var v map[string]any
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || v == nil {
			return nil, false
		}
		var err error
		if canon, err = json.Marshal(v); err != nil { // maps marshal with sorted keys
			return nil, false
		}
		s.canon.put(args, canon)
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
	k, err := decode(v[8:])
	if err != nil {
		s.c.Del(key)
		return connector.CallResult{}, nil, false
	}
	return k.Result, k.Classes, true
}

// Values are binary in the common case (text, structured JSON, classes):
// decoding JSON to check JSON again cost more than the rest of a repeated
// call. Results with rich content items fall back to JSON.
const (
	formatBinary byte = 1
	formatJSON   byte = 2
)

func encode(k kept) ([]byte, error) {
	if len(k.Result.Content) > 0 {
		b, err := json.Marshal(k)
		return append([]byte{formatJSON}, b...), err
	}
	b := []byte{formatBinary}
	b = binary.AppendUvarint(b, uint64(len(k.Result.Text)))
	b = append(b, k.Result.Text...)
	b = binary.AppendUvarint(b, uint64(len(k.Result.Structured)))
	b = append(b, k.Result.Structured...)
	b = binary.AppendUvarint(b, uint64(len(k.Classes)))
	for _, c := range k.Classes {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b, nil
}

var errCorrupt = errors.New("memo: corrupt value")

func decode(b []byte) (kept, error) {
	var k kept
	if len(b) == 0 {
		return k, errCorrupt
	}
	if b[0] == formatJSON {
		err := json.Unmarshal(b[1:], &k)
		return k, err
	}
	if b[0] != formatBinary {
		return k, errCorrupt
	}
	b = b[1:]
	next := func() ([]byte, bool) {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return nil, false
		}
		v := b[w : w+int(n)]
		b = b[w+int(n):]
		return v, true
	}
	text, ok1 := next()
	structured, ok2 := next()
	n, w := binary.Uvarint(b)
	if !ok1 || !ok2 || w <= 0 || n > 1<<16 {
		return k, errCorrupt
	}
	b = b[w:]
	k.Result.Text = string(text)
	if len(structured) > 0 {
		k.Result.Structured = append(json.RawMessage(nil), structured...)
	}
	for range n {
		c, ok := next()
		if !ok {
			return k, errCorrupt
		}
		k.Classes = append(k.Classes, string(c))
	}
	return k, nil
}

// Put keeps res, built from cached answers of classes, until until. Errors
// and results past maxValue are not kept.
func (s *Store) Put(key []byte, res connector.CallResult, classes []string, until time.Time) {
	if res.IsError || !s.now().Before(until) {
		return
	}
	body, err := encode(kept{Result: res, Classes: classes})
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
