package platformsim

import (
	"bytes"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkSearch measures one search per platform through the Sim's
// handler (no network): the cost of the simulator per request, so that a
// test or demo is never bound by it.
func BenchmarkSearch(b *testing.B) {
	s, err := New(Options{DataDir: testdata(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	var form bytes.Buffer
	w := multipart.NewWriter(&form)
	w.WriteField("q", "klimaat")
	w.WriteField("soorten", "alles")
	w.Close()
	reqs := map[string]func() *http.Request{
		"obv": func() *http.Request { return httptest.NewRequest("GET", "/obv/api/search?query=klimaat&limit=24", nil) },
		"ori": func() *http.Request {
			return httptest.NewRequest("POST", "/ori/v1/elastic/ori_*/_search", bytes.NewReader([]byte(`{"query":{"simple_query_string":{"query":"klimaat","default_operator":"and"}},"size":20}`)))
		},
		"tk": func() *http.Request {
			return httptest.NewRequest("GET", "/tk/OData/v4/2.0/Document?%24filter=Verwijderd%20eq%20false%20and%20(contains(Titel,'klimaat')%20or%20contains(Onderwerp,'klimaat'))&%24top=25&%24count=true", nil)
		},
		"opentk": func() *http.Request {
			r := httptest.NewRequest("POST", "/opentk/tkconv/search", bytes.NewReader(form.Bytes()))
			r.Header.Set("Content-Type", w.FormDataContentType())
			return r
		},
		"obk": func() *http.Request {
			return httptest.NewRequest("GET", "/obk/sru?operation=searchRetrieve&version=2.0&maximumRecords=20&query=cql.textAndIndexes%3D%22klimaat%22", nil)
		},
		"rechtspraak": func() *http.Request {
			return httptest.NewRequest("GET", "/rechtspraak/uitspraken/zoeken?return=DOC&max=20&sort=DESC", nil)
		},
		"openarchivaris": func() *http.Request {
			return httptest.NewRequest("GET", "/openarchivaris/api/search?q=klimaat&limit=20", nil)
		},
	}
	for _, id := range Platforms {
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				rec := httptest.NewRecorder()
				r := reqs[id]()
				r.Header.Set("X-Forwarded-For", "192.0.2.1") // one bucket; refusals are answers too
				h.ServeHTTP(rec, r)
				if rec.Code != 200 && rec.Code != 429 {
					b.Fatalf("%s: HTTP %d %s", id, rec.Code, rec.Body)
				}
			}
		})
	}
}
