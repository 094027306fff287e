package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Client features: what a connector may ask the MCP client of the call it
// is serving. A connector's manifest asks for them ([Manifest.ClientFeatures]);
// the admin grants them per connector (connectors.<id>.grant); the host
// offers a call only when both did, and only to a client that declared the
// matching capability.
const (
	// FeatureElicitation asks the user a question through the client
	// (MCP elicitation/create): a form described by a JSON schema.
	FeatureElicitation = "elicitation"
	// FeatureSampling asks the client's language model for a completion
	// (MCP sampling/createMessage).
	FeatureSampling = "sampling"
	// FeatureRoots asks the client which roots (folders, files) the user
	// has opened (MCP roots/list).
	FeatureRoots = "roots"
)

// ClientFeatureNames are the client features there are, in the order
// errors list them.
func ClientFeatureNames() []string {
	return []string{FeatureElicitation, FeatureSampling, FeatureRoots}
}

// KnownClientFeature reports whether name is one of [ClientFeatureNames].
func KnownClientFeature(name string) bool {
	switch name {
	case FeatureElicitation, FeatureSampling, FeatureRoots:
		return true
	}
	return false
}

// Client is implemented by a [Host] that can reach the MCP client of the
// call: the host's runtimes, the native process's remote host, and
// sdktest.Host. Connectors call it through sdk.Elicit, sdk.Sample and
// sdk.Roots, which say what to do when a host does not implement it.
//
// Every method returns a *[ClientError] when the call cannot be asked
// (errors.Is with [ErrNotGranted], [ErrClientUnsupported], [ErrNoClient]).
// A user who declines or cancels is not an error: it is the
// [ElicitResult]'s Action.
type Client interface {
	// Elicit asks the user (elicitation/create, form mode) and waits for
	// the answer.
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResult, error)
	// CreateMessage asks the client's model for one message
	// (sampling/createMessage).
	CreateMessage(ctx context.Context, req SampleRequest) (SampleResult, error)
	// ListRoots asks for the client's roots (roots/list).
	ListRoots(ctx context.Context) (RootsResult, error)
}

// Elicitation actions: what the user did with the form.
const (
	// ElicitAccept: the user submitted the form; Content holds the answer.
	ElicitAccept = "accept"
	// ElicitDecline: the user explicitly refused to answer.
	ElicitDecline = "decline"
	// ElicitCancel: the user dismissed the form without choosing.
	ElicitCancel = "cancel"
)

// ElicitRequest mirrors the params of MCP's elicitation/create in form
// mode.
type ElicitRequest struct {
	// Message is what the user reads above the form.
	Message string `json:"message"`
	// RequestedSchema is the form: a JSON schema of type "object" whose
	// properties are primitives (string, number, integer, boolean) or
	// arrays of enumerated strings. It travels to the client as written,
	// byte for byte in meaning: defaults (SEP-1034), titled single
	// selects (oneOf of const/title), legacy enumNames, and multi-selects
	// (SEP-1330) pass through untouched. Empty asks for a bare
	// confirmation ({"type":"object","properties":{}}).
	RequestedSchema json.RawMessage `json:"requested_schema,omitempty"`
	// Key names the question for clients of MCP 2026-07-28, which get it
	// in the call's result (inputRequests) and answer it under this key
	// (inputResponses): a stable name a client can recognise, such as
	// "organisation". Empty lets the host name it by its place among the
	// call's questions. At most [MaxInputKey] bytes of ASCII letters,
	// digits, '_', '-' and '.'; the host's own names start with
	// "besluitbron-", which a connector's may not. Older clients never
	// see it.
	Key string `json:"key,omitempty"`
}

// Limits of the client features' messages; a larger request is refused
// before it reaches the client.
const (
	// MaxElicitMessage is the longest ElicitRequest.Message, in bytes.
	MaxElicitMessage = 4 << 10
	// MaxElicitSchema is the largest ElicitRequest.RequestedSchema.
	MaxElicitSchema = 64 << 10
	// MaxInputKey is the longest ElicitRequest.Key, in bytes.
	MaxInputKey = 64
	// MaxSampleRequest is the largest SampleRequest as JSON.
	MaxSampleRequest = 1 << 20
	// MaxSampleTokens is the largest SampleRequest.MaxTokens.
	MaxSampleTokens = 1 << 16
)

