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

// schema2020 is the input schema of json_schema_2020_12_tool: the suite
// checks that $schema, $defs and additionalProperties reach the client.
const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
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
			Services: []connector.Service{{Name: "none", Description: "unused: the fixtures fetch nothing"}},
			Tools: []connector.Tool{
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
				tool("read_static_binary", "Reads the static binary resource.", noArgs),
				tool("read_template_data", "Reads the templated data resource of an id.",
					`{"type":"object","properties":{"id":{"type":"string","minLength":1}},"required":["id"],"additionalProperties":false}`),
			},
			Resources: []connector.ResourceTemplate{
				{Name: "static-text", URITemplate: "besluitbron://conformance/static-text", Description: "A static text resource.", MIMEType: "text/plain", Tool: "read_static_text"},
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
					Name: "test_prompt_with_image", Description: "A prompt with an image.",
					Messages: []connector.PromptMessage{
						{Role: "user", Content: connector.Content{Type: connector.ContentImage, Data: img, MIMEType: "image/png"}},
						{Role: "user", Content: connector.Content{Type: connector.ContentText, Text: "Please analyze the image above."}},
					},
				},
			},
		},
		Tools: map[string]sdk.ToolFunc{
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
			"read_static_binary": fixed(connector.CallResult{Content: []connector.Content{
				{Type: connector.ContentImage, Data: img, MIMEType: "image/png"}}}),
			"read_template_data": templateData,
		},
	}
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
