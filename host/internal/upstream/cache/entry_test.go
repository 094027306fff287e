package cache

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestEntryRoundTrip(t *testing.T) {
	w := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, r := range []connector.FetchResponse{
		{Status: 200},
		{Status: 200, Body: []byte("x")},
		{Status: 206, Header: map[string]string{"A": "1", "Content-Type": "text/html; charset=utf-8"}, Body: []byte("<p>é</p>")},
		{Status: 200, Header: map[string]string{"": ""}, Body: bytes.Repeat([]byte{0, 1, 2}, 1000)},
	} {
		e := entry{stamp: 42, written: w, expires: w.Add(time.Hour), resp: r}
		v := appendEntry(nil, &e)
		if len(v) != encodedLen(r) {
			t.Errorf("encodedLen %d, encoded %d", encodedLen(r), len(v))
		}
		got, err := decodeEntry(v)
		if err != nil {
			t.Fatal(err)
		}
		if got.stamp != 42 || !got.written.Equal(w) || !got.expires.Equal(w.Add(time.Hour)) {
			t.Errorf("header %+v", got)
		}
		if len(r.Body) == 0 {
			r.Body = []byte{}
		}
		if d := cmp.Diff(r, got.resp); d != "" {
			t.Error(d)
		}
	}
}

// Damaged values are refused, never a panic.
func TestDecodeDamaged(t *testing.T) {
	good := appendEntry(nil, &entry{stamp: 1, resp: connector.FetchResponse{Status: 200, Header: map[string]string{"Content-Type": "x"}, Body: []byte("b")}})
	for n := range headerLen + 5 {
		if _, err := decodeEntry(good[:n]); err == nil && n < headerLen+2 {
			t.Errorf("prefix of %d bytes decoded", n)
		}
	}
	bad := append([]byte(nil), good...)
	bad[0] = 9
	if _, err := decodeEntry(bad); err == nil {
		t.Error("unknown format decoded")
	}
	bad = append([]byte(nil), good...)
	bad[27], bad[28] = 0xff, 0xff // 65535 headers
	if _, err := decodeEntry(bad); err == nil {
		t.Error("header count beyond the value decoded")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(appendEntry(nil, &entry{resp: connector.FetchResponse{Status: 200, Header: map[string]string{"a": "b"}, Body: []byte("c")}}))
	f.Fuzz(func(t *testing.T, v []byte) { decodeEntry(v) })
}

func TestEncodedLenRefusesLongHeaders(t *testing.T) {
	if encodedLen(connector.FetchResponse{Status: 200, Header: map[string]string{"X": strings.Repeat("a", 1<<16)}}) != -1 {
		t.Error("a 64 KiB header value was accepted")
	}
}

func TestComplete(t *testing.T) {
	for _, c := range []struct {
		h    map[string]string
		body string
		want bool
	}{
		{nil, "abc", true},
		{map[string]string{"Content-Length": "3"}, "abc", true},
		{map[string]string{"content-length": "4"}, "abc", false},
		{map[string]string{"CONTENT-LENGTH": "2"}, "abc", false},
		{map[string]string{"Content-Length": "3"}, "", true}, // HEAD
		{map[string]string{"Content-Length": "x"}, "abc", true},
	} {
		if got := complete(connector.FetchResponse{Header: c.h, Body: []byte(c.body)}); got != c.want {
			t.Errorf("%v %q: %v", c.h, c.body, got)
		}
	}
}

func TestStoreKey(t *testing.T) {
	short := storeKey("search", "GET https://x/")
	if string(short) != "search\x1fGET https://x/" || classOf(short) != "search" {
		t.Errorf("%q", short)
	}
	long := strings.Repeat("q", 600)
	a, b := storeKey("search", long), storeKey("search", long+"x")
	if len(a) > 100 || bytes.Equal(a, b) || classOf(a) != "search" {
		t.Errorf("%q %q", a, b)
	}
	if bytes.Equal(storeKey("list", long), a) {
		t.Error("classes share a hashed key")
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		40 * time.Second:              "40 s",
		7 * time.Minute:               "7 min",
		2*time.Hour + 5*time.Minute:   "2 h 5 min",
		(3*24 + 4) * time.Hour:        "3 days 4 h",
		47*time.Hour + 59*time.Minute: "47 h 59 min",
	} {
		if got := age(d); got != want {
			t.Errorf("age(%v) = %q, want %q", d, got, want)
		}
	}
}
