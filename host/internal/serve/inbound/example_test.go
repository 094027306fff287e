package inbound_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// A session meets its own limit; the refusal names it and says how long
// to wait, and a client that waits that long gets in.
func Example() {
	l, err := inbound.New(&inbound.Options{
		Process:    inbound.Limit{RPS: 500, Burst: 1000},
		Connector:  inbound.Limit{RPS: 200, Burst: 400},
		Session:    inbound.Limit{RPS: 0.5, Burst: 2},
		IP:         inbound.Limit{RPS: 10, Burst: 30},
		Connectors: []string{"obv", "rechtspraak"},
	})
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	l.SessionStarted(t0, "/mcp/unified/v1", "abc") // the server issued Mcp-Session-Id: abc
	// A tools/call of obv_search on the unified address.
	req := inbound.Request{Address: "/mcp/unified/v1", Session: "abc", IP: netip.MustParseAddr("192.0.2.7"),
		Uses: []inbound.Use{{Connector: "obv", Messages: 1}}}
	for i := range 3 {
		d := l.AllowAt(t0, req)
		fmt.Printf("request %d: ok=%v", i+1, d.OK)
		if !d.OK {
			fmt.Printf(", refused by the %s limit, Retry-After: %d", d.Name(), d.RetryAfterSeconds())
		}
		fmt.Println()
	}
	fmt.Println("after 2 s: ok =", l.AllowAt(t0.Add(2*time.Second), req).OK)
	// Output:
	// request 1: ok=true
	// request 2: ok=true
	// request 3: ok=false, refused by the session limit, Retry-After: 2
	// after 2 s: ok = true
}