// Validate checks an elicitation request; the error names the field.
func (r ElicitRequest) Validate() error {
	switch {
	case strings.TrimSpace(r.Message) == "":
		return errors.New("elicitation: message is empty")
	case len(r.Message) > MaxElicitMessage:
		return fmt.Errorf("elicitation: message of %d bytes exceeds %d", len(r.Message), MaxElicitMessage)
	case len(r.RequestedSchema) > MaxElicitSchema:
		return fmt.Errorf("elicitation: requested_schema of %d bytes exceeds %d", len(r.RequestedSchema), MaxElicitSchema)
	}
	if err := CheckInputKey(r.Key); err != nil {
		return err
	}
	if len(r.RequestedSchema) == 0 {
		return nil
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(r.RequestedSchema, &schema); err != nil || schema == nil {
		return errors.New("elicitation: requested_schema is not a JSON object")
	}
	if t, ok := schema["type"]; ok && string(t) != `"object"` {
		return fmt.Errorf("elicitation: requested_schema's type is %s: want \"object\"", clipString(string(t), 40))
	}
	return nil
}

// HostInputKeyPrefix starts the names the host gives the questions a
// connector leaves unnamed ([ElicitRequest.Key]); a connector's own key
// may not start with it, so the two cannot collide.
const HostInputKeyPrefix = "besluitbron-"

// CheckInputKey checks an [ElicitRequest.Key]: empty, or 1 to
// [MaxInputKey] bytes of ASCII letters, digits, '_', '-' and '.', not
// starting with [HostInputKeyPrefix]. The characters are those a client
// can put in any JSON object key and a log line without escaping.
func CheckInputKey(key string) error {
	if key == "" {
		return nil
	}
	if len(key) > MaxInputKey {
		return fmt.Errorf("elicitation: key of %d bytes exceeds %d", len(key), MaxInputKey)
	}
	if strings.HasPrefix(key, HostInputKeyPrefix) {
		return fmt.Errorf("elicitation: key %q starts with %q, which the host keeps for the questions it names", key, HostInputKeyPrefix)
	}
	for _, c := range []byte(key) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("elicitation: key %q has %q: use ASCII letters, digits, '_', '-' and '.'", clipString(key, 70), c)
		}
	}
	return nil
}

// ElicitResult mirrors the result of MCP's elicitation/create.
type ElicitResult struct {
	// Action is ElicitAccept, ElicitDecline or ElicitCancel.
	Action string `json:"action"`
	// Content is the submitted form, a JSON object, when Action is
	// ElicitAccept; the client has checked it against the schema and
	// filled in the schema's defaults.
	Content json.RawMessage `json:"content,omitempty"`
}

// Accepted reports whether the user submitted the form.
func (r ElicitResult) Accepted() bool { return r.Action == ElicitAccept }

// Decode unmarshals an accepted answer's Content into v; it fails when the
// user did not accept.
func (r ElicitResult) Decode(v any) error {
	if r.Action != ElicitAccept {
		return fmt.Errorf("elicitation: the user did not accept (action %q)", r.Action)
	}
	content := r.Content
	if len(content) == 0 {
		content = json.RawMessage("{}")
	}
	if err := json.Unmarshal(content, v); err != nil {
		return fmt.Errorf("elicitation: the answer does not fit: %v", err)
	}
	return nil
}

// SampleRequest mirrors the params of MCP's sampling/createMessage.
type SampleRequest struct {
	// Messages are the conversation so far, oldest first.
	Messages []SamplingMessage `json:"messages"`
	// MaxTokens is the most tokens the model may produce (1 to
	// MaxSampleTokens).
	MaxTokens int `json:"max_tokens"`
	// SystemPrompt is a system prompt the client may use, change or drop.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// Temperature, when set, is the sampling temperature asked for.
	Temperature *float64 `json:"temperature,omitempty"`
	// StopSequences end the message when the model produces one.
	StopSequences []string `json:"stop_sequences,omitempty"`
	// ModelPreferences say which model the connector would like; the
	// client decides.
	ModelPreferences *ModelPreferences `json:"model_preferences,omitempty"`
}

// SamplingMessage is one message of a [SampleRequest] or the answer of a
// [SampleResult].
type SamplingMessage struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is a text, an image or an audio item (ContentText,
	// ContentImage, ContentAudio).
	Content Content `json:"content"`
}

// ModelPreferences mirror MCP's: hints (model name substrings, best
// first) and priorities from 0 to 1.
type ModelPreferences struct {
	Hints                []string `json:"hints,omitempty"`
	CostPriority         float64  `json:"cost_priority,omitempty"`
	SpeedPriority        float64  `json:"speed_priority,omitempty"`
	IntelligencePriority float64  `json:"intelligence_priority,omitempty"`
}

// Validate checks a sampling request; the error names the field.
func (r SampleRequest) Validate() error {
	if len(r.Messages) == 0 {
		return errors.New("sampling: messages: none")
	}
	if r.MaxTokens < 1 || r.MaxTokens > MaxSampleTokens {
		return fmt.Errorf("sampling: max_tokens %d: want 1 to %d", r.MaxTokens, MaxSampleTokens)
	}
	for i, m := range r.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("sampling: messages[%d].role %q: want user or assistant", i, m.Role)
		}
		switch m.Content.Type {
		case ContentText, ContentImage, ContentAudio:
		default:
			return fmt.Errorf("sampling: messages[%d].content.type %q: want text, image or audio", i, m.Content.Type)
		}
		if err := m.Content.Validate(); err != nil {
			return fmt.Errorf("sampling: messages[%d]: %v", i, err)
		}
	}
	if p := r.ModelPreferences; p != nil {
		for _, v := range []float64{p.CostPriority, p.SpeedPriority, p.IntelligencePriority} {
			if v < 0 || v > 1 {
				return fmt.Errorf("sampling: model_preferences: priority %v: want 0 to 1", v)
			}
		}
	}
	if b, err := json.Marshal(r); err != nil || len(b) > MaxSampleRequest {
		return fmt.Errorf("sampling: request exceeds %d bytes", MaxSampleRequest)
	}
	return nil
}

