package cache

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/VictoriaMetrics/fastcache"
)

// fitsBig mirrors fastcache's placement: a value it accepts is readable
// right after SetBig, even into a cache full of other entries, and the
// values it refuses really are lost. If a fastcache upgrade changes the
// geometry this test fails.
func TestFitsBigMatchesFastcache(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mb := range []int{32, 64} {
		c := fastcache.New(mb << 20)
		t.Cleanup(c.Reset)
		filler := make([]byte, 3000)
		accepted, refused, lostWhenRefused := 0, 0, 0
		src := rand.NewChaCha8([32]byte{byte(mb)})
		rounds := 150
		if raceEnabled {
			rounds = 30
		}
		for i := range rounds {
			// Background traffic so buckets are at arbitrary positions.
			for j := range 50 {
				c.Set(fmt.Appendf(nil, "f%d-%d", i, j), filler[:rng.IntN(len(filler))])
			}
			v := make([]byte, fcChunk+rng.IntN(mb<<20/16))
			src.Read(v)
			k := fmt.Appendf(nil, "big%d", i)
			fits := fitsBig(k, v, mb<<20)
			c.SetBig(k, v)
			got := c.GetBig(nil, k)
			switch {
			case fits && string(got) != string(v):
				t.Fatalf("%d MiB: value %d of %d bytes accepted but not readable", mb, i, len(v))
			case fits:
				accepted++
			default:
				refused++
				if string(got) != string(v) {
					lostWhenRefused++
				}
			}
		}
		t.Logf("%d MiB: %d accepted, %d refused (%d of those really lost)", mb, accepted, refused, lostWhenRefused)
		if accepted == 0 || refused == 0 || lostWhenRefused < refused*9/10 {
			t.Errorf("%d MiB: accepted %d, refused %d, lost when refused %d: the mirror is not fastcache's placement", mb, accepted, refused, lostWhenRefused)
		}
	}
}
