package host_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The official TypeScript MCP client (scripts/ts-client, run by
// scripts/ts-client-429.sh and `make test`, which install it) meets the
// session limit: the error it throws carries the 429 and the JSON-RPC
// error, its fetch layer sees Retry-After, and after waiting that long
// its next call is served. The clock is the real one: the client really
// waits.
func TestTypeScriptClientSees429(t *testing.T) {
	dir := os.Getenv("BESLUITBRON_TS_CLIENT_DIR")
	if dir == "" {
		t.Skip("run by scripts/ts-client-429.sh (make test), which installs the TypeScript client")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("BESLUITBRON_TS_CLIENT_DIR is set but node is missing: %v", err)
	}
	lh := startHostClock(t, `
[mcp_rate_limit]
session_rps = 1
session_burst = 4
`, nil)
	cmd := exec.Command(node, filepath.Join(dir, "client.mjs"), lh.base+"/mcp/unified/v1")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var got struct {
		Connected bool
		Served    int
		Error     string
		Refused   *struct {
			IsStreamableHTTPError bool
			Code                  int
			Message               string
		}
		Refusals []struct {
			RetryAfter string
			Body       string
		}
		Retried *struct {
			OK           bool
			AfterSeconds int
			Message      string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client output %q: %v", out, err)
	}
	t.Logf("TypeScript client: %s", strings.TrimSpace(string(out)))
	if !got.Connected || got.Error != "" || got.Served < 1 {
		t.Fatalf("client did not connect and call: %+v", got)
	}
	if got.Refused == nil || !got.Refused.IsStreamableHTTPError || got.Refused.Code != 429 ||
		!strings.Contains(got.Refused.Message, "the session limit (1 requests per second, burst 4)") {
		t.Errorf("the client's error: %+v; want a StreamableHTTPError 429 naming the session limit", got.Refused)
	}
	if len(got.Refusals) == 0 || got.Refusals[0].RetryAfter != "1" || !strings.Contains(got.Refusals[0].Body, `"limit":"session"`) {
		t.Errorf("the client's fetch saw %+v; want a 429 with Retry-After 1", got.Refusals)
	}
	if got.Retried == nil || !got.Retried.OK || got.Retried.AfterSeconds != 1 {
		t.Errorf("after waiting Retry-After: %+v; want served", got.Retried)
	}
}
