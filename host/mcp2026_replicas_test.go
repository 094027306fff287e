package host_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// roundRobin sends each request to the next replica in turn, as a load
// balancer without stickiness does, and counts what each received.
type roundRobin struct {
	mu       sync.Mutex
	replicas []*url.URL
	next     int
	sent     []int
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	rr.mu.Lock()
	i := rr.next % len(rr.replicas)
	rr.next++
	rr.sent[i]++
	rr.mu.Unlock()
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = rr.replicas[i].Scheme, rr.replicas[i].Host
	r.Host = rr.replicas[i].Host
	return http.DefaultTransport.RoundTrip(r)
}

// A 2026-07-28 client needs no sticky sessions: two replicas sharing
// OpenBesluitvorming's limit through Redis, each request sent to the next
// replica in turn, and the client discovers, lists and calls on both. An
// older client behind the same balancer cannot even connect: its session
// lives on the replica that made it (docs/scale-out.md's stickiness).
func TestMCP20260728NeedsNoStickySessions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two hosts with the WebAssembly connector and a redis-server")
	}
	redisURL := redistest.Start(t).URL()
	_, simURL := proofSim(t)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	rr := &roundRobin{sent: make([]int, 2)}
	for i := range 2 {
		cfg, err := host.LoadConfig(writeConfig(t, fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[status]
enabled = false
[mcp_rate_limit]
enabled = false
[cluster]
redis_url = %q
replica_id = "replica-%d"
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
`, proofCompileDir(t), filepath.Join(t.TempDir(), "cache"), redisURL, i+1, wasm, platformsim.BaseURLs(simURL)["obv"])), []string{})
		if err != nil {
			t.Fatal(err)
		}
		h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "replica", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h.Handler())
		t.Cleanup(func() {
			srv.Close()
			h.Close(context.Background())
		})
		u, _ := url.Parse(srv.URL)
		rr.replicas = append(rr.replicas, u)
	}
	endpoint := rr.replicas[0].String() + "/mcp/unified/v1"
	ctx := context.Background()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "modern", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rr}}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", v)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list on the next replica: %v", err)
	}
	for i, q := range []string{"woningbouw", "klimaat", "jeugdzorg", "begroting"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": q}})
		if err != nil || res.IsError {
			t.Fatalf("call %d (%s) round robin: %v %s", i, q, err, text(res))
		}
	}
	rr.mu.Lock()
	sent := append([]int(nil), rr.sent...)
	rr.mu.Unlock()
	if sent[0] < 3 || sent[1] < 3 {
		t.Fatalf("requests per replica %v: the balancer did not alternate", sent)
	}
	t.Logf("2026-07-28 over two replicas, round robin: discover, tools/list and 4 calls, requests per replica %v", sent)

	if old, err := mcp.NewClient(&mcp.Implementation{Name: "older", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rr}}, legacyClient); err == nil {
		_, err = old.ListTools(ctx, nil)
		old.Close()
		if err == nil {
			t.Error("a 2025-11-25 session worked round robin across replicas that do not share sessions: the contrast proves nothing")
		}
	}
}
