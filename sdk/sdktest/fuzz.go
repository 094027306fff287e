package sdktest

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// FuzzCall is one tool call of a response fuzz test: a tool and arguments
// that pass its input schema, so the call reaches the platform.
type FuzzCall struct {
	Tool, Args string
}

// fuzzStatuses are the HTTP statuses a fuzzed answer may carry; a fuzzed
// byte picks one (success is the most interesting, so it is most likely).
var fuzzStatuses = []int{200, 200, 200, 200, 201, 204, 301, 400, 403, 404, 410, 429, 500, 502, 503}

// maxSeedBytes skips recorded files too large to be useful seeds.
const maxSeedBytes = 1 << 20

// FuzzResponses fuzzes a connector's parsing of platform responses: each
// input picks one of calls, an HTTP status (or a failed exchange) and a
// body, and every fetch the call makes gets that answer. Whatever the
// platform sends, the connector must neither panic nor fail as a
// connector: the result is a tool error with a message, or a success with
// content the host accepts.
//
// The seed corpus is every recorded response under seedDirs (e.g.
// testdata/<platform>), each offered to every call with status 200, plus
// whatever `go test -fuzz` saved in the package's testdata/fuzz.
func FuzzResponses(f *testing.F, c connector.Connector, seedDirs []string, calls ...FuzzCall) {
	f.Helper()
	if len(calls) == 0 {
		f.Fatal("sdktest: FuzzResponses needs at least one call")
	}
	var seeds [][]byte
	for _, dir := range seedDirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if info, err := d.Info(); err != nil || info.Size() > maxSeedBytes {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			seeds = append(seeds, b)
			return nil
		})
		if err != nil {
			f.Fatalf("sdktest: seeds: %v", err)
		}
	}
	seeds = append(seeds, []byte(""), []byte("{}"), []byte("null"), []byte("<html></html>"))
	for i := range calls {
		for _, b := range seeds {
			f.Add(uint8(i), uint8(0), false, b)
		}
	}
	f.Fuzz(func(t *testing.T, which, status uint8, fail bool, body []byte) {
		call := calls[int(which)%len(calls)]
		route := Route{Match: "*", Response: connector.FetchResponse{
			Status: fuzzStatuses[int(status)%len(fuzzStatuses)],
			Header: map[string]string{"Content-Type": sniff(body)},
			Body:   body,
		}}
		if fail {
			route.Err = &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection reset by peer"}
		}
		h := NewHost(t, route)
		res, err := c.Call(context.Background(), connector.CallRequest{Tool: call.Tool, Arguments: json.RawMessage(call.Args)}, h)
		if err != nil {
			t.Fatalf("%s(%s) on HTTP %d: connector failed (it must answer a tool error): %v", call.Tool, call.Args, route.Response.Status, err)
		}
		if res.IsError {
			if strings.TrimSpace(res.Text) == "" {
				t.Fatalf("%s(%s): tool error without a message", call.Tool, call.Args)
			}
			return
		}
		if res.Text == "" && len(res.Content) == 0 {
			t.Fatalf("%s(%s): success without content", call.Tool, call.Args)
		}
		if len(res.Structured) > 0 && !json.Valid(res.Structured) {
			t.Fatalf("%s(%s): structured result is not JSON", call.Tool, call.Args)
		}
		for i, item := range res.Content {
			if err := item.Validate(); err != nil {
				t.Fatalf("%s(%s): content[%d]: %v", call.Tool, call.Args, i, err)
			}
		}
	})
}

// sniff guesses a Content-Type, as a platform would send one.
func sniff(b []byte) string {
	s := strings.TrimSpace(string(b[:min(len(b), 64)]))
	switch {
	case strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["):
		return "application/json"
	case strings.HasPrefix(s, "<?xml"):
		return "application/xml"
	case strings.HasPrefix(s, "<"):
		return "text/html"
	case strings.HasPrefix(s, "%PDF"):
		return "application/pdf"
	}
	return "text/plain"
}
