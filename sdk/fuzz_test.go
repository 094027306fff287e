package sdk_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
)

// FuzzResult turns arbitrary tool values into results: the text is always
// the value's JSON, and structured content is set exactly for objects (the
// host mirrors it as structuredContent, which MCP requires to be one).
func FuzzResult(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,2]`, `"x"`, `null`, `1e300`, `{"html":"<b>&</b>"}`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		res, err := sdk.Result(v)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if !json.Valid([]byte(res.Text)) || res.IsError {
			t.Fatalf("%q: text %q", b, res.Text)
		}
		_, isObject := v.(map[string]any)
		if isObject != (len(res.Structured) > 0) {
			t.Fatalf("%q: structured %q for an object: %v", b, res.Structured, isObject)
		}
		if isObject && !bytes.Equal(res.Structured, []byte(res.Text)) {
			t.Fatalf("%q: structured and text differ", b)
		}
	})
}
