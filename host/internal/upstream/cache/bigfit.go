package cache

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// fastcache geometry (v1.13): 512 buckets, each a ring of 64 KiB chunks;
// SetBig cuts a value into pieces of maxPiece bytes stored under the
// subkeys (xxhash(value), i) and then writes a 16-byte index under the
// key. A piece fills a whole chunk, so a bucket that receives more pieces
// (plus the index) than it has chunks overwrites the first ones and the
// value can never be read back. fastcache gives no sign of that.
const (
	fcBuckets   = 512
	fcChunk     = 64 << 10
	fcMaxPiece  = fcChunk - 16 - 4 - 1
	fcIndexSize = 16
)

// fitsBig reports whether SetBig(k, v) into a cache of maxBytes leaves v
// readable: no bucket receives more pieces than it has chunks. It mirrors
// fastcache's placement exactly, so the refusal is decided, not guessed;
// TestFitsBigMatchesFastcache guards the mirror against a fastcache
// upgrade. With 32 MiB (one chunk per bucket) even a few pieces often
// collide; with 256 MiB (eight) values up to about an eighth of the cache
// fit.
func fitsBig(k, v []byte, maxBytes int) bool {
	perBucket := ((maxBytes+fcBuckets-1)/fcBuckets + fcChunk - 1) / fcChunk
	var load [fcBuckets]int
	h := xxhash.Sum64(v)
	var sub [16]byte
	binary.BigEndian.PutUint64(sub[:8], h)
	for i := 0; i*fcMaxPiece < len(v); i++ {
		binary.BigEndian.PutUint64(sub[8:], uint64(i))
		b := xxhash.Sum64(sub[:]) % fcBuckets
		if load[b]++; load[b] > perBucket {
			return false
		}
	}
	b := xxhash.Sum64(k) % fcBuckets
	load[b]++
	return load[b] <= perBucket
}
