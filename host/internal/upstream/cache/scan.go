package cache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/golang/snappy"
)

// ClassContent is what a saved snapshot holds of one class.
type ClassContent struct {
	// Entries and Bytes count the class's values (a large value once, at
	// its full size).
	Entries, Bytes uint64
	// Expired counts entries past their expiry or the class's TTL at the
	// time given to [Scan]; they are only served as stale.
	Expired uint64
	// OtherVersion counts entries stamped by another build than the one
	// given to [Scan]; that build discards them when they are requested.
	OtherVersion uint64
}

// fastcache's saved layout (v1.13, file.go): metadata.bin holds the number
// of chunks per bucket; each data.N.bin is a snappy stream of buckets:
// number, idx, gen, the map (count, then hash and position pairs), the
// number of chunks and the chunks. A position is gen<<40 | offset; the
// entry there is 2-byte key length, 2-byte value length, key, value.
const (
	fcBucketBits = 40
	fcGenBits    = 64 - fcBucketBits
	fcMaxGen     = 1<<fcGenBits - 1
)

// Scan counts what the snapshot m holds per class, judging expiry at now
// and versions against stamp. It verifies the snapshot's checksums first.
// It reads fastcache's file format directly (fastcache cannot list its
// entries); TestScanCountsPerClass guards that against an upgrade.
func Scan(m Saved, stamp uint64, now time.Time) (map[string]ClassContent, error) {
	data := filepath.Join(m.Dir, dataName)
	got, err := checksums(data, false)
	if err != nil {
		return nil, err
	}
	for f, sum := range m.Files {
		if got[f] != sum {
			return nil, fmt.Errorf("data file %s is damaged or missing", f)
		}
	}
	var pieces = map[[16]byte][]byte{}
	type kv struct{ k, v []byte }
	var entries []kv
	names, _ := filepath.Glob(filepath.Join(data, "data.*.bin"))
	for _, name := range names {
		err := readBuckets(name, func(k, v []byte) {
			if len(k) == 16 { // maybe a piece of a large value: (hash, index)
				pieces[[16]byte(k)] = v
			}
			entries = append(entries, kv{k, v})
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	out := map[string]ClassContent{}
	for _, e := range entries {
		class := classOf(e.k)
		if _, ok := m.TTL[class]; !ok {
			continue
		}
		v := e.v
		size := uint64(len(v))
		if len(v) == 16 { // index of a large value: its first piece starts with the header
			size = binary.BigEndian.Uint64(v[8:])
			var first [16]byte
			copy(first[:8], v[:8])
			if v = pieces[first]; v == nil {
				continue // a piece was evicted: the value is gone
			}
		}
		st, written, expires, err := peek(v)
		if err != nil {
			continue
		}
		c := out[class]
		c.Entries++
		c.Bytes += size
		if st != stamp {
			c.OtherVersion++
		}
		if !now.Before(expires) || !now.Before(written.Add(m.TTL[class])) {
			c.Expired++
		}
		out[class] = c
	}
	return out, nil
}

var errLayout = errors.New("not fastcache's saved layout")

// readBuckets calls f for every live entry of one data file. The slices
// stay valid after it returns.
func readBuckets(name string, f func(k, v []byte)) error {
	file, err := os.Open(name)
	if err != nil {
		return err
	}
	defer file.Close()
	r := bufio.NewReader(snappy.NewReader(file))
	u64 := func() (uint64, error) {
		var b [8]byte
		_, err := io.ReadFull(r, b[:])
		return binary.LittleEndian.Uint64(b[:]), err
	}
	for {
		if _, err := u64(); err == io.EOF { // bucket number
			return nil
		} else if err != nil {
			return err
		}
		idx, err1 := u64()
		gen, err2 := u64()
		n, err3 := u64()
		if err := errors.Join(err1, err2, err3); err != nil {
			return err
		}
		if n > 1<<28 {
			return errLayout
		}
		pos := make([]uint64, 0, n)
		for range n {
			_, err1 := u64()
			p, err2 := u64()
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			pos = append(pos, p)
		}
		chunks, err := u64()
		if err != nil {
			return err
		}
		if chunks > 1<<16 {
			return errLayout
		}
		buf := make([]byte, chunks*fcChunk)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		bGen := gen & fcMaxGen
		for _, p := range pos {
			g, i := p>>fcBucketBits, p&(1<<fcBucketBits-1)
			live := g == bGen && i < idx || g+1 == bGen && i >= idx || g == fcMaxGen && bGen == 1 && i >= idx
			if !live || i+4 > uint64(len(buf)) {
				continue
			}
			kl := uint64(buf[i])<<8 | uint64(buf[i+1])
			vl := uint64(buf[i+2])<<8 | uint64(buf[i+3])
			if i+4+kl+vl > uint64(len(buf)) {
				continue
			}
			f(buf[i+4:i+4+kl], buf[i+4+kl:i+4+kl+vl])
		}
	}
}
