package host_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

// TestRuntimeMetrics: the connector runtime's pool and the fair admission to
// it are on /metrics.
func TestRuntimeMetrics(t *testing.T) {
	up := fakeOBV(t, nil)
	_, base := startHost(t, up.URL)
	cs := connect(t, base+"/mcp/unified/v1")
	if res := callTool(t, cs, "obv_list_sources", map[string]any{}); res.IsError {
		t.Fatal(text(res))
	}
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for name, min := range map[string]float64{
		`besluitbron_runtime_instances{platform="obv"}`:         1,
		`besluitbron_runtime_idle_memory_bytes{platform="obv"}`: 1 << 20,
		`besluitbron_admission_free_slots{platform="obv"}`:      1,
		`besluitbron_admission_waiting_calls{platform="obv"}`:   0,
	} {
		m := regexp.MustCompile(regexp.QuoteMeta(name) + ` (\S+)`).FindSubmatch(body)
		if m == nil {
			t.Errorf("/metrics lacks %s", name)
			continue
		}
		if v, _ := strconv.ParseFloat(string(m[1]), 64); v < min {
			t.Errorf("%s = %v, want ≥ %v", name, v, min)
		}
	}
}
