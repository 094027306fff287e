package mcpserver

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport is the go-sdk's newline-delimited JSON transport over in
// and out, except that the end of in ends the session only once every
// request read before it has been answered.
//
// Why: a client that pipes its requests and closes its end at once
// (`printf '…initialize…\n…initialized…\n…tools/list…\n' | besluitbron
// stdio`, a script, a test harness) got an answer to initialize only. The
// go-sdk's JSON-RPC connection, seeing the end of its input, cancels every
// request in flight and refuses to write their answers, on the reasoning
// that a peer that stopped writing also stopped reading; on stdio a
// closed stdin says only that no more requests come.
//
// So the end of in is held back from the go-sdk until its answers are
// written: the requests' ids are read as the bytes pass on their way in,
// the answers' ids as they pass on their way out. The wait ends early,
// and the end passes at once, when a request of the server's to the
// client is unanswered (its answer can no longer come, and the handler
// waiting for it would wait for ever), when a write fails, when the input
// is not JSON this can follow (the go-sdk refuses it too), or when the
// session is closed.
//
// The gate sits on the bytes, not on the go-sdk's Connection, so that
// the go-sdk's own connection stays whole (it learns the protocol
// version from the session and refuses batches under the versions
// without them; a wrapped Connection would hide that from it).
//
// in is closed with the session when it is an io.Closer (closing os.Stdin
// is what ends a read that waits on it); out is never closed.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	g := &stdioGate{
		pending: map[jsonrpc.ID]bool{},
		calls:   map[jsonrpc.ID]bool{},
		changed: make(chan struct{}, 1),
		closed:  make(chan struct{}),
	}
	g.in.onMessage, g.out.onMessage = g.read, g.wrote
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	return &mcp.IOTransport{
		Reader: &gatedReader{r: rc, g: g},
		Writer: &gatedWriter{w: out, g: g},
	}
}

// stdioGate knows which requests of the client await an answer and which
// of the server's await the client's.
type stdioGate struct {
	mu      sync.Mutex
	in, out frameScanner
	pending map[jsonrpc.ID]bool // the client's requests, not yet answered
	calls   map[jsonrpc.ID]bool // the server's requests, not yet answered
	lost    bool                // a write failed: nothing more can be answered
	changed chan struct{}       // a value after every change above
	closed  chan struct{}       // closed with the session
	once    sync.Once
}

// settled reports whether the end of the input may pass.
func (g *stdioGate) settled() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost || g.in.lost || g.out.lost || len(g.pending) == 0 || len(g.calls) > 0
}

func (g *stdioGate) signal() {
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// read notes a message from the client (g.mu held).
func (g *stdioGate) read(call bool, id jsonrpc.ID) {
	if call {
		// A second request under an id in flight is refused by the
		// go-sdk with an answer that carries no id: only the first
		// awaits its answer under that id.
		g.pending[id] = true
	} else {
		delete(g.calls, id)
	}
}

// wrote notes a message to the client (g.mu held).
func (g *stdioGate) wrote(call bool, id jsonrpc.ID) {
	if call {
		g.calls[id] = true
	} else {
		delete(g.pending, id)
	}
}

// gatedReader passes the client's bytes to the go-sdk, noting the
// requests among them, and holds the end back until the gate settles.
type gatedReader struct {
	r io.ReadCloser
	g *stdioGate
}

func (r *gatedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.g.mu.Lock()
	r.g.in.feed(p[:n])
	r.g.mu.Unlock()
	if err != io.EOF {
		return n, err
	}
	if n > 0 {
		// The last bytes first: their requests must reach the go-sdk
		// before the wait for their answers begins.
		return n, nil
	}
	for !r.g.settled() {
		select {
		case <-r.g.changed:
		case <-r.g.closed:
			return 0, io.EOF
		}
	}
	return 0, io.EOF
}

func (r *gatedReader) Close() error {
	r.g.once.Do(func() { close(r.g.closed) })
	return r.r.Close()
}

// gatedWriter passes the server's bytes to the client, noting the answers
// among them.
type gatedWriter struct {
	w io.Writer
	g *stdioGate
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.g.mu.Lock()
	w.g.out.feed(p[:n])
	if err != nil {
		w.g.lost = true
	}
	w.g.mu.Unlock()
	w.g.signal()
	return n, err
}

// Close leaves out open: it is the process's stdout, which the log and
// the exit status may still need.
func (w *gatedWriter) Close() error { return nil }

// maxFrame bounds one JSON value the scanner holds, as the go-sdk bounds
// its frames (mcp.DefaultMaxLineLength): past it the go-sdk has refused
// the frame and ended the session.
const maxFrame = mcp.DefaultMaxLineLength

// frameScanner splits a stream of JSON values (objects or arrays: a
// JSON-RPC message or a batch) at their ends, in one pass whatever the
// chunks, and hands each message's kind and id to onMessage. lost is set
// at input it cannot follow.
type frameScanner struct {
	buf       []byte
	depth     int
	inString  bool
	escaped   bool
	lost      bool
	onMessage func(call bool, id jsonrpc.ID)
}

func (s *frameScanner) feed(p []byte) {
	for _, c := range p {
		if s.lost {
			return
		}
		if s.depth == 0 {
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{', '[':
			default:
				s.lost = true
				continue
			}
		}
		s.buf = append(s.buf, c)
		if len(s.buf) > maxFrame {
			s.lost, s.buf = true, nil
			return
		}
		switch {
		case s.inString && s.escaped:
			s.escaped = false
		case s.inString && c == '\\':
			s.escaped = true
		case s.inString && c == '"':
			s.inString = false
		case s.inString:
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			s.depth--
			if s.depth == 0 {
				s.frame(s.buf)
				s.buf = s.buf[:0]
			}
		}
	}
}

// frame notes one complete value: a message, or a batch of them.
func (s *frameScanner) frame(b []byte) {
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) != nil {
			s.lost = true
			return
		}
		for _, m := range batch {
			s.message(m)
		}
		return
	}
	s.message(b)
}

func (s *frameScanner) message(b []byte) {
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(b, &m) != nil {
		s.lost = true
		return
	}
	if m.ID == nil {
		return // a notification, or an answer to a message without an id
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		s.lost = true
		return
	}
	s.onMessage(m.Method != "", id)
}
