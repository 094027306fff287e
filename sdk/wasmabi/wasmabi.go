package wasmabi

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Version is the ABI version whose payloads this package encodes.
const Version = 2

// ErrMalformed is the error of every decoder on input it cannot read.
var ErrMalformed = errors.New("malformed payload")

// The tags of a reply's kind.
const (
	replyResponse = 1 // a FetchReply's response / a TextReply's page
	replyError    = 2 // a FetchError
	replyNone     = 3 // a TextReply that found nothing
	resultError   = 1 // CallResult.IsError

	callKeepsTexts = 1 // the call's host is a connector.TextStore
)

func appendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendBytes(b, s []byte) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

func appendString(b []byte, s string) []byte {
	b = appendU32(b, uint32(len(s)))
	return append(b, s...)
}

func appendMap(b []byte, m map[string]string) []byte {
	b = appendU32(b, uint32(len(m)))
	for k, v := range m {
		b = appendString(b, k)
		b = appendString(b, v)
	}
	return b
}

// mapSize is what appendMap adds for m.
func mapSize(m map[string]string) int {
	n := 4
	for k, v := range m {
		n += 8 + len(k) + len(v)
	}
	return n
}

// reader reads fields off a payload; the first failure sticks.
type reader struct {
	b   []byte
	bad bool
}

