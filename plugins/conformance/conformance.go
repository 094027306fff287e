package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The fixed texts the suite's scenarios describe.
const (
	simpleText   = "This is a simple text response for testing."
	errorText    = "This tool intentionally returns an error for testing"
	staticText   = "This is the content of the static text resource."
	embeddedText = "This is an embedded resource content."
)

const noArgs = `{"type":"object","properties":{},"additionalProperties":false}`

// schema2020 is the input schema of json_schema_2020_12_tool, the suite's
// fixture as written (suite 0.2.0's json-schema-2020-12): the suite checks
// that $schema, $defs and additionalProperties (SEP-1613) and the
// composition, conditional and $anchor keywords (SEP-2106) reach the
// client untouched.
const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

// Plugin returns the connector.
func Plugin() *sdk.Plugin {
	img := redPixel()
	tool := func(name, desc, schema string) connector.Tool {
		return connector.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}
	}
	return &sdk.Plugin{
		Manifest: connector.Manifest{
			ID:          "conformance",
			Version:     "1.0.0",
			Title:       "MCP conformance fixtures",
			Description: "The fixture tools, resources and prompts of the official MCP conformance suite. Reaches no platform.",
			// Every fetch counts against a service; this connector makes none.
			Services: []connector.Service{{Name: "none", Description: "unused: the fixtures fetch nothing", LimitFrom: connector.LimitUnknown,
				LimitNote: "Reaches no platform.", LimitNoteNL: "Bereikt geen platform."}},
			// The suite's sampling and elicitation scenarios ask the
			// client; conformance.toml grants all three.
			ClientFeatures: []string{connector.FeatureElicitation, connector.FeatureSampling, connector.FeatureRoots},
			Tools: append([]connector.Tool{
				tool("test_simple_text", "Returns a fixed text.", noArgs),
				tool("test_image_content", "Returns a 1×1 red PNG image.", noArgs),
				tool("test_audio_content", "Returns a short silent WAV clip.", noArgs),
				tool("test_embedded_resource", "Returns an embedded text resource.", noArgs),
				tool("test_multiple_content_types", "Returns text, an image and an embedded resource.", noArgs),
				tool("test_tool_with_logging", "Logs three messages at info level while it runs.", noArgs),
				tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs.", noArgs),
				tool("test_error_handling", "Always fails with a tool error.", noArgs),
				tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features.", schema2020),
				tool("read_static_text", "Reads the static text resource.", noArgs),
				tool("read_watched_resource", "Reads the watched resource (the suite subscribes to it).", noArgs),
				tool("read_static_binary", "Reads the static binary resource.", noArgs),
				tool("read_template_data", "Reads the templated data resource of an id.",
					`{"type":"object","properties":{"id":{"type":"string","minLength":1}},"required":["id"],"additionalProperties":false}`),
				tool("test_sampling", "Asks the client's model to answer a prompt (sampling/createMessage) and returns its answer.",
					`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"],"additionalProperties":false}`),
				tool("test_elicitation", "Asks the user for a username and an email address (elicitation/create) and returns the answer.",
					`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"],"additionalProperties":false}`),
				tool("test_elicitation_sep1034_defaults", "Asks the user a form whose fields carry default values (SEP-1034).", noArgs),
				tool("test_elicitation_sep1330_enums", "Asks the user a form with every enum form (SEP-1330).", noArgs),
				tool("test_reconnection", "Answers after about 300 ms, long enough for the host to close the call's stream and the client to resume it (SEP-1699).", noArgs),
				tool("test_roots", "Lists the client's roots (roots/list).", noArgs),
			}, mrtrTools()...),
			Resources: []connector.ResourceTemplate{
				{Name: "static-text", URITemplate: "besluitbron://conformance/static-text", Description: "A static text resource.", MIMEType: "text/plain", Tool: "read_static_text"},
				{Name: "watched-resource", URITemplate: "besluitbron://conformance/watched-resource", Description: "A resource clients may subscribe to.", MIMEType: "text/plain", Tool: "read_watched_resource", Subscribable: true},
				{Name: "static-binary", URITemplate: "besluitbron://conformance/static-binary", Description: "A static binary resource (PNG).", MIMEType: "image/png", Tool: "read_static_binary"},
				{Name: "template-data", URITemplate: "besluitbron://conformance/template/{id}/data", Description: "Data for an id.", MIMEType: "application/json", Tool: "read_template_data"},
			},
			Prompts: []connector.Prompt{
				{Name: "test_simple_prompt", Description: "A simple prompt without arguments.", Template: "This is a simple prompt for testing."},
				{
					Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.",
					Arguments: []connector.PromptArgument{
						{Name: "arg1", Description: "First test argument", Required: true, Values: []string{"paris", "park", "party", "test", "testing"}},
						{Name: "arg2", Description: "Second test argument", Required: true},
					},
					Template: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'",
				},
				{
					Name: "test_prompt_with_embedded_resource", Description: "A prompt embedding a resource.",
					Arguments: []connector.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
					Messages: []connector.PromptMessage{
						{Role: "user", Content: connector.Content{Type: connector.ContentResource, URI: "{{resourceUri}}", MIMEType: "text/plain", Text: "Embedded resource content for testing."}},
						{Role: "user", Content: connector.Content{Type: connector.ContentText, Text: "Please process the embedded resource above."}},
					},
				},
				{
					// input-required-result-non-tool-request: a prompt
					// that needs the user's input before it is filled.
					Name: "test_input_required_result_prompt", Description: "A prompt that asks the user for its context first.",
					Ask: &connector.ElicitRequest{Key: "user_context", Message: "What context should the prompt use?",
						RequestedSchema: json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)},
					Template: "Answer with this context in mind: {{context}}",
				},
				{
					Name: "test_prompt_with_image", Description: "A prompt with an image.",
					Messages: []connector.PromptMessage{
						{Role: "user", Content: connector.Content{Type: connector.ContentImage, Data: img, MIMEType: "image/png"}},
						{Role: "user", Content: connector.Content{Type: connector.ContentText, Text: "Please analyze the image above."}},
					},
				},
			},
		},
		Tools: withFuncs(mrtrFuncs(), map[string]sdk.ToolFunc{
			"test_simple_text": fixed(connector.CallResult{Text: simpleText}),
			"test_image_content": fixed(connector.CallResult{Content: []connector.Content{
				{Type: connector.ContentImage, Data: img, MIMEType: "image/png"}}}),
			"test_audio_content": fixed(connector.CallResult{Content: []connector.Content{
				{Type: connector.ContentAudio, Data: silentWAV(), MIMEType: "audio/wav"}}}),
			"test_embedded_resource": fixed(connector.CallResult{Content: []connector.Content{
				{Type: connector.ContentResource, URI: "besluitbron://conformance/embedded-resource", MIMEType: "text/plain", Text: embeddedText}}}),
			"test_multiple_content_types": fixed(connector.CallResult{Text: "Multiple content types test:", Content: []connector.Content{
				{Type: connector.ContentImage, Data: img, MIMEType: "image/png"},
				{Type: connector.ContentResource, URI: "besluitbron://conformance/mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`},
			}}),
			"test_tool_with_logging":  withLogging,
			"test_tool_with_progress": withProgress,
			"test_error_handling": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return nil, fmt.Errorf("%s", errorText)
			},
			"json_schema_2020_12_tool": echo,
			"read_static_text":         fixed(connector.CallResult{Text: staticText}),
			"read_watched_resource":    fixed(connector.CallResult{Text: "Watched resource content."}),
			"read_static_binary": fixed(connector.CallResult{Content: []connector.Content{
				{Type: connector.ContentImage, Data: img, MIMEType: "image/png"}}}),
			"read_template_data":                templateData,
			"test_sampling":                     sampling,
			"test_elicitation":                  elicitation,
			"test_elicitation_sep1034_defaults": elicitForm(sep1034Schema),
			"test_elicitation_sep1330_enums":    elicitForm(sep1330Schema),
			"test_reconnection":                 reconnection,
			"test_roots":                        roots,
		}),
	}
}

