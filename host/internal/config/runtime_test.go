package config_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

func TestConnectorRuntime(t *testing.T) {
	p := write(t, `
[connectors.obv]
module = "bin/plugins/obv.wasm"
[connectors.tk]
module = "bin/plugins/tk"
runtime = "process"
`)
	cfg, err := config.Load(p, []string{"BESLUITBRON_CONNECTORS__ORI__MODULE=bin/plugins/ori", "BESLUITBRON_CONNECTORS__ORI__RUNTIME=process"})
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"obv": "wasm", "tk": "process", "ori": "process"} {
		if got := cfg.Connectors[id].Runtime; got != want {
			t.Errorf("connectors.%s.runtime = %q, want %q", id, got, want)
		}
	}
	for _, bad := range []string{"native", "WASM", ""} {
		p := write(t, "[connectors.obv]\nmodule = \"x\"\nruntime = \""+bad+"\"\n")
		_, err := config.Load(p, []string{})
		if err == nil || !strings.Contains(err.Error(), `connectors.obv.runtime "`+bad+`": want "wasm" or "process"`) {
			t.Errorf("runtime %q: %v, want an error naming the key", bad, err)
		}
	}
}
