package conformance_test

import (
	"bytes"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/conformance"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func TestFixtures(t *testing.T) {
	p := conformance.Plugin()
	m := sdktest.CheckManifest(t, p)
	h := sdktest.NewHost(t)
	for _, tool := range m.Tools {
		args := `{}`
		if tool.Name == "read_template_data" {
			args = `{"id":"123"}`
		}
		res := sdktest.Call(t, p, h, tool.Name, args)
		if res.IsError != (tool.Name == "test_error_handling") {
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
	// The fixtures fetch nothing.
	if len(h.Requests()) != 0 {
		t.Errorf("fetched %v", h.URLs())
	}
}
