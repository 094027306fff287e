package cache

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/VictoriaMetrics/fastcache"
)

// rawFull is a fastcache of 256 MiB filled to about 90 % with 10 KB
// values, the same shape as BenchmarkSave256MB's.
func rawFull(b *testing.B) *fastcache.Cache {
	c := fastcache.New(256 << 20)
	b.Cleanup(c.Reset)
	v := make([]byte, 10_000)
	for i := range v {
		v[i] = byte('a' + i%26)
	}
	var st fastcache.Stats
	for i := 0; st.BytesSize < 256<<20*9/10; i++ {
		for j := range 1000 {
			v[0] = byte(j)
			c.Set(fmt.Appendf(nil, "doc-%d-%d", i, j), v)
		}
		st.Reset()
		c.UpdateStats(&st)
	}
	return c
}

// BenchmarkRawSave256MB is fastcache's SaveToFileConcurrent alone, the
// floor of BenchmarkSave256MB (which adds checksums, fsync and rename).
func BenchmarkRawSave256MB(b *testing.B) {
	c := rawFull(b)
	dir := filepath.Join(b.TempDir(), "data")
	for b.Loop() {
		if err := c.SaveToFileConcurrent(dir, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawLoad256MB is fastcache's LoadFromFileMaxBytes alone.
func BenchmarkRawLoad256MB(b *testing.B) {
	c := rawFull(b)
	dir := filepath.Join(b.TempDir(), "data")
	if err := c.SaveToFileConcurrent(dir, runtime.GOMAXPROCS(0)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l, err := fastcache.LoadFromFileMaxBytes(dir, 256<<20)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		l.Reset()
		b.StartTimer()
	}
}
