package config_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

// TestTracingSection: off by default (no endpoint), every key settable
// from the file and from BESLUITBRON_TRACING__*, and each bad value an
// error naming its key.
func TestTracingSection(t *testing.T) {
	cfg, err := config.Load("", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tracing.Endpoint != "" || cfg.Tracing.SampleRatio != 1 || cfg.Tracing.ServiceName != "" {
		t.Errorf("defaults = %+v", cfg.Tracing)
	}
	cfg, err = config.Load(write(t, "[tracing]\nendpoint = \"http://127.0.0.1:4318\"\nsample_ratio = 0.25\n"),
		[]string{"BESLUITBRON_TRACING__SERVICE_NAME=newsroom", "BESLUITBRON_TRACING__ENDPOINT=https://otel.example"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tracing.Endpoint != "https://otel.example" || cfg.Tracing.SampleRatio != 0.25 || cfg.Tracing.ServiceName != "newsroom" {
		t.Errorf("overrides = %+v", cfg.Tracing)
	}
	for _, c := range []struct{ body, want string }{
		{"[tracing]\nendpoint = \"127.0.0.1:4318\"", "tracing.endpoint"},
		{"[tracing]\nendpoint = \"ftp://collector\"", "tracing.endpoint"},
		{"[tracing]\nsample_ratio = 1.5", "tracing.sample_ratio"},
		{"[tracing]\nsample_ratio = -0.1", "tracing.sample_ratio"},
		{"[tracing]\nsample_ratio = \"all\"", "sample_ratio"},
		{"[tracing]\nservice_name = \"a\\nb\"", "tracing.service_name"},
		{"[tracing]\nendpont = \"http://c:4318\"", "endpont"},
	} {
		if _, err := config.Load(write(t, c.body), []string{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error naming %s", c.body, err, c.want)
		}
	}
}
