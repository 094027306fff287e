package sdktest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Call runs one tool of c with args (a JSON object as a string) against h
// and returns the result. It fails the test when the connector itself
// errors (as opposed to a tool error, which is returned as IsError).
func Call(t testing.TB, c connector.Connector, h connector.Host, tool, args string) connector.CallResult {
	t.Helper()
	res, err := c.Call(context.Background(), connector.CallRequest{Tool: tool, Arguments: json.RawMessage(args)}, h)
	if err != nil {
		t.Fatalf("sdktest: %s(%s): connector error: %v", tool, args, err)
	}
	return res
}

// Decode unmarshals a successful result's text into v, failing the test on a
// tool error.
func Decode(t testing.TB, res connector.CallResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("sdktest: unexpected tool error: %s", res.Text)
	}
	if err := json.Unmarshal([]byte(res.Text), v); err != nil {
		t.Fatalf("sdktest: result is not JSON: %v\n%s", err, res.Text)
	}
}

// CheckManifest validates c's manifest and fails the test on an error.
func CheckManifest(t testing.TB, c connector.Connector) connector.Manifest {
	t.Helper()
	m, err := c.Describe(context.Background())
	if err != nil {
		t.Fatalf("sdktest: describe: %v", err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("sdktest: %v", err)
	}
	return m
}
