package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipedRequests are what a script pipes into `besluitbron stdio`: the
// handshake, a listing and a call, then the end of its input.
const pipedRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"held","arguments":{}}}
`

// endSignal tells when its reader has reached its end.
type endSignal struct {
	r    io.Reader
	once sync.Once
	end  chan struct{}
}

func (e *endSignal) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.end) })
	}
	return n, err
}

// lockedBuffer is the server's stdout, written by its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// answers are the ids of the responses on out, with their errors.
func answers(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     any             `json:"id"`
			Method string          `json:"method"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		if m.ID != nil && m.Method == "" {
			id, _ := json.Marshal(m.ID)
			got[string(id)] = string(m.Error)
		}
	}
	return got
}

// Requests piped in and followed at once by the end of the input are all
// answered before the session ends, a call still running when the input
// ended included: its tool answers only after the test has seen the end
// read. Catches the go-sdk's own StdioTransport, over which only
// initialize was answered: at the end of its input the connection
// cancelled tools/list and the call and wrote neither answer.
func TestStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	in := &endSignal{r: strings.NewReader(pipedRequests), end: make(chan struct{})}
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "held", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-in.end: // the input has ended; the answer is still wanted
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	var out lockedBuffer
	if err := srv.Run(context.Background(), StdioTransport(in, &out)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := answers(t, out.b.String())
	for _, id := range []string{`1`, `2`, `"three"`} {
		e, ok := got[id]
		if !ok || e != "" {
			t.Errorf("request %s: answered %v, error %s; want an answer without error\nstdout:\n%s", id, ok, e, out.b.String())
		}
	}
}

// A tool that asks the client (roots/list) after the client's input has
// ended cannot be answered: the end passes, and the session ends, rather
// than wait for an answer that cannot come.
func TestStdioEOFEndsWaitOnTheClient(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	asked := make(chan error, 1)
	srv.AddTool(&mcp.Tool{Name: "held", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_, err := req.Session.ListRoots(ctx, nil)
			asked <- err
			return nil, err
		})
	var out lockedBuffer
	if err := srv.Run(context.Background(), StdioTransport(strings.NewReader(pipedRequests), &out)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	// The handler has returned by the time Run has: its send is done.
	select {
	case err := <-asked:
		if err == nil {
			t.Error("roots/list after the input ended answered without error")
		}
	default:
		t.Error("the tool never ran")
	}
	if !strings.Contains(out.b.String(), `"method":"roots/list"`) {
		t.Errorf("the tool did not ask the client:\n%s", out.b.String())
	}
	if _, ok := answers(t, out.b.String())[`2`]; !ok {
		t.Errorf("tools/list, read before the end, unanswered:\n%s", out.b.String())
	}
}

// The scanner finds each message's kind and id whatever the chunks, with
// braces and quotes inside strings, batches, and whitespace between.
func TestFrameScanner(t *testing.T) {
	stream := `{"jsonrpc":"2.0","id":"a}\"[","method":"x","params":{"s":"{{"}}` + "\r\n" +
		`  [{"jsonrpc":"2.0","id":2,"result":{"r":["]"]}},{"jsonrpc":"2.0","method":"n"}]` + "\n" +
		`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}`
	type msg struct {
		call bool
		id   jsonrpc.ID
	}
	want := []msg{{true, mustID(t, "a}\"[")}, {false, mustID(t, float64(2))}, {false, mustID(t, float64(7))}}
	for _, chunk := range []int{1, 3, len(stream)} {
		var got []msg
		s := frameScanner{onMessage: func(call bool, id jsonrpc.ID) { got = append(got, msg{call, id}) }}
		for b := []byte(stream); len(b) > 0; {
			n := min(chunk, len(b))
			s.feed(b[:n])
			b = b[n:]
		}
		if s.lost || len(got) != len(want) {
			t.Fatalf("chunks of %d: lost %v, %d messages %v, want %v", chunk, s.lost, len(got), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("chunks of %d: message %d is %v, want %v", chunk, i, got[i], want[i])
			}
		}
	}
	var s frameScanner
	s.onMessage = func(bool, jsonrpc.ID) {}
	s.feed([]byte("42\n"))
	if !s.lost {
		t.Error("a bare number was followed")
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
