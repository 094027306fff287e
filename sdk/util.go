package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Get is a convenience for a GET fetch.
func Get(ctx context.Context, h connector.Host, url, service string, cost float64, class string) (connector.FetchResponse, error) {
	return h.Fetch(ctx, connector.FetchRequest{Method: "GET", URL: url, Service: service, Cost: cost, CacheClass: class})
}

// Progress reports how far a long call has got, when the host can pass
// that on to the client (see [connector.Progresser]); otherwise it does
// nothing. done must grow from one report to the next; total is 0 when
// unknown.
func Progress(ctx context.Context, h connector.Host, done, total float64, message string) {
	if p, ok := h.(connector.Progresser); ok {
		p.Progress(ctx, done, total, message)
	}
}

// StatusError describes an upstream answer with a non-2xx status, quoting
// the start of the platform's own message.
type StatusError struct {
	Status int
	Detail string
}

func (e *StatusError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("upstream answered HTTP %d", e.Status)
	}
	return fmt.Sprintf("upstream answered HTTP %d: %s", e.Status, e.Detail)
}

// CheckStatus returns a *StatusError for a non-2xx response. Detail is the
// body's "error" or "message" field when it is JSON, else its first line.
func CheckStatus(r connector.FetchResponse) error {
	if r.Status >= 200 && r.Status < 300 {
		return nil
	}
	return &StatusError{Status: r.Status, Detail: errorDetail(r.Body)}
}

func errorDetail(body []byte) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"error", "message", "detail"} {
			switch v := obj[k].(type) {
			case string:
				return clip(v, 300)
			case map[string]any:
				if m, ok := v["message"].(string); ok {
					return clip(m, 300)
				}
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 200)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// DecodeJSON decodes an upstream JSON body, naming what was being read in
// its error so a broken platform response is a clear tool error.
func DecodeJSON(r connector.FetchResponse, what string, v any) error {
	if err := CheckStatus(r); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%s: the platform's response is not the expected JSON: %v", what, err)
	}
	return nil
}

// TextPageSize is the size in bytes of one page of a document's text, the
// same for every connector: a model that reads page 2 on one platform
// knows how much it reads on any other.
const TextPageSize = 20000

// PageArg reads a tool's "page" argument: absent (0) is the first page,
// and below 1 is refused before anything is fetched. The host checks the
// input schema's minimum first; this is the connector's own line.
func PageArg(n int) (int, error) {
	if n == 0 {
		return 1, nil
	}
	if n < 1 {
		return 0, fmt.Errorf("argument \"page\": %d is not a page number (1-based)", n)
	}
	return n, nil
}

// Page cuts long text into pages of at most size bytes, on line breaks
// where possible, and returns page n (1-based) and the page count.
func Page(text string, size, n int) (string, int, error) {
	pages := SplitPages(text, size)
	if n < 1 || n > len(pages) {
		return "", len(pages), pageRangeError(n, len(pages))
	}
	return pages[n-1], len(pages), nil
}

func pageRangeError(n, pages int) error {
	return fmt.Errorf("argument \"page\": %d is out of range, the document has %d page(s)", n, pages)
}

// SplitPages cuts text into pages of at most size bytes (TextPageSize when
// size <= 0), on line breaks where one falls in the second half of a page,
// else between two UTF-8 characters. The pages share text's memory. An
// empty text is one empty page.
func SplitPages(text string, size int) []string {
	if size <= 0 {
		size = TextPageSize
	}
	pages := make([]string, 0, len(text)/size+1)
	for len(text) > size {
		cut := strings.LastIndexByte(text[:size], '\n')
		if cut < size/2 {
			cut = size
			for cut > 0 && !utf8Start(text[cut]) {
				cut--
			}
			if cut == 0 {
				// No character starts in the page (invalid UTF-8): cut
				// at its size, or the loop would never end.
				cut = size
			}
		} else {
			cut++
		}
		pages = append(pages, text[:cut])
		text = text[cut:]
	}
	return append(pages, text)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Yield lets the runtime's other goroutines run; call it once per
// iteration of a long loop (a page of a large PDF, a chunk of a large
// document). In a WebAssembly connector it is what lets Go's garbage
// collector finish a cycle during a long call: its mark workers run only
// when the call's goroutine yields, and a call that allocates much
// without yielding grows its heap until the instance's memory limit traps
// it. Natively it costs next to nothing.
func Yield() { runtime.Gosched() }
