package cite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// fakeDocs answers get_document calls from a table and counts them.
type fakeDocs struct {
	calls []string
	docs  map[string]connector.Document
}

func (f *fakeDocs) invoke(_ context.Context, _ *callinfo.Info, name string, args json.RawMessage) invoke.Answer {
	f.calls = append(f.calls, name+" "+string(args))
	var a map[string]any
	_ = json.Unmarshal(args, &a)
	id, _ := a["id"].(string)
	d, ok := f.docs[id]
	if !ok {
		return invoke.Answer{Err: errFake("Platform: no document " + id)}
	}
	b, _ := json.Marshal(d)
	return invoke.Answer{Result: connector.CallResult{Text: string(b), Structured: b}}
}

type errFake string

func (e errFake) Error() string { return string(e) }

func testService(f *fakeDocs) *Service {
	m := connector.Manifest{ID: "p", Title: "Platform", Tools: []connector.Tool{{Name: "get_document",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"page":{"type":"integer"},"find":{"type":"string"}},"required":["id"]}`)}}}
	return New(Options{Platforms: []Platform{PlatformOf("p", m), {ID: "q", Title: "Q"}}, Invoke: f.invoke, Now: func() time.Time { return day }})
}

// TestResolve: a result the Book remembers is cited without a call; any
// other from its document tool's first page, by the id's own form.
func TestResolve(t *testing.T) {
	f := &fakeDocs{docs: map[string]connector.Document{"ECLI:NL:HR:2024:1": {ID: "ECLI:NL:HR:2024:1", Title: "Arrest", Date: "2024-01-05", Organization: "Hoge Raad", Pages: 1}}}
	s := testService(f)
	in := `{"platform":"p","results":[{"id":"stcrt-2025-18220","title":"Regeling","keys":{"publication_id":"stcrt-2025-18220"}}]}`
	s.Book().Annotate("p", connector.CallResult{Structured: []byte(in)})
	e, err := s.Resolve(context.Background(), nil, "p", "stcrt-2025-18220")
	if err != nil || e.Work.Text != "Stcrt. 2025, 18220" || len(f.calls) != 0 {
		t.Errorf("remembered: %+v %v, %d calls", e.Work, err, len(f.calls))
	}
	e, err = s.Resolve(context.Background(), nil, "p", "ECLI:NL:HR:2024:1")
	if err != nil || e.Work.Text != "Hoge Raad 5 januari 2024, ECLI:NL:HR:2024:1" || len(f.calls) != 1 || e.Retrieved != "2026-12-06" {
		t.Errorf("read: %+v %v, calls %q", e, err, f.calls)
	}
}

// TestBadInput: every bad argument is a tool error naming it, bounded.
func TestBadInput(t *testing.T) {
	s := testService(&fakeDocs{})
	ctx := context.Background()
	ref := func(p, id, sha string) []Ref { return []Ref{{Platform: p, ID: id, SHA256: sha}} }
	for _, c := range []struct {
		format string
		refs   []Ref
		want   string
	}{
		{"endnote", ref("p", "a", ""), `argument "format" must be one of csl-json, bibtex, ris (got "endnote")`},
		{"ris", nil, `argument "documents" must hold 1 to 100 documents (got 0)`},
		{"ris", make([]Ref, 101), `(got 101)`},
		{"ris", ref("nowhere", "a", ""), `documents[0]: argument "platform" must be one of p, q (got "nowhere")`},
		{"ris", ref("p", " ", ""), `documents[0]: argument "id" must be 1 to 300 bytes (got 0)`},
		{"ris", ref("p", strings.Repeat("x", 5000), ""), `(got 5000)`},
		{"ris", ref("q", "a", ""), "Q has no document tool"},
		{"ris", ref("p", "missing", ""), "documents[0]: Platform: no document missing"},
	} {
		_, err := s.Export(ctx, nil, c.format, c.refs)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 600 {
			t.Errorf("%s %v: %v, want %q", c.format, c.refs, err, c.want)
		}
	}
	s.Book().Annotate("p", connector.CallResult{Structured: []byte(`{"results":[{"id":"a","title":"A"}]}`)})
	if _, err := s.Export(ctx, nil, "ris", ref("p", "a", "XYZ")); err == nil || !strings.Contains(err.Error(), `argument "sha256" must be 64 lower-case hex digits`) {
		t.Errorf("bad sha256: %v", err)
	}
	for _, c := range []struct {
		a    QuoteArgs
		want string
	}{
		{QuoteArgs{Platform: "q", ID: "a", Passage: "twee woorden"}, `argument "platform" must be one of p, the platforms whose document tool takes find and page (got "q")`},
		{QuoteArgs{Platform: "p", ID: "", Passage: "twee woorden"}, `argument "id" must be 1 to 300 bytes (got 0)`},
		{QuoteArgs{Platform: "p", ID: "a", Passage: strings.Repeat("woningbouw ", 100000)}, `argument "passage" must be at most 1000 bytes (got 1100000)`},
		{QuoteArgs{Platform: "p", ID: "a", Passage: "één"}, `argument "passage" must hold at least two words (got "één")`},
		{QuoteArgs{Platform: "p", ID: "a", Passage: "twee woorden", SHA256: "abc"}, `argument "sha256" must be 64 lower-case hex digits`},
	} {
		_, err := s.CheckQuote(ctx, nil, c.a)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 600 {
			t.Errorf("%+v: %v, want %q", c.a.Platform, err, c.want)
		}
	}
	// The tools: the quote check only for platforms that can find.
	var names []string
	for _, tl := range s.Tools() {
		names = append(names, tl.Name)
	}
	if strings.Join(names, " ") != "besluitbron_cite besluitbron_check_quote" {
		t.Errorf("tools %q", names)
	}
	a := s.Tools()[0].Handler(ctx, &callinfo.Info{}, json.RawMessage(`{"format":"bibtex","documents":[{"platform":"p","id":"a"}]}`))
	if a.Err != nil || !strings.HasPrefix(a.Result.Text, "@misc{p-a,") {
		t.Errorf("besluitbron_cite: %v %q", a.Err, a.Result.Text)
	}
}