// withFuncs is fs with more's tools added.
func withFuncs(more, fs map[string]sdk.ToolFunc) map[string]sdk.ToolFunc {
	for name, f := range more {
		fs[name] = f
	}
	return fs
}

// fixed is a tool without arguments answering res.
func fixed(res connector.CallResult) sdk.ToolFunc {
	return func(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
		var none struct{}
		if err := sdk.DecodeArgs(args, &none); err != nil {
			return nil, err
		}
		return res, nil
	}
}

// withLogging logs three lines through the host, which passes them to the
// calling client as notifications/message. The suite asks for ~50 ms
// between them; a connector has no clock (the sandbox's is fake), and the
// suite checks only that all three arrive.
func withLogging(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	for _, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		h.Log(ctx, connector.LevelInfo, m)
	}
	return connector.CallResult{Text: "Tool with logging executed successfully"}, nil
}

// withProgress reports three steps; the host sends them to a client that
// gave a progress token (and drops them otherwise).
func withProgress(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	for _, done := range []float64{0, 50, 100} {
		sdk.Progress(ctx, h, done, 100, fmt.Sprintf("step %.0f of 100", done))
	}
	return connector.CallResult{Text: "Tool with progress executed successfully"}, nil
}

func echo(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
	return connector.CallResult{Text: "Received: " + string(args)}, nil
}

