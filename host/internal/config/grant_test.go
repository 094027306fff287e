package config_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestGrant(t *testing.T) {
	const table = "[connectors.demo]\nmodule = \"demo.wasm\"\n"
	cfg, err := config.Load(write(t, table), []string{})
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.Connectors["demo"].Grant; len(g) != 0 {
		t.Errorf("default grant %v, want nothing", g)
	}
	cfg, err = config.Load(write(t, table+"grant = [\"elicitation\", \"roots\"]\n"), []string{})
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.Connectors["demo"].Grant; !slices.Equal(g, []string{"elicitation", "roots"}) {
		t.Errorf("grant %v", g)
	}
	cfg, err = config.Load(write(t, table), []string{"BESLUITBRON_CONNECTORS__DEMO__GRANT=sampling, elicitation"})
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.Connectors["demo"].Grant; !slices.Equal(g, []string{"sampling", "elicitation"}) {
		t.Errorf("grant from the environment %v", g)
	}
	for _, c := range []struct{ body, want string }{
		{`grant = ["telepathy"]`, `connectors.demo.grant[0] "telepathy": not a client feature; want one of "elicitation", "sampling", "roots"`},
		{`grant = ["roots", "roots"]`, `connectors.demo.grant[1] "roots": granted twice`},
		{`grant = "elicitation"`, `connectors.demo.grant: want a list of client features in brackets, such as ["elicitation"]`},
		{`grants = ["elicitation"]`, `did you mean connectors.demo.grant?`},
	} {
		path := write(t, table+c.body+"\n")
		_, err := config.Load(path, []string{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Errorf("%s: got %v, want an error naming the file and saying %s", c.body, err, c.want)
		}
	}
}

func TestGrantMatchesManifest(t *testing.T) {
	path := write(t, "[connectors.demo]\nmodule = \"demo.wasm\"\ngrant = [\"elicitation\", \"sampling\"]\n")
	cfg, err := config.Load(path, []string{})
	if err != nil {
		t.Fatal(err)
	}
	m := connector.Manifest{ID: "demo", Services: []connector.Service{{Name: "api"}},
		Tools: []connector.Tool{{Name: "t", InputSchema: json.RawMessage(`{}`)}}, ClientFeatures: []string{"elicitation", "roots"}}
	err = cfg.CheckConnector("demo", m)
	want := `connectors.demo.grant[1] "sampling": connector "demo" does not ask for it; it asks for "elicitation", "roots" (its manifest's client_features)`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("a grant the manifest does not ask for: %v\nwant it to name %s and say %s", err, path, want)
	}
	m.ClientFeatures = nil
	if err := cfg.CheckConnector("demo", m); err == nil || !strings.Contains(err.Error(), `connector "demo" asks for no client feature; grant it nothing`) {
		t.Errorf("a grant to a connector that asks for nothing: %v", err)
	}
	m.ClientFeatures = []string{"roots", "sampling", "elicitation"}
	if err := cfg.CheckConnector("demo", m); err != nil {
		t.Errorf("a grant of what is asked for: %v", err)
	}
	granted, withheld := cfg.Connectors["demo"].Granted(m)
	if !slices.Equal(granted, []string{"sampling", "elicitation"}) || !slices.Equal(withheld, []string{"roots"}) {
		t.Errorf("Granted = %v, %v", granted, withheld)
	}
}
