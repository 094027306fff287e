package fetch

import (
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestWellFormed(t *testing.T) {
	for _, tc := range []struct {
		ctype, body string
		want        bool
	}{
		{"application/json", `{"a":[1,2]}`, true},
		{"application/json; charset=utf-8", `{"a":[1,2`, false},
		{"application/json", "{\"a\":1}\x00\xff<<<{\"truncated", false},
		{"application/vnd.api+json", `[]`, true},
		{"application/xml", `<?xml version="1.0" encoding="ISO-8859-1"?><a><b>x</b></a>`, true},
		{"text/xml", `<a><b>x</a>`, false},
		{"application/atom+xml", "<feed><entry>\x00\xff<<<", false},
		{"application/xml", ``, false},
		{"text/html", `<p>unclosed`, true}, // not checked
		{"", `anything`, true},
		{"nonsense/;;", `anything`, true},
	} {
		got := wellFormed(connector.FetchResponse{Status: 200, Header: map[string]string{"content-type": tc.ctype}, Body: []byte(tc.body)})
		if got != tc.want {
			t.Errorf("%s %q: %v, want %v", tc.ctype, tc.body, got, tc.want)
		}
	}
}
