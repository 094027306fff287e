package mcpserver

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Owners names the connector behind a tool or resource as clients name
// them, prefixes and bases included; the host's own tools have none.
func TestOwners(t *testing.T) {
	a := fixtures(t, nil, "")
	b := fixtures(t, ptrTo("x."), "urn:x:")
	b.Manifest.ID = "other"
	b.Manifest.Resources = append([]connector.ResourceTemplate(nil), b.Manifest.Resources...)
	for i := range b.Manifest.Resources {
		b.Manifest.Resources[i].URITemplate = strings.Replace(b.Manifest.Resources[i].URITemplate, "//conformance/", "//other/", 1)
	}
	s, err := New(Options{Platforms: []Platform{a, b}, Logger: quiet, HostTools: []invoke.HostTool{{Name: "besluitbron_status", InputSchema: map[string]any{"type": "object"}}}})
	if err != nil {
		t.Fatal(err)
	}
	o := s.Owners()
	for name, want := range map[string]string{"conformance_test_simple_text": "conformance", "x.test_simple_text": "other", "test_simple_text": "", "besluitbron_status": "", "other_test_simple_text": ""} {
		if got, ok := o.Tool(name); got != want || ok != (want != "") {
			t.Errorf("tool %s: %q %v, want %q", name, got, ok, want)
		}
	}
	for uri, want := range map[string]string{"besluitbron://conformance/template/7/data": "conformance", "urn:x:static-text": "other", "urn:x:template/1/data": "other", "besluitbron://other/static-text": "", "urn:x:nothing": ""} {
		if got, ok := o.Resource(uri); got != want || ok != (want != "") {
			t.Errorf("resource %s: %q %v, want %q", uri, got, ok, want)
		}
	}
}