func templateData(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
	var a struct {
		ID string `json:"id"`
	}
	if err := sdk.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	return map[string]any{"id": a.ID, "templateTest": true, "data": "Data for ID: " + a.ID}, nil
}

// sampling asks the client's model (tools-call-sampling). A client
// without sampling, or a host that did not grant it, makes it a tool
// error saying so.
func sampling(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
	var a struct {
		Prompt string `json:"prompt"`
	}
	if err := sdk.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	text, err := sdk.SampleText(ctx, h, a.Prompt, 100)
	if err != nil {
		return nil, err
	}
	return connector.CallResult{Text: "LLM response: " + text}, nil
}

// elicitationSchema is the form of tools-call-elicitation.
const elicitationSchema = `{"type":"object","properties":{` +
	`"username":{"type":"string","description":"User's response"},` +
	`"email":{"type":"string","description":"User's email address"}},` +
	`"required":["username","email"]}`

// elicitation asks the user (tools-call-elicitation) and echoes what they
// did: the host's tests read the answer back from it.
func elicitation(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
	var a struct {
		Message string `json:"message"`
	}
	if err := sdk.DecodeArgs(args, &a); err != nil {
		return nil, err
	}
	res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Message: a.Message, RequestedSchema: json.RawMessage(elicitationSchema)})
	if err != nil {
		return nil, err
	}
	return connector.CallResult{Text: fmt.Sprintf("User response: action=%s, content=%s", res.Action, content(res))}, nil
}

// sep1034Schema gives every primitive type a default (SEP-1034).
const sep1034Schema = `{"type":"object","properties":{` +
	`"name":{"type":"string","description":"User name","default":"John Doe"},` +
	`"age":{"type":"integer","description":"User age","default":30},` +
	`"score":{"type":"number","description":"User score","default":95.5},` +
	`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
	`"verified":{"type":"boolean","description":"Verification status","default":true}},` +
	`"required":[]}`

// sep1330Schema has the five enum forms of SEP-1330: untitled and titled
// single selects, the legacy enumNames, untitled and titled multi-selects.
const sep1330Schema = `{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},` +
	`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
	`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
	`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},` +
	`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},` +
	`"required":[]}`

// elicitForm asks a fixed form and reports the answer as the suite's
// elicitation-sep1034-defaults and elicitation-sep1330-enums scenarios
// describe.
func elicitForm(schema string) sdk.ToolFunc {
	return func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
		var none struct{}
		if err := sdk.DecodeArgs(args, &none); err != nil {
			return nil, err
		}
		res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Message: "Please review and update the form fields", RequestedSchema: json.RawMessage(schema)})
		if err != nil {
			return nil, err
		}
		return connector.CallResult{Text: fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, content(res))}, nil
	}
}

// content is an answer's form as JSON, {} when there is none.
func content(res connector.ElicitResult) string {
	if len(res.Content) == 0 {
		return "{}"
	}
	return string(res.Content)
}

// reconnection answers after about 300 ms, long enough for the host's
// stream to close under a call still running when it is told to (the
// suite's server-sse-polling scenario); the guest's sleep is the only
// clock it has.
func reconnection(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
	var none struct{}
	if err := sdk.DecodeArgs(args, &none); err != nil {
		return nil, err
	}
	time.Sleep(300 * time.Millisecond)
	return connector.CallResult{Text: "Reconnection test completed successfully"}, nil
}

// roots lists the client's roots.
func roots(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
	list, err := sdk.Roots(ctx, h)
	if err != nil {
		return nil, err
	}
	return map[string]any{"roots": list}, nil
}

// redPixel is a 1×1 red PNG.
func redPixel() []byte {
	m := image.NewRGBA(image.Rect(0, 0, 1, 1))
	m.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		panic(err) // an in-memory 1×1 image always encodes
	}
	return b.Bytes()
}

// silentWAV is 10 ms of 8 kHz 8-bit mono silence.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1)) // PCM
	w(uint16(1)) // mono
	w(uint32(rate))
	w(uint32(rate)) // bytes per second
	w(uint16(1))    // block align
	w(uint16(8))    // bits per sample
	b.WriteString("data")
	w(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples)) // 8-bit PCM silence is 128
	return b.Bytes()
}
