package cache_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// gather returns every sample as "name{label=value,…}" → value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			name := mf.GetName() + "{"
			for i, l := range m.Label {
				if i > 0 {
					name += ","
				}
				name += l.GetName() + "=" + l.GetValue()
			}
			name += "}"
			switch {
			case m.Counter != nil:
				out[name] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[name] = m.Gauge.GetValue()
			}
		}
	}
	return out
}

func TestMetricsPerPlatformAndClass(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := cache.NewMetrics(reg)
	obv := newEnv(t, func(o *cache.Options) { o.Metrics = m; o.Dir = t.TempDir() })
	tk := newEnv(t, func(o *cache.Options) { o.Metrics, o.Platform = m, "tk" })

	obv.expect("search", "a", &upstream{body: "x"}, callinfo.Miss, 1)
	obv.expect("search", "a", &upstream{}, callinfo.Hit, 0)
	obv.expect("search", "a", &upstream{}, callinfo.Hit, 0)
	obv.expect("document", "big", &upstream{body: string(make([]byte, 5<<20))}, callinfo.Miss, 1)
	obv.clock.Advance(11 * 60e9)
	obv.expect("search", "a", &upstream{status: 503}, callinfo.Stale, 1)
	tk.expect("list", "l", &upstream{body: "y"}, callinfo.Miss, 1)
	if err := obv.s.Save(); err != nil {
		t.Fatal(err)
	}
	obv.reopen(func(o *cache.Options) { o.Version = "2" })
	obv.expect("list", "never", &upstream{body: "z"}, callinfo.Miss, 1)
	obv.expect("search", "a", &upstream{body: "x2"}, callinfo.Miss, 1)

	got := gather(t, reg)
	want := map[string]float64{
		"besluitbron_cache_hits_total{class=search,platform=obv}":                2,
		"besluitbron_cache_misses_total{class=search,platform=obv}":              2,
		"besluitbron_cache_misses_total{class=document,platform=obv}":            1,
		"besluitbron_cache_misses_total{class=list,platform=obv}":                1,
		"besluitbron_cache_misses_total{class=list,platform=tk}":                 1,
		"besluitbron_cache_stale_total{class=search,platform=obv}":               1,
		"besluitbron_cache_version_discards_total{class=search,platform=obv}":    1,
		"besluitbron_cache_oversize_refusals_total{class=document,platform=obv}": 1,
		"besluitbron_cache_stored_total{class=search,platform=obv}":              2,
		"besluitbron_cache_stored_total{class=list,platform=tk}":                 1,
		"besluitbron_cache_saves_total{platform=obv,result=ok}":                  1,
		"besluitbron_cache_capacity_bytes{platform=obv}":                         cache.MinBytes,
		"besluitbron_cache_capacity_bytes{platform=tk}":                          cache.MinBytes,
		"besluitbron_cache_coalesced_total{class=search,platform=obv}":           0,
		"besluitbron_cache_version_discards_total{class=document,platform=obv}":  0,
		"besluitbron_cache_oversize_refusals_total{class=search,platform=obv}":   0,
		"besluitbron_cache_hits_total{class=list,platform=tk}":                   0,
		"besluitbron_cache_stored_bytes_total{class=list,platform=tk}":           got["besluitbron_cache_stored_bytes_total{class=list,platform=tk}"],
		"besluitbron_cache_entries{platform=tk}":                                 1,
		"besluitbron_cache_entries{platform=obv}":                                got["besluitbron_cache_entries{platform=obv}"],
		"besluitbron_cache_memory_bytes{platform=obv}":                           got["besluitbron_cache_memory_bytes{platform=obv}"],
		"besluitbron_cache_memory_bytes{platform=tk}":                            got["besluitbron_cache_memory_bytes{platform=tk}"],
		"besluitbron_cache_last_save_seconds{platform=obv}":                      got["besluitbron_cache_last_save_seconds{platform=obv}"],
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	if got["besluitbron_cache_stored_bytes_total{class=list,platform=tk}"] < 30 || got["besluitbron_cache_memory_bytes{platform=tk}"] <= 0 {
		t.Errorf("bytes not counted: %v", got)
	}
	// A closed store leaves the gauges.
	tk.s.Close()
	for k := range gather(t, reg) {
		if k == "besluitbron_cache_entries{platform=tk}" {
			t.Error("closed store still reported")
		}
	}
}