// take returns the next n bytes in place, capacity clipped so that
// appending to them never writes over what follows; nil and bad when
// fewer are left.
func (r *reader) take(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u8() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if v := r.take(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if v := r.take(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// bytes returns the next field in place (no copy).
func (r *reader) bytes() []byte {
	n := r.u32()
	return r.take(uint64(n))
}

// raw is bytes, nil when empty (as an omitted JSON field was).
func (r *reader) raw() []byte {
	v := r.bytes()
	if len(v) == 0 {
		return nil
	}
	return v
}

func (r *reader) str() string { return ValidString(string(r.bytes())) }

func (r *reader) strMap() map[string]string {
	n := r.u32()
	// Each entry takes at least 8 bytes: a count beyond that is a lie.
	if r.bad || uint64(n) > uint64(len(r.b))/8 {
		r.bad = true
		return nil
	}
	if n == 0 {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := r.str()
		m[k] = r.str()
	}
	return m
}

func (r *reader) end() error {
	if r.bad || len(r.b) != 0 {
		return ErrMalformed
	}
	return nil
}

// ValidString is s with every byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json writes a string.
func ValidString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

// CompactJSON is what json.Marshal makes of raw as a json.RawMessage:
// compacted, with <, >, & and U+2028/U+2029 escaped, or an error when raw
// is not JSON. Empty stays empty (an omitted field). The host applies it
// to the JSON values it sends and receives, which version 1 marshalled.
//
// JSON that json.Marshal would leave as it is (valid, without whitespace
// between tokens or a byte to escape: what the sdk's encoders write) is
// returned as raw itself, checked by [compactAlready] without
// encoding/json's scanner, which makes an indirect call per byte; anything
// else, invalid JSON included, goes to json.Marshal, so the bytes and
// errors stay its own.
func CompactJSON(raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if compactAlready(raw) {
		return raw, nil
	}
	return json.Marshal(json.RawMessage(raw))
}

// compactAlready reports whether b is one JSON value that json.Marshal of
// a json.RawMessage copies unchanged. It may say no to such a value (one
// nested deeper than it looks), never yes to another.
func compactAlready(b []byte) bool {
	i, ok := skipCompactValue(b, 0, 0)
	return ok && i == len(b)
}

// maxCompactDepth bounds compactAlready's recursion; deeper values go to
// json.Marshal.
const maxCompactDepth = 256

// skipCompactValue returns the end of the value at b[i:], and false when
// there is none, or one with whitespace or a byte json.Marshal escapes.
func skipCompactValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxCompactDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipCompactString(b, i)
	case c == '{':
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			var ok bool
			if i, ok = skipCompactString(b, i); !ok || i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = skipCompactValue(b, i+1, depth+1); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i++
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = skipCompactValue(b, i, depth+1); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return skipNumber(b, i)
	}
	return i, false
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// skipCompactString skips the string at b[i] (a quote), refusing control
// characters and bad escapes (invalid JSON) and <, >, & and U+2028/U+2029
// (escaped by json.Marshal). Other bytes, invalid UTF-8 included, pass
// unchanged through json.Marshal, and here.
func skipCompactString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20, c == '<', c == '>', c == '&':
			return i, false
		case c == 0xE2:
			if i+2 < len(b) && b[i+1] == 0x80 && b[i+2]&^1 == 0xA8 {
				return i, false
			}
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i <= 4 {
					return i, false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

// skipNumber skips a number as JSON writes it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		digits()
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// AppendCallRequest appends req's encoding, and whether the call's host
// keeps texts (is a connector.TextStore): a guest whose host keeps none
// neither asks for kept pages nor offers its texts, as a connector run
// in-process by such a host does not. The host compacts the arguments
// first (see [CompactJSON]).
func AppendCallRequest(b []byte, req connector.CallRequest, keepsTexts bool) []byte {
	var flags byte
	if keepsTexts {
		flags |= callKeepsTexts
	}
	b = append(b, flags)
	b = appendString(b, req.Tool)
	return appendBytes(b, req.Arguments)
}

// DecodeCallRequest reads a call request. Its Arguments are a slice of b.
func DecodeCallRequest(b []byte) (req connector.CallRequest, keepsTexts bool, err error) {
	r := reader{b: b}
	flags := r.u8()
	req = connector.CallRequest{Tool: r.str(), Arguments: r.raw()}
	if flags&^callKeepsTexts != 0 {
		r.bad = true
	}
	return req, flags&callKeepsTexts != 0, r.end()
}

// AppendCallResult appends res's encoding.
func AppendCallResult(b []byte, res connector.CallResult) []byte {
	n := 13 + len(res.Text) + len(res.Structured)
	for _, c := range res.Content {
		n += 20 + len(c.Type) + len(c.Text) + len(c.Data) + len(c.MIMEType) + len(c.URI)
	}
	b = slices.Grow(b, n) // one allocation, not append's doublings
	var flags byte
	if res.IsError {
		flags |= resultError
	}
	b = append(b, flags)
	b = appendString(b, res.Text)
	b = appendBytes(b, res.Structured)
	b = appendU32(b, uint32(len(res.Content)))
	for _, c := range res.Content {
		b = appendString(b, c.Type)
		b = appendString(b, c.Text)
		b = appendBytes(b, c.Data)
		b = appendString(b, c.MIMEType)
		b = appendString(b, c.URI)
	}
	return b
}

// DecodeCallResult reads a call result. Its Structured is a slice of b,
// not yet checked to be JSON (the host does that, see [CompactJSON]); the
// Data of its content items too.
func DecodeCallResult(b []byte) (connector.CallResult, error) {
	r := reader{b: b}
	flags := r.u8()
	res := connector.CallResult{IsError: flags&resultError != 0, Text: r.str(), Structured: r.raw()}
	n := r.u32()
	// An item takes at least 20 bytes.
	if r.bad || flags&^resultError != 0 || uint64(n) > uint64(len(r.b))/20 {
		return connector.CallResult{}, ErrMalformed
	}
	if n > 0 {
		res.Content = make([]connector.Content, n)
		for i := range res.Content {
			res.Content[i] = connector.Content{Type: r.str(), Text: r.str(), Data: r.raw(), MIMEType: r.str(), URI: r.str()}
		}
	}
	return res, r.end()
}

// AppendFetchRequest appends req's encoding.
func AppendFetchRequest(b []byte, req connector.FetchRequest) []byte {
	b = slices.Grow(b, 32+len(req.Method)+len(req.URL)+mapSize(req.Header)+len(req.Body)+len(req.Service)+len(req.CacheClass))
	b = appendString(b, req.Method)
	b = appendString(b, req.URL)
	b = appendMap(b, req.Header)
	b = appendBytes(b, req.Body)
	b = appendString(b, req.Service)
	b = appendU64(b, math.Float64bits(req.Cost))
	return appendString(b, req.CacheClass)
}

// DecodeFetchRequest reads a fetch request. Its Body is a slice of b.
func DecodeFetchRequest(b []byte) (connector.FetchRequest, error) {
	r := reader{b: b}
	req := connector.FetchRequest{Method: r.str(), URL: r.str(), Header: r.strMap(), Body: r.raw(), Service: r.str()}
	req.Cost = math.Float64frombits(r.u64())
	req.CacheClass = r.str()
	if math.IsNaN(req.Cost) || math.IsInf(req.Cost, 0) {
		return connector.FetchRequest{}, ErrMalformed // JSON has neither
	}
	return req, r.end()
}

func appendFetchError(b []byte, e *connector.FetchError) []byte {
	b = append(b, replyError)
	b = appendString(b, e.Kind)
	return appendString(b, e.Message)
}

func (r *reader) fetchError() *connector.FetchError {
	return &connector.FetchError{Kind: r.str(), Message: r.str()}
}

// AppendFetchReply appends rep's encoding: its response, else its error.
func AppendFetchReply(b []byte, rep connector.FetchReply) []byte {
	if rep.Response == nil {
		return AppendFetchReplyHead(b, rep)
	}
	b = slices.Grow(b, 17+mapSize(rep.Response.Header)+len(rep.Response.Body))
	return append(AppendFetchReplyHead(b, rep), rep.Response.Body...)
}

// AppendFetchReplyHead appends rep's encoding but for the bytes of its
// response's body, which follow it in AppendFetchReply's: a host writes
// a body into guest memory from where it is, without copying it first.
func AppendFetchReplyHead(b []byte, rep connector.FetchReply) []byte {
	if rep.Response == nil {
		e := rep.Error
		if e == nil {
			e = &connector.FetchError{}
		}
		return appendFetchError(b, e)
	}
	b = slices.Grow(b, 17+mapSize(rep.Response.Header))
	b = append(b, replyResponse)
	b = appendU64(b, uint64(int64(rep.Response.Status)))
	b = appendMap(b, rep.Response.Header)
	return appendU32(b, uint32(len(rep.Response.Body)))
}

// DecodeFetchReply reads a fetch reply. The response's Body is a slice of
// b.
func DecodeFetchReply(b []byte) (connector.FetchReply, error) {
	r := reader{b: b}
	var rep connector.FetchReply
	switch r.u8() {
	case replyResponse:
		rep.Response = &connector.FetchResponse{Status: int(int64(r.u64())), Header: r.strMap(), Body: r.raw()}
	case replyError:
		rep.Error = r.fetchError()
	default:
		return rep, ErrMalformed
	}
	return rep, r.end()
}

// AppendTextRequest appends req's encoding.
func AppendTextRequest(b []byte, req connector.TextRequest) []byte {
	b = appendString(b, req.Key)
	b = appendString(b, req.CacheClass)
	return appendU64(b, uint64(int64(req.Page)))
}

// DecodeTextRequest reads a text page request.
func DecodeTextRequest(b []byte) (connector.TextRequest, error) {
	r := reader{b: b}
	var req connector.TextRequest
	req.Key, req.CacheClass = r.str(), r.str()
	req.Page = int(int64(r.u64()))
	return req, r.end()
}

// AppendTextReply appends rep's encoding: its error, else its page when
// found, else that nothing was found. The host compacts the page's head
// first (see [CompactJSON]).
func AppendTextReply(b []byte, rep connector.TextReply) []byte {
	switch {
	case rep.Error != nil:
		return appendFetchError(b, rep.Error)
	case rep.Page == nil:
		b = append(b, replyNone)
		if rep.Found {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		return b
	}
	b = slices.Grow(b, 30+len(rep.Page.Head)+len(rep.Page.Text))
	b = append(b, replyResponse)
	if rep.Found {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = appendBytes(b, rep.Page.Head)
	b = appendString(b, rep.Page.Text)
	b = appendU64(b, uint64(int64(rep.Page.Page)))
	return appendU64(b, uint64(int64(rep.Page.Pages)))
}

// DecodeTextReply reads a text page reply. The page's Head is a slice of
// b.
func DecodeTextReply(b []byte) (connector.TextReply, error) {
	r := reader{b: b}
	var rep connector.TextReply
	switch r.u8() {
	case replyError:
		rep.Error = r.fetchError()
	case replyNone:
		rep.Found = r.u8() == 1
	case replyResponse:
		rep.Found = r.u8() == 1
		p := &connector.TextPage{Head: r.raw(), Text: r.str()}
		p.Page = int(int64(r.u64()))
		p.Pages = int(int64(r.u64()))
		rep.Page = p
	default:
		return rep, ErrMalformed
	}
	return rep, r.end()
}

// AppendExtractedText appends t's encoding.
func AppendExtractedText(b []byte, t connector.ExtractedText) []byte {
	n := 16 + len(t.Key) + len(t.CacheClass) + len(t.Head)
	for _, p := range t.Pages {
		n += 4 + len(p)
	}
	b = slices.Grow(b, n)
	b = appendString(b, t.Key)
	b = appendString(b, t.CacheClass)
	b = appendBytes(b, t.Head)
	b = appendU32(b, uint32(len(t.Pages)))
	for _, p := range t.Pages {
		b = appendString(b, p)
	}
	return b
}

// DecodeExtractedText reads a text to keep. Its Head is a slice of b, not
// yet checked to be JSON.
func DecodeExtractedText(b []byte) (connector.ExtractedText, error) {
	r := reader{b: b}
	var t connector.ExtractedText
	t.Key, t.CacheClass, t.Head = r.str(), r.str(), r.raw()
	n := r.u32()
	if r.bad || uint64(n) > uint64(len(r.b))/4 {
		return connector.ExtractedText{}, ErrMalformed
	}
	t.Pages = make([]string, n)
	for i := range t.Pages {
		t.Pages[i] = r.str()
	}
	return t, r.end()
}
