package inbound

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// batchOf is a JSON-RPC batch of n tools/calls of tool.
func batchOf(n int, tool string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = call(tool)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Every message of a batch takes its token from every layer: the process,
// the connector it reaches, the session. A batch of more messages than a
// bucket holds now (though no more than its burst) is refused whole with
// 429 and a Retry-After after which it fits, taking nothing; once the
// bucket refills by that much it is admitted. It catches a batch charged
// as one request on any layer (one 137 KB POST admitting 1,000 calls), a
// refused batch that takes part of its tokens, and a Retry-After too
// short for the batch.
func TestGuardBatchTakesATokenPerMessageFromEveryLayer(t *testing.T) {
	for _, layer := range []struct {
		name string
		o    Options
	}{
		{"process", Options{Process: Limit{RPS: 1, Burst: 10}, Connector: generous, Session: generous, IP: generous, Connectors: []string{"obv"}}},
		{"connector obv", Options{Process: generous, Connector: Limit{RPS: 1, Burst: 10}, Session: generous, IP: generous, Connectors: []string{"obv"}}},
		{"session", Options{Process: generous, Connector: generous, Session: Limit{RPS: 1, Burst: 10}, IP: generous, Connectors: []string{"obv"}}},
	} {
		t.Run(layer.name, func(t *testing.T) {
			srv, _, inner, clk := startGuard(t, layer.o, nil)
			sid := post(t, srv.URL, "").Header.Get(SessionHeader) // initialize: one token of process and connector-less
			if sid == "" {
				t.Fatal("no session issued")
			}
			if layer.name == "process" {
				clk.advance(time.Second) // the process bucket full again
			}
			if res := postBody(t, srv.URL, sid, batchOf(7, "obv_search")); res.StatusCode != 200 {
				t.Fatalf("a batch of 7 in a bucket of 10: %s", res.Status)
			}
			// 3 tokens left: a batch of 4 is refused whole, naming the layer.
			res := postBody(t, srv.URL, sid, batchOf(4, "obv_search"))
			b := readBody(t, res)
			if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" || !strings.Contains(b.Error.Message, "the "+layer.name+" limit") {
				t.Fatalf("a batch of 4 with 3 tokens left: %s Retry-After %q %q", res.Status, res.Header.Get("Retry-After"), b.Error.Message)
			}
			// It took nothing: 3 single messages still pass, a fourth not.
			for i := range 3 {
				if res := postBody(t, srv.URL, sid, call("obv_search")); res.StatusCode != 200 {
					t.Fatalf("single %d after the refused batch: %s (the refused batch took tokens)", i, res.Status)
				}
			}
			if res := postBody(t, srv.URL, sid, call("obv_search")); res.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("an eleventh message in a bucket of 10: %s", res.Status)
			}
			// After the Retry-After of a batch of 4 (4 s at 1/s), it fits.
			clk.advance(4 * time.Second)
			if res := postBody(t, srv.URL, sid, batchOf(4, "obv_search")); res.StatusCode != 200 {
				t.Fatalf("the batch of 4 after 4 s: %s", res.Status)
			}
			if inner.body != batchOf(4, "obv_search") {
				t.Errorf("the handler read %q", inner.body)
			}
		})
	}
}

// A Guard without a Route still counts each message of a batch on the
// process and session (or address) layers. It catches a batch that costs
// one token when the routing is off.
func TestGuardBatchWithoutRoute(t *testing.T) {
	l := mustNew(t, Options{Process: generous, Connector: generous, Session: generous, IP: Limit{RPS: 1, Burst: 10}})
	clk := newFakeNow()
	inner := &fakeMCP{sessions: map[string]bool{}, legacy: map[string]bool{}}
	srv := httptest.NewServer(NewGuard(inner, GuardOptions{Limits: l, Now: clk.now}))
	t.Cleanup(srv.Close)
	if res := postBody(t, srv.URL+"/elsewhere", "", batchOf(8, "obv_search")); res.StatusCode != 200 {
		t.Fatalf("a batch of 8: %s", res.Status)
	}
	res := postBody(t, srv.URL+"/elsewhere", "", batchOf(3, "obv_search"))
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a batch of 3 with 2 tokens left: %s", res.Status)
	}
	if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra != 1 {
		t.Errorf("Retry-After %q, want 1 (one token short at 1/s)", res.Header.Get("Retry-After"))
	}
	// A batch larger than the burst itself: no wait admits it (413).
	if res := postBody(t, srv.URL+"/elsewhere", "", batchOf(11, "obv_search")); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a batch of 11 over a burst of 10: %s", res.Status)
	}
}

// A batch of more messages than the handler takes (MaxBatch) runs none of
// them: it costs one token, as one request, and reaches the handler to be
// refused there. It catches a refused batch charged its element count
// (issue 27: a refused batch of 1,000 emptied a session's bucket for
// nothing) and a batch within the cap charged as one.
func TestGuardBatchPastMaxBatchCostsOne(t *testing.T) {
	l := mustNew(t, Options{Process: generous, Connector: generous, Session: generous, IP: Limit{RPS: 1, Burst: 10}})
	clk := newFakeNow()
	inner := &fakeMCP{sessions: map[string]bool{}, legacy: map[string]bool{}}
	srv := httptest.NewServer(NewGuard(inner, GuardOptions{Limits: l, Now: clk.now, MaxBatch: 4}))
	t.Cleanup(srv.Close)
	for i := range 9 {
		if res := postBody(t, srv.URL+"/elsewhere", "", batchOf(5, "obv_search")); res.StatusCode != 200 {
			t.Fatalf("batch %d of 5 past a max_batch of 4: %s (charged per message)", i, res.Status)
		}
	}
	if inner.body != batchOf(5, "obv_search") {
		t.Errorf("the handler read %q, want the batch (for it to refuse)", inner.body)
	}
	// 1 token left: a batch of 2 within the cap costs 2.
	if res := postBody(t, srv.URL+"/elsewhere", "", batchOf(2, "obv_search")); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a batch of 2 with 1 token left: %s", res.Status)
	}
	if res := postBody(t, srv.URL+"/elsewhere", "", batchOf(1000, "obv_search")); res.StatusCode != 200 {
		t.Errorf("a batch of 1000 past max_batch with 1 token left: %s", res.Status)
	}
}
