package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/serve/cite"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestCiteerLink: every search result and every document page links its
// citation (in the page's language); /cite serves a result the page just
// showed as a RIS file without a call, another document (BibTeX) from its
// document tool's first page, and names a bad platform, id or format.
func TestCiteerLink(t *testing.T) {
	f := &fake{answer: func(tool string, args map[string]any, _ *callinfo.Info) invoke.Answer {
		switch tool {
		case "obv_search":
			return ok(searchAnswer)
		case "obv_get_document":
			return ok(map[string]any{"platform": "obv", "id": args["entity_id"], "title": "Begroting 2024", "date": "2024-11-07", "organization": "Gemeente Soest",
				"url": "https://example.org/b.pdf", "format": "markdown", "page": 1, "pages": 3, "text": "De raad."})
		case "obv_list_sources":
			return ok(map[string]any{"platform": "obv", "list": "sources", "count": 0, "items": []any{}})
		}
		return toolErr("unexpected " + tool)
	}}
	// The invoke path annotates and remembers the results, as the host's does.
	book := cite.NewBook(nil, 0)
	annotated := func(ctx context.Context, info *callinfo.Info, tool string, raw json.RawMessage) invoke.Answer {
		a := f.Invoke(ctx, info, tool, raw)
		if a.Err == nil {
			a.Result = book.Annotate(strings.SplitN(tool, "_", 2)[0], a.Result)
		}
		return a
	}
	m := connector.Manifest{ID: "obv", Title: "OpenBesluitvorming", Tools: []connector.Tool{{Name: "get_document",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"entity_id":{"type":"string"}},"required":["entity_id"]}`)}}}
	svc := cite.New(cite.Options{Platforms: []cite.Platform{cite.PlatformOf("obv", m)}, Invoke: annotated, Book: book})
	srv := serve(t, f, func(o *web.Options) { o.Invoke, o.Cite = annotated, svc })

	_, body, _ := get(t, srv.URL+"/?q=begroting&p=obv")
	mustContain(t, body, `<a class="cite" href="/cite?id=document%3Ax%3A1&amp;p=obv" download title="RIS">Citeer<span class="sr">`)
	_, body, _ = get(t, srv.URL+"/?q=begroting&p=obv&lang=en")
	mustContain(t, body, `download title="RIS">Cite<span class="sr">`)

	before := len(f.recorded())
	code, ris, resp := get(t, srv.URL+"/cite?p=obv&id=document:x:1")
	if code != 200 || resp.Header.Get("Content-Type") != "application/x-research-info-systems; charset=utf-8" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename="besluitbron-obv-document-x-1.ris"` {
		t.Fatalf("/cite: %d %v\n%s", code, resp.Header, ris)
	}
	mustContain(t, ris, "TY  - GEN\r\n", "TI  - Raadsvoorstel <begroting> 2024\r\n", "AU  - Soest\r\n", "DA  - 2024/11/07/\r\n", "DB  - OpenBesluitvorming\r\n", "ER  - ")
	if n := len(f.recorded()) - before; n != 0 {
		t.Errorf("citing a result just shown made %d calls", n)
	}

	code, bib, _ := get(t, srv.URL+"/cite?p=obv&id=document:y:2&format=bibtex")
	if code != 200 || !strings.Contains(bib, "@misc{obv-document-y-2,") || !strings.Contains(bib, "title = {Begroting 2024}") {
		t.Errorf("/cite of a document not shown: %d\n%s", code, bib)
	}
	if c := f.recorded(); c[len(c)-1].tool != "obv_get_document" || c[len(c)-1].args["entity_id"] != "document:y:2" {
		t.Errorf("last call %+v, want obv_get_document of document:y:2", c[len(c)-1])
	}

	for _, c := range []struct{ q, want string }{
		{"p=nowhere&id=x", `Onbekend platform "nowhere".`},
		{"p=obv&id=", "Geef het id van een document"},
		{"p=obv&id=x&format=xml", `Onbekend formaat "xml": kies uit csl-json, bibtex, ris.`},
		{"p=obv&id=x&format=xml&lang=en", `Unknown format "xml": choose one of csl-json, bibtex, ris.`},
	} {
		if code, body, _ := get(t, srv.URL+"/cite?"+c.q); code != 400 || !strings.Contains(body, c.want) {
			t.Errorf("/cite?%s: %d %q, want 400 %q", c.q, code, body, c.want)
		}
	}

	_, body, _ = get(t, srv.URL+"/document?p=obv&id=document:x:1")
	mustContain(t, body, "Citeer dit document:", `href="/cite?id=document%3Ax%3A1&amp;p=obv" download>RIS</a>`,
		`href="/cite?format=bibtex&amp;id=document%3Ax%3A1&amp;p=obv" download>BibTeX</a>`, `href="/cite?format=csl-json&amp;id=document%3Ax%3A1&amp;p=obv" download>CSL-JSON</a>`)
}
