package mcpserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// A subscribable host resource: subscribing works and the subscriber is
// told of updates until it unsubscribes; a platform document's URI is
// refused with the list of what can be subscribed to; the unified
// address advertises the capability and marks the resource, while a
// connector's own address without subscribable resources does not
// advertise it. It catches a capability promising notifications for
// documents, and updates sent to sessions that did not subscribe.
func TestSubscribeToWhatChanges(t *testing.T) {
	ctx := context.Background()
	state := "eerste ronde"
	s, err := New(Options{Version: "test", Platforms: []Platform{fixtures(t, nil, "")}, Logger: quiet,
		HostResources: []HostResource{{
			Resource:     &mcp.Resource{URI: "besluitbron://status", Name: "laadstatus", MIMEType: "application/json"},
			Read:         func(context.Context) (string, error) { return state, nil },
			Subscribable: true,
		}}})
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan string, 10)
	// Over streamable HTTP, as clients meet it: sessions there negotiate
	// 2025-11-25, whose resources/subscribe this is (2026-07-28 replaces
	// it with subscriptions/listen, on stateless transports only).
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close) // after the sessions' cleanups: they close first
	connect := func(path string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updates <- r.Params.URI },
		}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + path}, legacyVersion)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	cs := connect("/mcp/unified/v1")
	if c := cs.InitializeResult().Capabilities.Resources; c == nil || !c.Subscribe {
		t.Fatalf("unified capabilities %+v: want resources.subscribe", c)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		want := r.URI == "besluitbron://status" || r.URI == "besluitbron://conformance/watched-resource"
		if got := r.Meta["subscribable"] == true; got != want {
			t.Errorf("%s: _meta.subscribable %v", r.URI, r.Meta["subscribable"])
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "besluitbron://conformance/static-text"}); err == nil ||
		!strings.Contains(err.Error(), "cannot be subscribed to") || !strings.Contains(err.Error(), "besluitbron://status") {
		t.Fatalf("subscribing to a document: %v; want a refusal naming besluitbron://status", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "besluitbron://status"}); err != nil {
		t.Fatal(err)
	}
	s.ResourceUpdated(ctx, "besluitbron://status")
	select {
	case u := <-updates:
		if u != "besluitbron://status" {
			t.Fatalf("update for %s", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated after an update")
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "besluitbron://status"}); err != nil {
		t.Fatal(err)
	}
	s.ResourceUpdated(ctx, "besluitbron://status")
	// A round trip after the update: had a notification been sent, it
	// would have arrived before the answer on this ordered transport.
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "besluitbron://status"}); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updates:
		t.Fatalf("update for %s after unsubscribing", u)
	default:
	}
	// The fixture's own address serves its watched resource: it
	// advertises subscriptions, for that URI only.
	own := connect("/mcp/conformance/v1")
	if c := own.InitializeResult().Capabilities.Resources; c == nil || !c.Subscribe {
		t.Errorf("the fixture's own address does not advertise subscriptions for its watched resource")
	}
	if err := own.Subscribe(ctx, &mcp.SubscribeParams{URI: "besluitbron://status"}); err == nil {
		t.Errorf("the fixture's own address accepts a subscription to the host's status, which it does not serve")
	}
	// A connector without a subscribable resource advertises none.
	plain, err := New(Options{Version: "test", Platforms: []Platform{withoutSubscriptions(fixtures(t, nil, ""))}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	psrv := httptest.NewServer(plain.Handler(HTTPOptions{}))
	t.Cleanup(psrv.Close)
	pc, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: psrv.URL + "/mcp/unified/v1"}, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	if c := pc.InitializeResult().Capabilities.Resources; c != nil && c.Subscribe {
		t.Errorf("an address with no subscribable resource advertises subscriptions")
	}
}

// withoutSubscriptions is p with no resource marked subscribable.
func withoutSubscriptions(p Platform) Platform {
	ip := *p.Platform // a platform of its own, not the caller's
	p.Platform = &ip
	rs := append([]connector.ResourceTemplate(nil), p.Manifest.Resources...)
	for i := range rs {
		rs[i].Subscribable = false
	}
	p.Manifest.Resources = rs
	return p
}
