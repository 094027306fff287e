package wasmabi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Every payload reads back as it was written.
func TestRoundTrip(t *testing.T) {
	req := connector.CallRequest{Tool: "search", Arguments: json.RawMessage(`{"q":"x"}`)}
	for _, keeps := range []bool{false, true} {
		got, k, err := DecodeCallRequest(AppendCallRequest(nil, req, keeps))
		if err != nil || k != keeps || !reflect.DeepEqual(got, req) {
			t.Errorf("call request: %+v %v %v", got, k, err)
		}
	}
	res := connector.CallResult{Text: "t", Structured: json.RawMessage(`{"a":1}`), IsError: true,
		Content: []connector.Content{{Type: "image", Data: []byte{1, 2}, MIMEType: "image/png"}, {Type: "resource", URI: "besluitbron://x/y", Text: "z"}}}
	if got, err := DecodeCallResult(AppendCallResult(nil, res)); err != nil || !reflect.DeepEqual(got, res) {
		t.Errorf("call result: %+v %v", got, err)
	}
	freq := connector.FetchRequest{Method: "POST", URL: "https://x/y", Header: map[string]string{"A": "b", "C": ""}, Body: []byte("body"), Service: "api", Cost: 2.5, CacheClass: "search"}
	if got, err := DecodeFetchRequest(AppendFetchRequest(nil, freq)); err != nil || !reflect.DeepEqual(got, freq) {
		t.Errorf("fetch request: %+v %v", got, err)
	}
	for _, rep := range []connector.FetchReply{
		{Response: &connector.FetchResponse{Status: 404, Header: map[string]string{"Content-Type": "text/html"}, Body: []byte("<p>")}},
		{Response: &connector.FetchResponse{Status: 200}},
		{Error: &connector.FetchError{Kind: connector.FetchRefused, Message: "no"}},
	} {
		if got, err := DecodeFetchReply(AppendFetchReply(nil, rep)); err != nil || !reflect.DeepEqual(got, rep) {
			t.Errorf("fetch reply: %+v %v", got, err)
		}
	}
	treq := connector.TextRequest{TextKey: connector.TextKey{Key: "k", CacheClass: "document"}, Page: 3}
	if got, err := DecodeTextRequest(AppendTextRequest(nil, treq)); err != nil || got != treq {
		t.Errorf("text request: %+v %v", got, err)
	}
	for _, rep := range []connector.TextReply{
		{}, {Found: true, Page: &connector.TextPage{Head: json.RawMessage(`{"t":1}`), Text: "page", Page: 2, Pages: 5}},
		{Error: &connector.FetchError{Kind: connector.FetchUnavailable, Message: "down"}},
	} {
		if got, err := DecodeTextReply(AppendTextReply(nil, rep)); err != nil || !reflect.DeepEqual(got, rep) {
			t.Errorf("text reply: %+v %v", got, err)
		}
	}
	et := connector.ExtractedText{TextKey: treq.TextKey, Head: json.RawMessage(`{}`), Pages: []string{"a", "b"}}
	if got, err := DecodeExtractedText(AppendExtractedText(nil, et)); err != nil || !reflect.DeepEqual(got, et) {
		t.Errorf("extracted text: %+v %v", got, err)
	}
}

// Strings come out as encoding/json would write them, and the JSON the
// host forwards as json.Marshal would.
func TestAsJSON(t *testing.T) {
	for _, s := range []string{"", "ok", "a\xffb", "\xe2\x80", "é\xc3"} {
		b, _ := json.Marshal(s)
		var want string
		json.Unmarshal(b, &want)
		if got := ValidString(s); got != want {
			t.Errorf("ValidString(%q) = %q, want %q", s, got, want)
		}
	}
	raw := json.RawMessage(" { \"a\" : \"<b>\" } ")
	want, _ := json.Marshal(raw)
	if got, err := CompactJSON(raw); err != nil || string(got) != string(want) {
		t.Errorf("CompactJSON = %s %v, want %s", got, err, want)
	}
	if _, err := CompactJSON([]byte("{")); err == nil {
		t.Error("CompactJSON accepted a broken value")
	}
}