// SampleResult mirrors the result of MCP's sampling/createMessage: the
// model's message.
type SampleResult struct {
	SamplingMessage
	// Model names the model that answered.
	Model string `json:"model"`
	// StopReason is why it stopped ("endTurn", "stopSequence",
	// "maxTokens"), when the client says.
	StopReason string `json:"stop_reason,omitempty"`
}

// Root mirrors one root of MCP's roots/list: a file:// URI and a name.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RootsResult mirrors the result of MCP's roots/list.
type RootsResult struct {
	Roots []Root `json:"roots"`
}

// Kinds of [ClientError].
const (
	// ClientNotGranted: the admin did not grant the feature to the
	// connector (or its manifest did not ask for it).
	ClientNotGranted = "not_granted"
	// ClientUnsupported: the MCP client did not declare the capability
	// when it connected.
	ClientUnsupported = "unsupported"
	// ClientAbsent: the call comes from no MCP client (the search page,
	// the Laadstatus, a test host), so there is no one to ask.
	ClientAbsent = "no_client"
	// ClientRefused: the request itself is malformed or too large.
	ClientRefused = "refused"
	// ClientFailed: the client answered with an error, went away, or the
	// person did not answer in time.
	ClientFailed = "failed"
)

// Sentinel errors of the client features, for errors.Is.
var (
	// ErrNotGranted: the feature is not granted to the connector.
	ErrNotGranted = errors.New("client feature not granted")
	// ErrClientUnsupported: the MCP client did not declare the
	// capability.
	ErrClientUnsupported = errors.New("the MCP client does not support the client feature")
	// ErrNoClient: the call has no MCP client to ask.
	ErrNoClient = errors.New("no MCP client to ask")
)

// ClientError is why a client feature's call did not reach an answer. Its
// Message is for people and names the remedy (the grant to add, the
// capability the client lacks); Kind lets code branch, and errors.Is
// matches the sentinel of its kind.
type ClientError struct {
	Kind    string `json:"kind"`
	Feature string `json:"feature"`
	Message string `json:"message"`
}

func (e *ClientError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrNotGranted), ErrClientUnsupported and
// ErrNoClient true for a ClientError of the matching kind.
func (e *ClientError) Is(target error) bool {
	switch target {
	case ErrNotGranted:
		return e.Kind == ClientNotGranted
	case ErrClientUnsupported:
		return e.Kind == ClientUnsupported
	case ErrNoClient:
		return e.Kind == ClientAbsent
	}
	return false
}

// NotGranted is the error of a feature not granted to connector id.
func NotGranted(feature, id string) *ClientError {
	return &ClientError{Kind: ClientNotGranted, Feature: feature, Message: fmt.Sprintf(
		"client feature %q is not granted to connector %q: add it to connectors.%s.grant (and to the manifest's client_features)", feature, id, id)}
}

// Unsupported is the error of a client that did not declare the feature's
// capability.
func Unsupported(feature string) *ClientError {
	return &ClientError{Kind: ClientUnsupported, Feature: feature, Message: fmt.Sprintf(
		"the MCP client did not declare the %q capability when it connected, so it cannot be asked", feature)}
}

// NoClient is the error of a call that comes from no MCP client.
func NoClient(feature string) *ClientError {
	return &ClientError{Kind: ClientAbsent, Feature: feature, Message: fmt.Sprintf(
		"no client to ask: this call does not come from an MCP client (%s needs one)", feature)}
}

// AsClientError returns err as a *ClientError of feature: itself when it
// is one, else a ClientFailed error carrying its message.
func AsClientError(feature string, err error) *ClientError {
	var ce *ClientError
	if errors.As(err, &ce) {
		return ce
	}
	return &ClientError{Kind: ClientFailed, Feature: feature, Message: fmt.Sprintf("%s: %v", feature, err)}
}

// ClientReply is the host's answer to a client feature's call on the
// WebAssembly ABI and the native wire: exactly one field is set.
type ClientReply struct {
	Elicit *ElicitResult `json:"elicit,omitempty"`
	Sample *SampleResult `json:"sample,omitempty"`
	Roots  *RootsResult  `json:"roots,omitempty"`
	Error  *ClientError  `json:"error,omitempty"`
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// AsksFor reports whether the manifest asks for the client feature.
func (m *Manifest) AsksFor(feature string) bool {
	for _, f := range m.ClientFeatures {
		if f == feature {
			return true
		}
	}
	return false
}
