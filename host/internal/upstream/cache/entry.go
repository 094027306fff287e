package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Value layout (all integers big-endian):
//
//	[0]      format (1)
//	[1:9]    stamp: the first 8 bytes of sha256(BesluitBron version, module sha256)
//	[9:17]   write time, Unix nanoseconds
//	[17:25]  expiry, Unix nanoseconds
//	[25:27]  HTTP status
//	[27:29]  header count n
//	n × (uint16 name length, name, uint16 value length, value)
//	body (the rest)
//
// fastcache has no notion of time or version, so both travel in the value;
// the stamp is a digest because it is compared on every hit and must be
// small.
const (
	valueFormat = 1
	headerLen   = 29
	maxField    = 1<<16 - 1
)

// Stamp is the version stamp written into every entry: the first 8 bytes
// of sha256 over the BesluitBron version and the connector module's
// sha256. Two builds that differ in either never read each other's
// entries.
func Stamp(version, moduleSHA256 string) uint64 {
	h := sha256.Sum256([]byte(version + "\x00" + moduleSHA256))
	return binary.BigEndian.Uint64(h[:8])
}

// entry is one decoded value.
type entry struct {
	stamp   uint64
	written time.Time
	expires time.Time
	resp    connector.FetchResponse
}

var errCorrupt = errors.New("cache: corrupt entry")

// validUntil is when the entry stops being fresh under the class's TTL now
// configured (which an admin may have shortened since it was written).
func (e *entry) validUntil(ttl time.Duration) time.Time {
	if t := e.written.Add(ttl); t.Before(e.expires) {
		return t
	}
	return e.expires
}

// encodedLen returns the length of the encoded value, or -1 when a header
// is too long for the format (such a response is not cached).
func encodedLen(r connector.FetchResponse) int {
	n := headerLen + len(r.Body)
	for k, v := range r.Header {
		if len(k) > maxField || len(v) > maxField {
			return -1
		}
		n += 4 + len(k) + len(v)
	}
	if len(r.Header) > maxField || r.Status < 0 || r.Status > maxField {
		return -1
	}
	return n
}

// appendEntry appends the encoding of e to dst.
func appendEntry(dst []byte, e *entry) []byte {
	dst = append(dst, valueFormat)
	dst = binary.BigEndian.AppendUint64(dst, e.stamp)
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.written.UnixNano()))
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.expires.UnixNano()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(e.resp.Status))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(e.resp.Header)))
	for k, v := range e.resp.Header {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(k)))
		dst = append(dst, k...)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
		dst = append(dst, v...)
	}
	return append(dst, e.resp.Body...)
}

// peek reads the fixed part of a value: enough to decide hit, stale or
// discard without decoding headers and body.
func peek(v []byte) (stamp uint64, written, expires time.Time, err error) {
	if len(v) < headerLen || v[0] != valueFormat {
		return 0, time.Time{}, time.Time{}, errCorrupt
	}
	stamp = binary.BigEndian.Uint64(v[1:9])
	written = time.Unix(0, int64(binary.BigEndian.Uint64(v[9:17])))
	expires = time.Unix(0, int64(binary.BigEndian.Uint64(v[17:25])))
	return stamp, written, expires, nil
}

// decodeEntry decodes a whole value. The body aliases v.
func decodeEntry(v []byte) (entry, error) {
	var e entry
	var err error
	if e.stamp, e.written, e.expires, err = peek(v); err != nil {
		return e, err
	}
	e.resp.Status = int(binary.BigEndian.Uint16(v[25:27]))
	n := int(binary.BigEndian.Uint16(v[27:29]))
	rest := v[headerLen:]
	field := func() (string, bool) {
		if len(rest) < 2 {
			return "", false
		}
		l := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+l {
			return "", false
		}
		s := string(rest[2 : 2+l])
		rest = rest[2+l:]
		return s, true
	}
	if n > 0 {
		e.resp.Header = make(map[string]string, n)
	}
	for range n {
		k, ok1 := field()
		val, ok2 := field()
		if !ok1 || !ok2 {
			return e, errCorrupt
		}
		e.resp.Header[k] = val
	}
	e.resp.Body = rest
	return e, nil
}

// complete reports whether a response's body has the length its
// Content-Length announced. A truncated body must never be stored.
func complete(r connector.FetchResponse) bool {
	for k, v := range r.Header {
		if len(k) == len("Content-Length") && equalFold(k, "Content-Length") {
			n, err := strconv.ParseInt(v, 10, 64)
			// A HEAD answer announces a length but carries no body.
			return err != nil || len(r.Body) == 0 || n == int64(len(r.Body))
		}
	}
	return true
}

func equalFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// maxKey is the longest key stored as is; longer keys (long URLs or many
// query parameters) are replaced by their sha256, which still describes
// the request completely and keeps each entry small.
const maxKey = 512

// keySep separates the class from the key in a stored key. The class
// comes first so that a saved cache can be counted per class.
const keySep = 0x1f

// storeKey is the fastcache key of (class, key).
func storeKey(class, key string) []byte {
	k := make([]byte, 0, len(class)+1+min(len(key), 1+2*sha256.Size))
	k = append(k, class...)
	k = append(k, keySep)
	if len(key) <= maxKey {
		return append(k, key...)
	}
	h := sha256.Sum256([]byte(key))
	k = append(k, '#')
	return hex.AppendEncode(k, h[:])
}

// classOf returns the class of a stored key, or "" for a key that is not
// one (a piece of a large value).
func classOf(k []byte) string {
	for i, c := range k {
		if c == keySep {
			return string(k[:i])
		}
	}
	return ""
}
