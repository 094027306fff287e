package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
)

// A POST to an MCP address whose body is not a JSON-RPC message gets a
// JSON-RPC error object, not the go-sdk's plain-text "malformed payload".
// A client's transport reads the body of a failed POST as JSON-RPC; plain
// text leaves it (and the assistant behind it) with a decoding error
// instead of the reason.
//
// What the specification asks (MCP 2025-06-18 and 2025-11-25, basic/
// transports, "Sending Messages to the Server"): for input it cannot
// accept, the server MUST answer with an HTTP error status ("e.g., 400 Bad
// Request") and the body MAY be a JSON-RPC error response that has no id.
// JSON-RPC 2.0 names the codes: -32700 Parse error for a body that is not
// JSON, -32600 Invalid Request for JSON that is not a valid message.
//
// Status: 400 for both. The old JSON-RPC-over-HTTP convention answers a
// parse error with 500, but the fault is the client's, MCP's own example is
// 400, and the go-sdk already answers these with 400 (clients falling back
// from streamable HTTP to HTTP+SSE look at exactly 400/404/405, and a 500
// would read as a server fault to retry). A body over the size limit is
// 413 with -32600. The id is left out unless the message had a valid one
// (the transport text says "has no id"; JSON-RPC 2.0 would write null,
// which MCP's RequestId type does not allow).
//
// The go-sdk stays the judge of what a valid message is: its decoder runs
// first and the body reaches it unchanged when it accepts. Other
// plain-text 400s it writes to a POST after accepting the body (an unknown
// method, a request without an id, a batch under a protocol version
// without batches) are rewritten the same way: -32601 Method not found for
// an unknown method, -32600 otherwise, with the go-sdk's reason.
//
// Batches (a JSON array of messages) exist in MCP up to protocol version
// 2025-03-26 only. The go-sdk refuses one when the request's
// MCP-Protocol-Version header names 2025-06-18 or later, and otherwise
// assumes 2025-03-26, as the specification asks of a server that has "no
// other way to identify the version". This server has one: the version
// the session negotiated at initialize. A batch is therefore refused
// (400, -32600) when the header, the session's negotiated version, or the
// version an initialize inside the batch asks for is 2025-06-18 or later;
// and where batches are allowed, one of more than max_batch messages is
// refused (400, -32600 naming the cap) before any of it runs. The client
// limits (package inbound) have by then charged every message of an
// admitted batch, one token each.

// batchesUntil is the last protocol version with JSON-RPC batches.
const batchesUntil = "2025-03-26"

// batchRules are what a batch must meet.
type batchRules struct {
	// max is the most messages one batch may carry.
	max int
	// version returns the protocol version a request is spoken in ("":
	// unknown).
	version func(*http.Request) string
}

// jsonRPCErrors wraps an MCP address's handler.
func jsonRPCErrors(next http.Handler, maxBody int64, rules batchRules) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		// A body that is not declared JSON gets the go-sdk's 415, which
		// names the header to fix.
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		r.Body.Close()
		if err != nil {
			writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error: the body could not be read: "+invoke.ClipText(err.Error(), 200))
			return
		}
		if int64(len(body)) > maxBody {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("Invalid Request: the body is larger than %d bytes, this server's limit for one message", maxBody))
			return
		}
		// A batch (or an empty body) is judged before the go-sdk sees it:
		// the batch rules are ours. So is a message to the HTTP+SSE
		// transport, which looks up its session first. A single message
		// on streamable HTTP is judged only when the go-sdk refuses it,
		// which it does with a plain-text 400 before acting on it:
		// judging every good message first decoded it twice, a cost on
		// every call (RATIONALE, "What a repeated call costs").
		if t := bytes.TrimSpace(body); len(t) == 0 || t[0] == '[' || isLegacySSE(r) {
			id, code, msg := judgeBody(body, rules, r)
			if code != 0 {
				writeRPCError(w, http.StatusBadRequest, id, code, msg)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		c := &plainErrorCatcher{ResponseWriter: w}
		next.ServeHTTP(c, r)
		if !c.caught {
			return
		}
		id, code, msg := judgeBody(body, rules, r)
		if code != 0 {
			writeRPCError(w, http.StatusBadRequest, id, code, msg)
			return
		}
		c.finish(id)
	})
}

