package host_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStatusResourceSubscription: a client subscribed to
// besluitbron://status over streamable HTTP is told after a status round,
// reads the new state, and a platform document cannot be subscribed to.
// It catches the round not reaching the subscribers, a capability
// missing, and subscriptions accepted for documents that never change.
func TestStatusResourceSubscription(t *testing.T) {
	hits := new(atomic.Int64)
	up := fakeOBV(t, hits)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[status]
enabled = false
[connectors.obv]
module = "`+wasm+`"
base_url = "`+up.URL+`"
private_networks = ["127.0.0.0/8"]
`), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() { h.Close(context.Background()) })
	t.Cleanup(srv.Close)

	ctx := context.Background()
	updated := make(chan string, 4)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sub", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if c := cs.InitializeResult().Capabilities.Resources; c == nil || !c.Subscribe {
		t.Fatalf("capabilities.resources %+v: want subscribe", c)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "besluitbron://obv/document/x"}); err == nil || !strings.Contains(err.Error(), "besluitbron://status") {
		t.Fatalf("subscribing to a document: %v; want a refusal naming besluitbron://status", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "besluitbron://status"}); err != nil {
		t.Fatal(err)
	}
	before := hits.Load()
	host.CheckStatusNow(ctx, h)
	select {
	case u := <-updated:
		if u != "besluitbron://status" {
			t.Fatalf("updated %s", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated after a status round")
	}
	if hits.Load() == before {
		t.Fatal("the status round reached no platform: the test proves nothing")
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "besluitbron://status"})
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Platforms []struct {
			Platform string `json:"platform"`
			State    string `json:"state"`
		} `json:"platforms"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &st); err != nil || len(st.Platforms) != 1 || st.Platforms[0].State == "" {
		t.Fatalf("besluitbron://status after a round: %v %.300s", err, res.Contents[0].Text)
	}
}
