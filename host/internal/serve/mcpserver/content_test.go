package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/plugins/conformance"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// connect serves plats on an in-memory transport and returns a client
// session; logs and progress the client receives are recorded.
type received struct {
	mu       sync.Mutex
	logs     []string
	progress []float64
	changed  chan struct{} // signalled after each notification
}

// wait blocks until ok holds (checked under the lock) or 10 s pass: the
// client runs notification handlers asynchronously.
func (r *received) wait(t *testing.T, ok func() bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		done := ok()
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-r.changed:
		case <-timeout:
			t.Error("timed out waiting for notifications")
			return
		}
	}
}

func (r *received) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func connect(t *testing.T, plats ...Platform) (*Server, *mcp.ClientSession, *received) {
	t.Helper()
	s, err := New(Options{Version: "test", Platforms: plats, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	rec := &received{changed: make(chan struct{}, 1)}
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.logs = append(rec.logs, string(r.Params.Level)+" "+r.Params.Data.(string))
			rec.signal()
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			rec.progress = append(rec.progress, r.Params.Progress)
			rec.signal()
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Unified().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return s, cs, rec
}

func fixtures(t *testing.T, prefix *string, base string) Platform {
	p := conformance.Plugin()
	m, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Platform{Platform: &invoke.Platform{Manifest: m, Connector: p, Host: sdktest.NewHost(t)}, ToolPrefix: prefix, ResourceBase: base}
}

func ptrTo[T any](v T) *T { return &v }

func TestNamesDefaultAndConfigured(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		prefix *string
		base   string
		tool   string
		prompt string
		uri    string
	}{
		{nil, "", "conformance_test_simple_text", "conformance_test_simple_prompt", "besluitbron://conformance/static-text"},
		{ptrTo(""), "test://", "test_simple_text", "test_simple_prompt", "test://static-text"},
		{ptrTo("x."), "urn:x:", "x.test_simple_text", "x.test_simple_prompt", "urn:x:static-text"},
	} {
		s, cs, _ := connect(t, fixtures(t, tc.prefix, tc.base))
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tc.tool, err, res)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.prompt}); err != nil {
			t.Errorf("prompt %s: %v", tc.prompt, err)
		}
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		if err != nil || rr.Contents[0].Text != "This is the content of the static text resource." || rr.Contents[0].MIMEType != "text/plain" {
			t.Errorf("read %s: %v %+v", tc.uri, err, rr)
		}
		lr, err := cs.ListResources(ctx, nil)
		if err != nil || len(lr.Resources) != 3 {
			t.Errorf("resources/list: %v %d resources, want the 3 without variables", err, len(lr.Resources))
		}
		// The host's own code calls tools by <id>_<tool> whatever the prefix.
		if r := s.Call(ctx, testInfo(), "conformance_test_simple_text", nil); r.IsError {
			t.Errorf("Call by canonical name: %v", r.Content)
		}
	}
}

func TestPrefixClash(t *testing.T) {
	a := fixtures(t, ptrTo(""), "")
	b := fixtures(t, ptrTo(""), "")
	b.Manifest.ID = "other"
	_, err := New(Options{Platforms: []Platform{a, b}, Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), `both serve "test_simple_text"`) {
		t.Fatalf("two connectors serving one name: %v", err)
	}
}

func TestContentItems(t *testing.T) {
	ctx := context.Background()
	_, cs, _ := connect(t, fixtures(t, ptrTo(""), "test://"))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_multiple_content_types"})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	var kinds []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			kinds = append(kinds, "text:"+c.Text)
		case *mcp.ImageContent:
			kinds = append(kinds, "image:"+c.MIMEType)
		case *mcp.EmbeddedResource:
			kinds = append(kinds, "resource:"+c.Resource.URI)
		}
	}
	want := []string{"text:Multiple content types test:", "image:image/png", "resource:test://mixed-content-resource"}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Errorf("content (-want +got):\n%s", d)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
	if err != nil || len(rr.Contents) != 1 || len(rr.Contents[0].Blob) == 0 || rr.Contents[0].MIMEType != "image/png" {
		t.Errorf("binary resource: %v %+v", err, rr)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/a%2Fb/data"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"id":"a/b"`) {
		t.Errorf("template resource: %v %+v", err, rr)
	}
}

