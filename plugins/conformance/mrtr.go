package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The fixtures of the suite's 2026-07-28 scenarios: multi-round-trip
// requests (input-required-result-*, SEP-2322) and the diagnostic tools
// of server-stateless. A connector asks as it always does (sdk.Elicit,
// sdk.Sample, sdk.Roots); the host turns a question to a 2026-07-28
// client into the call's input_required result and runs the tool again
// with the answers (host/internal/serve/mcpserver/mrtr.go), so each of
// these tools asks everything it needs, in order, on every run.

// mrtrTools are the tools' manifest entries.
func mrtrTools() []connector.Tool {
	tool := func(name, desc string) connector.Tool {
		return connector.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(noArgs)}
	}
	missing := tool("test_missing_capability", "Asks the client's model; cannot work without sampling, so a client that did not declare it gets -32021.")
	missing.RequiresClient = []string{connector.FeatureSampling}
	return []connector.Tool{
		tool("test_input_required_result_elicitation", `Asks the user's name under the input key "user_name" and greets them.`),
		tool("test_input_required_result_sampling", "Asks the client's model for the capital of France and returns its answer."),
		tool("test_input_required_result_list_roots", "Asks the client's roots and lists them."),
		tool("test_input_required_result_request_state", `Asks a confirmation and answers "state-ok" once the answer came back through the requestState round.`),
		tool("test_input_required_result_multiple_inputs", "Asks a name, the client's model and the client's roots at once."),
		tool("test_input_required_result_multi_round", `Asks a name ("step1"), then a colour ("step2"), in two rounds.`),
		tool("test_input_required_result_tampered_state", "Asks a confirmation; the host refuses a tampered requestState."),
		tool("test_input_required_result_capabilities", "Asks the user when the client can be asked that, else the client's model."),
		missing,
		tool("test_streaming_elicitation", "Asks the user a question (the answer of a 2026-07-28 call is its input_required result, never a request on the stream)."),
		tool("test_logging_tool", "Logs a line at info level; a 2026-07-28 client that set no log level gets no notification."),
		// The tasks scenarios' tools. slow_compute and confirm_delete are
		// tasks at once for a client that declared the extension;
		// failing_job runs only as one.
		{Name: "slow_compute", Description: "Works for the given number of seconds, then answers.", Task: connector.TaskOptional,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":120},"label":{"type":"string"}},"required":["seconds"],"additionalProperties":false}`)},
		{Name: "failing_job", Description: "Runs as a task and ends in a tool error.", Task: connector.TaskRequired,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"label":{"type":"string"}},"additionalProperties":true}`)},
		{Name: "confirm_delete", Description: "Asks the user to confirm a deletion (as a task: input_required), then answers.", Task: connector.TaskOptional,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"item":{"type":"string"},"label":{"type":"string"}},"additionalProperties":true}`)},
		// The tasks scenarios' synchronous tool: answered at once, never a
		// task (the host makes a task only of a call that waits).
		{Name: "greet", Description: "Greets a name: Hello, {name}!",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`)},
	}
}

// mrtrFuncs are the tools' functions.
func mrtrFuncs() map[string]sdk.ToolFunc {
	return map[string]sdk.ToolFunc{
		"test_input_required_result_elicitation":     askName("user_name"),
		"test_input_required_result_sampling":        askModel,
		"test_input_required_result_list_roots":      askRoots,
		"test_input_required_result_request_state":   askConfirm("state-ok: the confirmation came back with the request state"),
		"test_input_required_result_multiple_inputs": askAll,
		"test_input_required_result_multi_round":     askTwoRounds,
		"test_input_required_result_tampered_state":  askConfirm("confirmed"),
		"test_input_required_result_capabilities":    askWhatCan,
		"test_missing_capability":                    askModel,
		"test_streaming_elicitation":                 askName(""),
		"slow_compute": func(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
			var a struct {
				Seconds float64 `json:"seconds"`
				Label   string  `json:"label"`
			}
			if err := sdk.DecodeArgs(args, &a); err != nil {
				return nil, err
			}
			// The guest's sleep is the only clock it has (reconnection).
			time.Sleep(time.Duration(a.Seconds * float64(time.Second)))
			return connector.CallResult{Text: fmt.Sprintf("computed %s after %g s", a.Label, a.Seconds)}, nil
		},
		"failing_job": func(context.Context, connector.Host, json.RawMessage) (any, error) {
			return nil, errors.New("failing_job failed, as it always does")
		},
		"confirm_delete": func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
			res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: "confirm", Message: "Delete the item?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}}}`)})
			if err != nil {
				return nil, err
			}
			return connector.CallResult{Text: fmt.Sprintf("delete: action=%s, content=%s", res.Action, content(res))}, nil
		},
		"greet": func(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
			var a struct {
				Name string `json:"name"`
			}
			if err := sdk.DecodeArgs(args, &a); err != nil {
				return nil, err
			}
			return connector.CallResult{Text: "Hello, " + a.Name + "!"}, nil
		},
		"test_logging_tool": func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
			h.Log(ctx, connector.LevelInfo, "test_logging_tool ran")
			return connector.CallResult{Text: "Logged one line at info level."}, nil
		},
	}
}

