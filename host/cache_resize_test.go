package host_test

import (
	"context"
	"testing"
)

// TestCacheMBChangeKeepsCache: an admin who changes connectors.obv.cache_mb
// and restarts keeps obv's cache: the search asked before the restart is
// a hit after it, and the platform is not asked again (it used to start
// empty: "a resized cache starts empty").
func TestCacheMBChangeKeepsCache(t *testing.T) {
	p := newCachePlatform(t)
	dir := t.TempDir()
	for i, mb := range []string{"64", "128", "32"} {
		h, base := cacheHost(t, cacheConfig(t, p.URL, dir, "cache_mb = "+mb+"\n"), "1.0.0")
		cs := connect(t, base+mcpPath)
		want := "hit"
		if i == 0 {
			want = "miss"
		}
		if o := cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs)); o != want {
			t.Errorf("cache_mb = %s: %q, want %q", mb, o, want)
		}
		cs.Close()
		h.Close(context.Background())
	}
	if n := p.count("/api/search"); n != 1 {
		t.Errorf("the platform saw %d searches, want 1", n)
	}
}