// badContent is a connector whose results carry broken content items.
func badContent(items ...connector.Content) Platform {
	p := &sdk.Plugin{
		Manifest: connector.Manifest{ID: "bad", Version: "1", Title: "Bad", Services: []connector.Service{{Name: "x"}},
			Tools: []connector.Tool{{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}},
		Tools: map[string]sdk.ToolFunc{"t": func(context.Context, connector.Host, json.RawMessage) (any, error) {
			return connector.CallResult{Text: "x", Content: items}, nil
		}},
	}
	return Platform{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p}}
}

func TestBadContentIsAToolError(t *testing.T) {
	for _, c := range []connector.Content{
		{Type: "video", Data: []byte{1}},
		{Type: connector.ContentImage, MIMEType: "image/png"},
		{Type: connector.ContentImage, Data: []byte{1}, MIMEType: "png"},
		{Type: connector.ContentResource, URI: "no-scheme", MIMEType: "text/plain", Text: "x"},
		{Type: connector.ContentResource, URI: "x:y", MIMEType: "text/plain", Text: "x", Data: []byte{1}},
	} {
		s, err := New(Options{Platforms: []Platform{badContent(c)}, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		res := s.Call(context.Background(), testInfo(), "bad_t", nil)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.HasPrefix(text, "Bad: the connector returned bad content: content[0]") {
			t.Errorf("%+v: %v %q", c, res.IsError, text)
		}
	}
}

func TestPromptMessagesAndCompletion(t *testing.T) {
	ctx := context.Background()
	_, cs, _ := connect(t, fixtures(t, ptrTo(""), "test://"))
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_embedded_resource", Arguments: map[string]string{"resourceUri": "test://example-resource"}})
	if err != nil || len(pr.Messages) != 2 {
		t.Fatal(err, pr)
	}
	if er, ok := pr.Messages[0].Content.(*mcp.EmbeddedResource); !ok || er.Resource.URI != "test://example-resource" {
		t.Errorf("embedded resource message: %#v", pr.Messages[0].Content)
	}
	// An argument that is no URI is refused, naming the message.
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_embedded_resource", Arguments: map[string]string{"resourceUri": "nothing"}})
	if err == nil || !strings.Contains(err.Error(), "message 0") {
		t.Errorf("bad resourceUri: %v", err)
	}
	pr, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "Prompt with arguments: arg1='a', arg2='b'" {
		t.Errorf("template prompt: %v %+v", err, pr)
	}
	cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "PAR"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"paris", "park", "party"}, cr.Completion.Values); d != "" {
		t.Errorf("completion (-want +got):\n%s", d)
	}
	cr, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg2", Value: "x"}})
	if err != nil || cr.Completion.Values == nil || len(cr.Completion.Values) != 0 {
		t.Errorf("argument without values: %v %+v", err, cr)
	}
	if _, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"},
		Argument: mcp.CompleteParamsArgument{Name: "a"}}); err == nil || !strings.Contains(err.Error(), `no prompt "nope"`) {
		t.Errorf("unknown prompt: %v", err)
	}
}

func TestLogsAndProgressReachTheClient(t *testing.T) {
	ctx := context.Background()
	_, cs, rec := connect(t, fixtures(t, ptrTo(""), "test://"))
	// No level chosen yet: nothing is sent.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_tool_with_logging"}); err != nil {
		t.Fatal(err)
	}
	// The in-memory client speaks the newest protocol, where the level
	// travels with each request (older ones use logging/setLevel, which
	// the conformance suite checks over HTTP).
	lp := &mcp.CallToolParams{Name: "test_tool_with_logging", Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	if _, err := cs.CallTool(ctx, lp); err != nil {
		t.Fatal(err)
	}
	// Without a token no progress; with one, three growing steps.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_tool_with_progress"}); err != nil {
		t.Fatal(err)
	}
	p := &mcp.CallToolParams{Name: "test_tool_with_progress"}
	p.SetProgressToken("tok")
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, func() bool { return len(rec.logs) >= 3 && len(rec.progress) >= 3 })
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := []string{"info Tool execution started", "info Tool processing data", "info Tool execution completed"}
	if d := cmp.Diff(want, rec.logs); d != "" {
		t.Errorf("logs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]float64{0, 50, 100}, rec.progress); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func testInfo() *callinfo.Info { return &callinfo.Info{Session: "test"} }
