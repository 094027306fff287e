package fetch

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"mime"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// wellFormed reports whether a response's body parses as the JSON or XML
// its Content-Type declares. A platform that answers 200 with a truncated
// or corrupted body (a proxy cutting a transfer, a half-written file) must
// not have that body cached: every later call would fail from the cache
// until the entry expired. Other types are not checked; a connector that
// cannot use a well-formed body still answers a tool error, once.
func wellFormed(resp connector.FetchResponse) bool {
	ct := ""
	for k, v := range resp.Header {
		if strings.EqualFold(k, "Content-Type") {
			ct = v
		}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true // unknown or no type: nothing to check against
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return json.Valid(resp.Body)
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		return xmlWellFormed(resp.Body)
	}
	return true
}

// xmlWellFormed tokenises the whole document.
func xmlWellFormed(b []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	// Platforms declare ISO-8859-1 and the like now and then; the check is
	// about structure, so bytes pass through as they are.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	seen := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return seen
		}
		if err != nil {
			return false
		}
		if _, ok := tok.(xml.StartElement); ok {
			seen = true
		}
	}
}
