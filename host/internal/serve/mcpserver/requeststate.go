package mcpserver

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestState: what a multi-round call carries from one round to the
// next (basic/patterns/mrtr.mdx, "Server Requirements").
//
// A call that asks runs again from its start with the client's answers
// (mrtr.go), so each round must have every answer its questions need. The
// client sends only the answers to the last round's questions
// (inputResponses), so the host puts the answers a round used in the
// requestState it returns with its questions, and the next round reads
// them back: a call that asks twice finds its first answer in the state
// and its second in inputResponses. The host keeps nothing between rounds
// ("Statelessness"): the state travels with the client.
//
// The specification has the server treat the state as untrusted input and
// protect it against tampering when it matters; here it does, because a
// state answers a connector's questions as if the user had. It is sealed
// with HMAC-SHA256 under the server's key and bound to the method, the
// tool and its arguments (a state cannot answer another call's questions)
// and to the principal it is charged to (callinfo.ChargedTo: a named
// client, an OAuth subject, else the client's address), with an expiry,
// the three measures mrtr.mdx's "Server Requirements" list against replay; a
// state that fails any check is refused with
// -32602 (invalid params), which is what the conformance suite's
// tampered-state scenario asks for. Its size is bounded by stateMax.

// stateLife is how long a round's requestState answers the next: enough
// for a person to read a question and answer it, short as mrtr.mdx asks
// ("a short expiry").
const stateLife = 15 * time.Minute

// stateMax bounds a sealed requestState, in bytes: the answers of a few
// forms. A round whose answers would not fit ends with a tool error.
const stateMax = 64 << 10

// stateCodec seals and opens requestStates.
type stateCodec struct {
	key []byte
	now func() time.Time
}

// newStateCodec returns a codec sealing with key, or with 32 random
// bytes when key is empty. The host passes none yet, so a state answers
// only on the process that sealed it: behind replicas without sticky
// routing, a round reaching another replica is refused (-32602) and the
// client starts the call over. A key shared through the configuration
// or Redis is the way to lift that.
func newStateCodec(key []byte, now func() time.Time) (*stateCodec, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("request state key: %w", err)
		}
	}
	if now == nil {
		now = time.Now
	}
	return &stateCodec{key: key, now: now}, nil
}

// stateBody is a requestState before sealing.
type stateBody struct {
	Principal string                     `json:"p"`
	Method    string                     `json:"m"`
	Name      string                     `json:"n"`
	Args      string                     `json:"a"` // SHA-256 of the compacted arguments, base64
	Expires   int64                      `json:"x"` // Unix milliseconds
	Answers   map[string]json.RawMessage `json:"r,omitempty"`
}

// argsDigest is the digest that binds a state to a call's arguments;
// compacted first, so that a client re-encoding the same arguments with
// other spacing still matches.
func argsDigest(args json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, args); err != nil {
		b.Reset()
		b.Write(args)
	}
	sum := sha256.Sum256(b.Bytes())
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (c *stateCodec) mac(body []byte) []byte {
	h := hmac.New(sha256.New, c.key)
	h.Write([]byte("besluitbron requestState v1\x00"))
	h.Write(body)
	return h.Sum(nil)
}

// seal returns the requestState carrying answers for principal's call of
// method on name with args.
func (c *stateCodec) seal(principal, method, name string, args json.RawMessage, answers map[string]mcp.InputResponse) (string, error) {
	b := stateBody{Principal: principal, Method: method, Name: name, Args: argsDigest(args), Expires: c.now().Add(stateLife).UnixMilli()}
	for k, a := range answers {
		raw, err := json.Marshal(a)
		if err != nil {
			return "", fmt.Errorf("answer %q: %w", k, err)
		}
		if b.Answers == nil {
			b.Answers = map[string]json.RawMessage{}
		}
		b.Answers[k] = raw
	}
	body, err := json.Marshal(b)
	if err != nil {
		return "", err
	}
	s := base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(c.mac(body))
	if len(s) > stateMax {
		return "", fmt.Errorf("%d bytes, more than %d", len(s), stateMax)
	}
	return s, nil
}

// errBadState is why a requestState was refused.
var errBadState = errors.New("requestState failed its integrity check")

// open returns the answers a requestState carries for principal's call
// of method on name with args, or a -32602 error when it was not sealed
// here for that call or has expired. An empty state carries nothing.
func (c *stateCodec) open(principal, method, name string, args json.RawMessage, state string) (mcp.InputResponseMap, error) {
	if state == "" {
		return nil, nil
	}
	refuse := func(why string) error {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: %v (%s); call again without it to start over", method, errBadState, why)}
	}
	if len(state) > stateMax {
		return nil, refuse("too large")
	}
	b64, sig, ok := strings.Cut(state, ".")
	if !ok {
		return nil, refuse("malformed")
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, c.mac(body)) {
		return nil, refuse("not sealed by this server")
	}
	var b stateBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, refuse("malformed")
	}
	switch {
	case b.Principal != principal:
		return nil, refuse("issued to another client")
	case b.Method != method || b.Name != name || b.Args != argsDigest(args):
		return nil, refuse("issued for another call")
	case c.now().UnixMilli() > b.Expires:
		return nil, refuse("expired")
	}
	if len(b.Answers) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(b.Answers)
	if err != nil {
		return nil, refuse("malformed")
	}
	var answers mcp.InputResponseMap
	if err := json.Unmarshal(raw, &answers); err != nil {
		return nil, refuse("malformed")
	}
	return answers, nil
}
