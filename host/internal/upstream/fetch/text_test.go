package fetch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// textCache records what the gate hands it.
type textCache struct {
	fetch.Cache
	put   []string
	pages map[string][]string
}

func (c *textCache) TextPage(_ context.Context, class, key string, n int) (connector.TextPage, bool) {
	p, ok := c.pages[class+" "+key]
	if !ok || n > len(p) {
		return connector.TextPage{}, ok
	}
	return connector.TextPage{Text: p[n-1], Page: n, Pages: len(p)}, true
}

func (c *textCache) PutText(_ context.Context, class, key string, _ []byte, pages []string) {
	c.put = append(c.put, class+" "+key)
	c.pages[class+" "+key] = pages
}

func TestGateKeepsTextsOfDeclaredClasses(t *testing.T) {
	tc := &textCache{pages: map[string][]string{}}
	g := newGate(t, fetch.Options{Cache: tc})
	ctx := context.Background()
	key := connector.TextKey{Key: "https://demo.example/doc", CacheClass: "search"}
	if err := g.PutText(ctx, connector.ExtractedText{TextKey: key, Pages: []string{"een", "twee"}}); err != nil {
		t.Fatal(err)
	}
	if p, ok, err := g.TextPage(ctx, key, 2); err != nil || !ok || p.Text != "twee" {
		t.Fatalf("page 2: %+v %v %v", p, ok, err)
	}
	// An undeclared class, an empty key or no pages are refused, naming why.
	for _, c := range []struct {
		t    connector.ExtractedText
		want string
	}{
		{connector.ExtractedText{TextKey: connector.TextKey{Key: "k", CacheClass: "document"}, Pages: []string{"x"}}, `cache class "document" is not declared`},
		{connector.ExtractedText{TextKey: connector.TextKey{CacheClass: "search"}, Pages: []string{"x"}}, "text key is empty"},
		{connector.ExtractedText{TextKey: key}, "text has no pages"},
		{connector.ExtractedText{TextKey: connector.TextKey{Key: strings.Repeat("k", connector.MaxTextKey+1), CacheClass: "search"}, Pages: []string{"x"}}, "exceeds"},
	} {
		wantKind(t, g.PutText(ctx, c.t), connector.FetchRefused, c.want)
		_, _, err := g.TextPage(ctx, c.t.TextKey, 1)
		if c.t.Pages != nil {
			wantKind(t, err, connector.FetchRefused, c.want)
		}
	}
	if len(tc.put) != 1 {
		t.Errorf("texts handed to the cache: %v", tc.put)
	}
	// Class "none" is never kept, and a gate without a cache keeps nothing.
	none := connector.TextKey{Key: "k", CacheClass: connector.ClassNone}
	if err := g.PutText(ctx, connector.ExtractedText{TextKey: none, Pages: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	bare := newGate(t, fetch.Options{})
	if err := bare.PutText(ctx, connector.ExtractedText{TextKey: key, Pages: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := bare.TextPage(ctx, key, 1); ok || err != nil {
		t.Fatalf("a gate without a cache served a text: %v %v", ok, err)
	}
}

// A fetch that fails, answers 5xx or 429 degrades the call: nothing
// extracted during it is kept.
func TestFailedFetchDegradesTheCall(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(503)
		}
	}))
	defer srv.Close()
	g := newGate(t, fetch.Options{BaseURL: srv.URL, PrivateNetworks: loopback})
	for path, want := range map[string]bool{"/ok": false, "/fail": true} {
		info := &callinfo.Info{}
		ctx := callinfo.With(context.Background(), info)
		if _, err := g.Fetch(ctx, connector.FetchRequest{URL: srv.URL + path, Service: "api", CacheClass: "search"}); err != nil {
			t.Fatal(err)
		}
		if info.Degraded() != want {
			t.Errorf("%s: degraded %v, want %v", path, info.Degraded(), want)
		}
	}
}
