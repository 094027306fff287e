package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

func TestStatusSection(t *testing.T) {
	cfg, err := config.Load("", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Status.Enabled || cfg.Status.Interval != 5*time.Minute || cfg.Status.SlowAfter != 5*time.Second {
		t.Errorf("defaults = %+v", cfg.Status)
	}
	cfg, err = config.Load(write(t, "[status]\ninterval = \"15m\"\nenabled = false\n"), []string{"BESLUITBRON_STATUS__SLOW_AFTER=2s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Status.Enabled || cfg.Status.Interval != 15*time.Minute || cfg.Status.SlowAfter != 2*time.Second {
		t.Errorf("overrides = %+v", cfg.Status)
	}
	for _, c := range []struct{ body, want string }{
		{"[status]\ninterval = \"10s\"", "status.interval"},
		{"[status]\nslow_after = \"0s\"", "status.slow_after"},
		{"[status]\nintervall = \"10m\"", "intervall"},
	} {
		if _, err := config.Load(write(t, c.body), []string{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error naming %s", c.body, err, c.want)
		}
	}
}
