package conformance_test

import (
	"bytes"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/conformance"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func TestFixtures(t *testing.T) {
	p := conformance.Plugin()
	m := sdktest.CheckManifest(t, p)
	h := sdktest.NewHost(t).OnElicit(sdktest.Accept(`{"username":"u","email":"u@example.org"}`)).
		OnSample(sdktest.SampleReply("m", "hello")).OnRoots(connector.Root{URI: "file:///tmp"})
	args := map[string]string{"read_template_data": `{"id":"123"}`, "test_sampling": `{"prompt":"hi"}`, "test_elicitation": `{"message":"Who?"}`}
	for _, tool := range m.Tools {
		args := args[tool.Name]
		if args == "" {
			args = `{}`
		}
		res := sdktest.Call(t, p, h, tool.Name, args)
		if res.IsError != (tool.Name == "test_error_handling" || tool.Name == "failing_job") {
			t.Errorf("%s: IsError %v: %s", tool.Name, res.IsError, res.Text)
		}
		for i, c := range res.Content {
			if err := c.Validate(); err != nil {
				t.Errorf("%s content[%d]: %v", tool.Name, i, err)
			}
		}
	}
	img := sdktest.Call(t, p, h, "test_image_content", `{}`).Content[0]
	if !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("image is not a PNG: % x", img.Data[:8])
	}
	wav := sdktest.Call(t, p, h, "test_audio_content", `{}`).Content[0]
	if !bytes.HasPrefix(wav.Data, []byte("RIFF")) || !bytes.Contains(wav.Data[:16], []byte("WAVE")) || len(wav.Data) != 44+80 {
		t.Errorf("audio is not the 124-byte WAV: %d bytes", len(wav.Data))
	}
	if r := sdktest.Call(t, p, h, "read_template_data", `{"id":"123"}`); r.Text != `{"data":"Data for ID: 123","id":"123","templateTest":true}` {
		t.Errorf("template data %s", r.Text)
	}
	if r := sdktest.Call(t, p, h, "test_elicitation", `{"message":"Who?"}`); r.Text != `User response: action=accept, content={"username":"u","email":"u@example.org"}` {
		t.Errorf("elicitation %s", r.Text)
	}
	if r := sdktest.Call(t, p, h, "test_sampling", `{"prompt":"hi"}`); r.Text != "LLM response: hello" {
		t.Errorf("sampling %s", r.Text)
	}
	// The fixtures fetch nothing.
	if len(h.Requests()) != 0 {
		t.Errorf("fetched %v", h.URLs())
	}
}
