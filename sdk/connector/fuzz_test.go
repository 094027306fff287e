package connector_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// FuzzManifest feeds arbitrary manifest JSON, as a guest's describe could
// return it, through decoding and Validate: no input may panic, every
// refusal names the connector, and what Validate accepts survives Clone
// unchanged and keeps the invariants the host relies on.
func FuzzManifest(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "manifests", "*.json"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m connector.Manifest
		if json.Unmarshal(b, &m) != nil {
			return
		}
		err := m.Validate()
		if err != nil {
			if !strings.HasPrefix(err.Error(), "manifest of connector ") {
				t.Fatalf("refusal does not name the connector: %v", err)
			}
			return
		}
		// Clone compacts raw JSON; the data must stay the same.
		want, _ := json.Marshal(m)
		got, _ := json.Marshal(m.Clone())
		if string(want) != string(got) {
			t.Fatalf("Clone changed a valid manifest:\norig:  %s\nclone: %s", want, got)
		}
		if len(m.Tools) == 0 || len(m.Services) == 0 {
			t.Fatalf("valid manifest without tools or services: %+v", m)
		}
		names := map[string]bool{}
		for _, tool := range m.Tools {
			if names[tool.Name] || !json.Valid(tool.InputSchema) {
				t.Fatalf("valid manifest with a duplicate tool or a bad schema: %q", tool.Name)
			}
			names[tool.Name] = true
		}
		for _, r := range m.Resources {
			if !names[r.Tool] || !strings.HasPrefix(r.URITemplate, "besluitbron://"+m.ID+"/") {
				t.Fatalf("valid manifest with a stray resource: %+v", r)
			}
		}
		for _, s := range m.Services {
			if s.Units > 0 && s.Per <= 0 {
				t.Fatalf("valid manifest with a limit and no window: %+v", s)
			}
		}
	})
}

// FuzzContent checks content items: Validate never panics, and an item it
// accepts has what the host needs to present it.
func FuzzContent(f *testing.F) {
	f.Add("image", "", []byte{1, 2}, "image/png", "")
	f.Add("resource", "x", []byte(nil), "text/plain", "besluitbron://obv/document/1")
	f.Add("text", "hello", []byte(nil), "", "")
	f.Add("audio", "", []byte{0}, "audio/wav", "")
	f.Fuzz(func(t *testing.T, typ, text string, data []byte, mime, uri string) {
		c := connector.Content{Type: typ, Text: text, Data: data, MIMEType: mime, URI: uri}
		if c.Validate() != nil {
			return
		}
		switch typ {
		case connector.ContentImage, connector.ContentAudio:
			if len(data) == 0 || !strings.Contains(mime, "/") {
				t.Fatalf("accepted %+v", c)
			}
		case connector.ContentResource:
			if !strings.Contains(uri, ":") || (text != "" && len(data) > 0) {
				t.Fatalf("accepted %+v", c)
			}
		case connector.ContentText:
		default:
			t.Fatalf("accepted unknown type %q", typ)
		}
	})
}