// FuzzDecode hands every decoder arbitrary bytes: none panics, and what
// one accepts it reads the same again once encoded (strings already made
// valid UTF-8 stay so).
func FuzzDecode(f *testing.F) {
	f.Add(AppendCallRequest(nil, connector.CallRequest{Tool: "t", Arguments: json.RawMessage(`{}`)}, true))
	f.Add(AppendCallResult(nil, connector.CallResult{Text: "x", Content: []connector.Content{{Type: "text", Text: "y"}}}))
	f.Add(AppendFetchRequest(nil, connector.FetchRequest{URL: "u", Header: map[string]string{"a": "b"}}))
	f.Add(AppendFetchReply(nil, connector.FetchReply{Response: &connector.FetchResponse{Status: 200, Body: []byte("b")}}))
	f.Add(AppendTextReply(nil, connector.TextReply{Found: true, Page: &connector.TextPage{Text: "p"}}))
	f.Add(AppendExtractedText(nil, connector.ExtractedText{Pages: []string{"p"}}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(name string, v any, err error, again func() (any, error)) {
			if err != nil {
				return
			}
			w, err := again()
			if err != nil || !reflect.DeepEqual(v, w) {
				t.Errorf("%s: %+v read back as %+v (%v)", name, v, w, err)
			}
		}
		req, keeps, err := DecodeCallRequest(b)
		check("call request", req, err, func() (any, error) {
			r, _, err := DecodeCallRequest(AppendCallRequest(nil, req, keeps))
			return r, err
		})
		res, err := DecodeCallResult(b)
		check("call result", res, err, func() (any, error) { return DecodeCallResult(AppendCallResult(nil, res)) })
		freq, err := DecodeFetchRequest(b)
		check("fetch request", freq, err, func() (any, error) { return DecodeFetchRequest(AppendFetchRequest(nil, freq)) })
		frep, err := DecodeFetchReply(b)
		check("fetch reply", frep, err, func() (any, error) { return DecodeFetchReply(AppendFetchReply(nil, frep)) })
		treq, err := DecodeTextRequest(b)
		check("text request", treq, err, func() (any, error) { return DecodeTextRequest(AppendTextRequest(nil, treq)) })
		trep, err := DecodeTextReply(b)
		check("text reply", trep, err, func() (any, error) { return DecodeTextReply(AppendTextReply(nil, trep)) })
		et, err := DecodeExtractedText(b)
		check("extracted text", et, err, func() (any, error) { return DecodeExtractedText(AppendExtractedText(nil, et)) })
	})
}

// FuzzCompactJSON holds CompactJSON to json.Marshal of a json.RawMessage:
// the same bytes, or an error with the same message, whichever of its two
// paths the input takes.
func FuzzCompactJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null]} `, `{"a":"<b>&"}`,
		`"\u2028 \u00e9 \"\\\/\b\f\n\r\t"`, "\"\xe2\x80\xa8\"", "\"\xff\"", `01`, `1.`, `-`, `1e+`, `[1,]`,
		`{"a":}`, `{"a"1}`, `{,}`, `"\x"`, `"\u12G4"`, "\"a\x01\"", `[[[[[]]]]]`, `nul`, `truex`, `{"a":{"b":[{"c":null}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		want, werr := json.Marshal(json.RawMessage(b))
		got, err := CompactJSON(b)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || string(got) != string(want) {
			t.Errorf("CompactJSON(%q) = %q, %v; json.Marshal: %q, %v", b, got, err, want, werr)
		}
	})
}

func TestCompactJSONDeep(t *testing.T) {
	for _, n := range []int{maxCompactDepth - 1, maxCompactDepth, maxCompactDepth + 1, 10001} {
		b := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		want, werr := json.Marshal(json.RawMessage(b))
		got, err := CompactJSON(b)
		if (err == nil) != (werr == nil) || string(got) != string(want) {
			t.Errorf("depth %d: %v, want %v", n, err, werr)
		}
	}
}

// A reply's head and its body's bytes are the whole reply.
func TestFetchReplyHead(t *testing.T) {
	for _, rep := range []connector.FetchReply{
		{Response: &connector.FetchResponse{Status: 200, Header: map[string]string{"a": "b"}, Body: []byte("body")}},
		{Response: &connector.FetchResponse{Status: 204}},
		{Error: &connector.FetchError{Kind: "k", Message: "m"}},
		{},
	} {
		head := AppendFetchReplyHead([]byte("x"), rep)
		if rep.Response != nil {
			head = append(head, rep.Response.Body...)
		}
		if want := AppendFetchReply([]byte("x"), rep); string(head) != string(want) {
			t.Errorf("%+v: head and body %q, want %q", rep, head, want)
		}
	}
}
