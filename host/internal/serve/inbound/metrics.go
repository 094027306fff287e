package inbound

import "github.com/prometheus/client_golang/prometheus"

var (
	descRefused = prometheus.NewDesc("besluitbron_mcp_rate_limited_total",
		"Requests to the MCP addresses refused with 429, by the limit that refused them.", []string{"layer"}, nil)
	descConnector = prometheus.NewDesc("besluitbron_mcp_rate_limited_connector_total",
		"Requests to the MCP addresses refused by a connector's limit, by connector (besluitbron: the calls that touch no connector).", []string{"connector"}, nil)
	descOrigin = prometheus.NewDesc("besluitbron_mcp_origin_refused_total",
		"Requests to the MCP addresses refused with 403 for their Origin.", nil, nil)
	descTracked = prometheus.NewDesc("besluitbron_mcp_rate_limit_buckets",
		"Per-session, per-client-address and per-authenticated-client buckets held now.", []string{"kind"}, nil)
	descPeak = prometheus.NewDesc("besluitbron_mcp_rate_limit_buckets_peak",
		"Most per-session, per-client-address and per-authenticated-client buckets ever held at once.", []string{"kind"}, nil)
)

// Collector exports a Guard's refusals per layer and per connector bucket,
// and its bucket counts.
type Collector struct{ g *Guard }

// NewCollector returns a collector over g; register it once.
func NewCollector(g *Guard) *Collector { return &Collector{g: g} }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRefused, descConnector, descOrigin, descTracked, descPeak} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descOrigin, prometheus.CounterValue, float64(c.g.OriginRefused()))
	var st Stats
	if l := c.g.Limits(); l != nil {
		st = l.Stats()
	}
	for _, layer := range Layers {
		ch <- prometheus.MustNewConstMetric(descRefused, prometheus.CounterValue, float64(st.Refused[layer]), layer.String())
	}
	for _, c := range st.Connectors {
		ch <- prometheus.MustNewConstMetric(descConnector, prometheus.CounterValue, float64(c.Refused), c.Connector)
	}
	ch <- prometheus.MustNewConstMetric(descTracked, prometheus.GaugeValue, float64(st.Sessions), "session")
	ch <- prometheus.MustNewConstMetric(descTracked, prometheus.GaugeValue, float64(st.IPs), "ip")
	ch <- prometheus.MustNewConstMetric(descPeak, prometheus.GaugeValue, float64(st.PeakSessions), "session")
	ch <- prometheus.MustNewConstMetric(descPeak, prometheus.GaugeValue, float64(st.PeakIPs), "ip")
	ch <- prometheus.MustNewConstMetric(descTracked, prometheus.GaugeValue, float64(st.Clients), "client")
	ch <- prometheus.MustNewConstMetric(descPeak, prometheus.GaugeValue, float64(st.PeakClients), "client")
	ch <- prometheus.MustNewConstMetric(descTracked, prometheus.GaugeValue, float64(st.Named), "named")
	ch <- prometheus.MustNewConstMetric(descPeak, prometheus.GaugeValue, float64(st.PeakNamed), "named")
}

var _ prometheus.Collector = (*Collector)(nil)