const nameSchema = `{"type":"object","properties":{"name":{"type":"string","description":"Your name"}},"required":["name"]}`

// askName asks the user's name under key ("" leaves the key to the host).
func askName(key string) sdk.ToolFunc {
	return func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
		res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: key, Message: "What is your name?", RequestedSchema: json.RawMessage(nameSchema)})
		if err != nil {
			return nil, err
		}
		return connector.CallResult{Text: fmt.Sprintf("Hello, %s! (action=%s)", field(res, "name"), res.Action)}, nil
	}
}

// askConfirm asks a bare confirmation and answers text once it has it.
func askConfirm(text string) sdk.ToolFunc {
	return func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
		res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: "confirm", Message: "Please confirm to continue."})
		if err != nil {
			return nil, err
		}
		return connector.CallResult{Text: fmt.Sprintf("%s (action=%s)", text, res.Action)}, nil
	}
}

func askModel(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	text, err := sdk.SampleText(ctx, h, "What is the capital of France?", 100)
	if err != nil {
		return nil, err
	}
	return connector.CallResult{Text: "LLM response: " + text}, nil
}

func askRoots(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	list, err := sdk.Roots(ctx, h)
	if err != nil {
		return nil, err
	}
	var uris []string
	for _, r := range list {
		uris = append(uris, r.URI)
	}
	return connector.CallResult{Text: "Roots: " + strings.Join(uris, ", ")}, nil
}

// askAll asks its three questions before it looks at any answer, so that
// a 2026-07-28 client gets all three in one round.
func askAll(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	res, err1 := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: "user_name", Message: "What is your name?", RequestedSchema: json.RawMessage(nameSchema)})
	text, err2 := sdk.SampleText(ctx, h, "Say hello.", 100)
	list, err3 := sdk.Roots(ctx, h)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	return connector.CallResult{Text: fmt.Sprintf("name=%s, model=%q, roots=%d", field(res, "name"), text, len(list))}, nil
}

func askTwoRounds(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	name, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: "step1", Message: "Step 1: What is your name?", RequestedSchema: json.RawMessage(nameSchema)})
	if err != nil {
		return nil, err
	}
	colour, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: "step2", Message: "Step 2: What is your favorite color?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)})
	if err != nil {
		return nil, err
	}
	return connector.CallResult{Text: fmt.Sprintf("%s likes %s.", field(name, "name"), field(colour, "color"))}, nil
}

// askWhatCan asks the user when the client can be asked that, else the
// client's model: a connector asks only what its client declared.
func askWhatCan(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
	res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Key: "user_name", Message: "What is your name?", RequestedSchema: json.RawMessage(nameSchema)})
	if errors.Is(err, sdk.ErrClientUnsupported) {
		return askModel(ctx, h, args)
	}
	if err != nil {
		return nil, err
	}
	return connector.CallResult{Text: "Hello, " + field(res, "name") + "!"}, nil
}

// field is a string field of an accepted answer, "" otherwise.
func field(res connector.ElicitResult, name string) string {
	var m map[string]any
	if !res.Accepted() || json.Unmarshal(res.Content, &m) != nil {
		return ""
	}
	if v, ok := m[name]; ok {
		return fmt.Sprint(v)
	}
	return ""
}
