package inbound

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	// The go-sdk's own JSON decoder, set as the SDK sets it (struct fields
	// matched case-sensitively): the Guard must read the tool name the
	// handler will run, or a client could charge one connector's bucket
	// for another connector's calls.
	"github.com/segmentio/encoding/json"
)

// Message is what routing needs of one JSON-RPC message.
type Message struct {
	// Method is the message's method ("" for a response).
	Method string
	// Tool is a tools/call's params.name.
	Tool string
	// URI is a resources/read's params.uri.
	URI string
}

// uses routes the messages of r to their connector buckets. A POST of MCP
// 2026-07-28 or later is routed by its Mcp-Method and Mcp-Name headers
// (headers.go); the body of any other POST to an MCP address is read (up
// to MaxBodyBytes) and restored for the handler; a GET or DELETE is one
// zero Message. Without a Route every
// message of a batch still costs its token on the process and session (or
// address) layers: the messages are counted under a connector that has
// no bucket.
func (g *Guard) uses(r *http.Request) []Use {
	route := g.o.Route
	address := r.URL.Path
	if route != nil {
		if _, ok := route(address, Message{}); !ok {
			return nil
		}
	}
	var msgs []Message
	if m, ok := headerMessage(r); ok && r.Method == http.MethodPost {
		// A modern request names its method and tool in its headers
		// (headers.go): its body is left unread.
		msgs = []Message{m}
	} else if r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody {
		msgs = g.readMessages(r)
	}
	if len(msgs) == 0 || g.o.MaxBatch > 0 && len(msgs) > g.o.MaxBatch {
		// A batch past server.max_batch runs none of its messages (the
		// handler refuses it whole): one request, one token.
		msgs = []Message{{}}
	}
	if route == nil {
		return []Use{{Connector: unrouted, Messages: len(msgs)}}
	}
	var out []Use
next:
	for _, m := range msgs {
		id, ok := route(address, m)
		if !ok {
			id = NoConnector
		}
		for i := range out {
			if out[i].Connector == id {
				out[i].Messages++
				continue next
			}
		}
		out = append(out, Use{Connector: id, Messages: 1})
	}
	return out
}

// unrouted is the connector the messages of a Guard without a Route count
// under: no connector has that id (an HTTP header value cannot hold a NUL),
// so it has no bucket.
const unrouted = "\x00unrouted"

// readMessages reads r's body, bounded, puts it back for the handler and
// returns its messages: one for a single message (the zero Message when it
// does not parse), one per element for a batch.
func (g *Guard) readMessages(r *http.Request) []Message {
	body, err := io.ReadAll(io.LimitReader(r.Body, g.o.MaxBodyBytes+1))
	rest := r.Body
	switch {
	case err != nil:
		// The handler meets the same error reading the rest.
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), errReader{err}), rest}
		return nil
	case int64(len(body)) > g.o.MaxBodyBytes:
		// Too long: the handler refuses it (413) after reading what is left.
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), rest), rest}
		return nil
	}
	r.Body = readCloser{bytes.NewReader(body), rest}
	return parseMessages(body)
}

// parseMessages reads a body as the go-sdk does: a JSON array of messages
// (a batch) or one message.
func parseMessages(body []byte) []Message {
	var batch []json.RawMessage
	// Only an array decodes as a batch: skip the attempt (and its error)
	// for the common single message.
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' && unmarshal(body, &batch) == nil {
		out := make([]Message, 0, len(batch))
		for _, raw := range batch {
			out = append(out, parseMessage(raw))
		}
		return out
	}
	return []Message{parseMessage(body)}
}

func parseMessage(raw []byte) Message {
	var w struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if unmarshal(raw, &w) != nil {
		return Message{}
	}
	m := Message{Method: w.Method}
	switch w.Method {
	case "tools/call":
		var p struct {
			Name string `json:"name"`
		}
		if unmarshal(w.Params, &p) == nil {
			m.Tool = p.Name
		}
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		if unmarshal(w.Params, &p) == nil {
			m.URI = p.URI
		}
	}
	return m
}

// unmarshal decodes the first JSON value of data into v, as the go-sdk's
// Decoder does (without its read buffer, 32 KiB a call).
func unmarshal(data []byte, v any) error {
	if len(data) == 0 {
		return errors.New("empty")
	}
	_, err := json.Parse(data, v, json.DontMatchCaseInsensitiveStructFields)
	return err
}

// readCloser reads from r and closes the request's own body.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (rc readCloser) Close() error { return rc.c.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