// judgeBody returns code 0 when the go-sdk accepts the body, else the
// JSON-RPC error to answer with; id is the request's id when it has a
// valid one.
func judgeBody(body []byte, rules batchRules, r *http.Request) (id any, code int, msg string) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, jsonrpc.CodeParseError, "Parse error: the body is empty; POST one JSON-RPC message"
	}
	// As the go-sdk reads a body: a JSON array is a batch (older
	// protocol versions), anything else one message.
	var batch []json.RawMessage
	if json.Unmarshal(trimmed, &batch) == nil {
		if len(batch) == 0 {
			return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch (JSON array); POST one JSON-RPC message"
		}
		version := ""
		if rules.version != nil {
			version = rules.version(r)
		}
		if version > batchesUntil {
			return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: JSON-RPC batches are not part of MCP protocol version %s (they were removed in 2025-06-18); POST one message per request", invoke.ClipText(version, 40))
		}
		if rules.max > 0 && len(batch) > rules.max {
			return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a batch of %d messages; this server takes at most %d per batch (server.max_batch): send fewer per request", len(batch), rules.max)
		}
		for i, raw := range batch {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch item %d: %s", i+1, whyNotMessage(raw))
			}
			if req, ok := m.(*jsonrpc.Request); ok && req.Method == "initialize" {
				var p struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(req.Params, &p) == nil && p.ProtocolVersion > batchesUntil {
					return nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch item %d: an initialize for MCP protocol version %s, which has no JSON-RPC batches; POST it alone", i+1, invoke.ClipText(p.ProtocolVersion, 40))
				}
			}
		}
		return nil, 0, ""
	}
	m, err := jsonrpc.DecodeMessage(trimmed)
	if err == nil {
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			id = req.ID.Raw()
		}
		return id, 0, ""
	}
	if !json.Valid(trimmed) {
		return nil, jsonrpc.CodeParseError, "Parse error: the body is not valid JSON: " + syntaxError(trimmed)
	}
	return validID(trimmed), jsonrpc.CodeInvalidRequest, "Invalid Request: " + whyNotMessage(trimmed)
}

// syntaxError describes where JSON parsing failed.
func syntaxError(b []byte) string {
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", invoke.ClipText(se.Error(), 120), se.Offset)
	}
	if err != nil {
		return invoke.ClipText(err.Error(), 160)
	}
	return "unreadable"
}

// whyNotMessage says, in the terms of JSON-RPC 2.0, why valid JSON is not
// a message.
func whyNotMessage(b []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return "the body is JSON but not a JSON-RPC message object ({\"jsonrpc\":\"2.0\",\"id\":…,\"method\":…,\"params\":…})"
	}
	var version string
	if v, ok := obj["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != "2.0" {
		return `"jsonrpc" must be "2.0"`
	}
	if raw, ok := obj["id"]; ok {
		var v any
		json.Unmarshal(raw, &v)
		switch v.(type) {
		case string, float64, nil:
		default:
			return `"id" must be a string or a number`
		}
	}
	if raw, ok := obj["method"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return `"method" must be a string`
		}
		return "the message is not a valid request"
	}
	if _, ok := obj["id"]; !ok || string(bytes.TrimSpace(obj["id"])) == "null" {
		return `a message needs a "method" (a request or notification) or an "id" (a response)`
	}
	return "the message is not a valid response"
}

// validID returns the id of a message object when it is a string or a
// number, else nil.
func validID(b []byte) any {
	var obj struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(b, &obj) != nil {
		return nil
	}
	switch v := obj.ID.(type) {
	case string:
		return v
	case float64:
		return v
	}
	return nil
}

// rpcError is a JSON-RPC 2.0 error response.
type rpcError struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id,omitempty"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeRPCError(w http.ResponseWriter, status int, id any, code int, msg string) {
	e := rpcError{JSONRPC: "2.0", ID: id}
	e.Error.Code, e.Error.Message = code, msg
	b, _ := json.Marshal(e)
	h := w.Header()
	h.Del("X-Content-Type-Options")
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// plainErrorCatcher holds back a plain-text 400 the go-sdk writes after
// accepting the body, so that [plainErrorCatcher.finish] can answer with
// a JSON-RPC error instead. Everything else passes through untouched,
// streams included.
type plainErrorCatcher struct {
	http.ResponseWriter
	wrote  bool
	caught bool
	text   bytes.Buffer
}

func (c *plainErrorCatcher) WriteHeader(code int) {
	if c.wrote {
		return
	}
	c.wrote = true
	if code == http.StatusBadRequest && strings.HasPrefix(c.Header().Get("Content-Type"), "text/plain") {
		c.caught = true
		return
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *plainErrorCatcher) Write(p []byte) (int, error) {
	if !c.wrote {
		c.WriteHeader(http.StatusOK)
	}
	if c.caught {
		if room := 1024 - c.text.Len(); room > 0 {
			c.text.Write(p[:min(len(p), room)])
		}
		return len(p), nil
	}
	return c.ResponseWriter.Write(p)
}

// Flush passes a stream's events on at once (SSE needs it).
func (c *plainErrorCatcher) Flush() {
	if c.caught {
		return
	}
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *plainErrorCatcher) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *plainErrorCatcher) finish(id any) {
	if !c.caught {
		return
	}
	reason := strings.TrimSpace(c.text.String())
	if strings.Contains(reason, "JSON RPC not handled") {
		// The go-sdk's checkRequest: "JSON RPC not handled: \"x\" unsupported".
		writeRPCError(c.ResponseWriter, http.StatusBadRequest, id, jsonrpc.CodeMethodNotFound,
			"Method not found: "+invoke.ClipText(strings.TrimPrefix(reason, "JSON RPC not handled: "), 200))
		return
	}
	writeRPCError(c.ResponseWriter, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+invoke.ClipText(reason, 300))
}
