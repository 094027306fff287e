package cache

import (
	"sync"
	"time"

	"github.com/VictoriaMetrics/fastcache"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the Prometheus figures of every [Store] opened with them:
// counters per platform and class, and gauges per platform read from the
// caches at each scrape. Build one per registry with [NewMetrics]; a nil
// *Metrics is valid and records nothing. Safe for concurrent use.
type Metrics struct {
	hits, misses, stale, coalesced, discards, oversize, stored, storedBytes *prometheus.CounterVec
	textsKept, textPages                                                    *prometheus.CounterVec
	saves                                                                   *prometheus.CounterVec
	saveSeconds                                                             *prometheus.GaugeVec

	entries, memory, capacity, waiting *prometheus.Desc

	mu     sync.Mutex
	stores []*Store
}

// NewMetrics registers the cache figures on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	pc := []string{"platform", "class"}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "besluitbron_cache_" + name, Help: help}, pc)
	}
	m := &Metrics{
		hits:        counter("hits_total", "Fetches answered from the cache."),
		misses:      counter("misses_total", "Fetches the cache could not answer (they went to the platform)."),
		stale:       counter("stale_total", "Expired entries served because the platform failed."),
		coalesced:   counter("coalesced_total", "Misses that shared another caller's identical upstream request."),
		discards:    counter("version_discards_total", "Entries discarded on read because another BesluitBron version or connector module wrote them."),
		oversize:    counter("oversize_refusals_total", "Responses not stored because they exceed 1/8 of the platform's cache size."),
		stored:      counter("stored_total", "Responses written to the cache."),
		storedBytes: counter("stored_bytes_total", "Bytes written to the cache (encoded entries)."),
		textsKept:   counter("texts_kept_total", "Texts a connector extracted from documents and the cache keeps, paged (one per extraction)."),
		textPages:   counter("text_pages_total", "Pages of kept texts served without the connector extracting again."),
		saves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "besluitbron_cache_saves_total", Help: "Saves of a platform's cache to disk, by result (ok, error, meta_only).",
		}, []string{"platform", "result"}),
		saveSeconds: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "besluitbron_cache_last_save_seconds", Help: "Duration of the last full save of a platform's cache.",
		}, []string{"platform"}),
		entries:  prometheus.NewDesc("besluitbron_cache_entries", "Entries held (a value over 64 KB counts once per 64 KB piece).", []string{"platform"}, nil),
		memory:   prometheus.NewDesc("besluitbron_cache_memory_bytes", "Memory the platform's cache occupies.", []string{"platform"}, nil),
		capacity: prometheus.NewDesc("besluitbron_cache_capacity_bytes", "The platform's cache budget (connectors.<id>.cache_mb).", []string{"platform"}, nil),
		waiting:  prometheus.NewDesc("besluitbron_cache_waiting", "Fetches waiting now for a platform answer that a cache miss asked for (shared by identical requests).", []string{"platform"}, nil),
	}
	reg.MustRegister(m.hits, m.misses, m.stale, m.coalesced, m.discards, m.oversize, m.stored, m.storedBytes, m.textsKept, m.textPages, m.saves, m.saveSeconds, m)
	return m
}

func (m *Metrics) add(s *Store) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stores = append(m.stores, s)
}

func (m *Metrics) remove(s *Store) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.stores {
		if x == s {
			m.stores = append(m.stores[:i], m.stores[i+1:]...)
			return
		}
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.entries
	ch <- m.memory
	ch <- m.capacity
	ch <- m.waiting
}

// Collect implements prometheus.Collector: the gauges per platform.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	stores := append([]*Store(nil), m.stores...)
	m.mu.Unlock()
	for _, s := range stores {
		var st fastcache.Stats
		s.c.UpdateStats(&st)
		ch <- prometheus.MustNewConstMetric(m.entries, prometheus.GaugeValue, float64(st.EntriesCount), s.o.Platform)
		ch <- prometheus.MustNewConstMetric(m.memory, prometheus.GaugeValue, float64(st.BytesSize), s.o.Platform)
		ch <- prometheus.MustNewConstMetric(m.capacity, prometheus.GaugeValue, float64(s.o.MaxBytes), s.o.Platform)
		ch <- prometheus.MustNewConstMetric(m.waiting, prometheus.GaugeValue, float64(s.flights.waiting()), s.o.Platform)
	}
}

// bind attaches a class's Prometheus counters, resolved once so that a
// hit does not pay for a label lookup.
func (m *Metrics) bind(platform string, c *class) {
	if m == nil {
		return
	}
	c.hits.p = m.hits.WithLabelValues(platform, c.name)
	c.misses.p = m.misses.WithLabelValues(platform, c.name)
	c.stale.p = m.stale.WithLabelValues(platform, c.name)
	c.coalesced.p = m.coalesced.WithLabelValues(platform, c.name)
	c.discards.p = m.discards.WithLabelValues(platform, c.name)
	c.oversize.p = m.oversize.WithLabelValues(platform, c.name)
	c.stored.p = m.stored.WithLabelValues(platform, c.name)
	c.storedBytes.p = m.storedBytes.WithLabelValues(platform, c.name)
	c.textsKept.p = m.textsKept.WithLabelValues(platform, c.name)
	c.textPages.p = m.textPages.WithLabelValues(platform, c.name)
}

// saved records one save's result.
func (m *Metrics) saved(platform string, err error, kind string, took time.Duration) {
	if m == nil {
		return
	}
	if err != nil {
		kind = "error"
	} else if kind == "ok" {
		m.saveSeconds.WithLabelValues(platform).Set(took.Seconds())
	}
	m.saves.WithLabelValues(platform, kind).Inc()
}

var _ prometheus.Collector = (*Metrics)(nil)
