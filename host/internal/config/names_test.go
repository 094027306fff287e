package config_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

func TestToolPrefixAndResourceBase(t *testing.T) {
	cfg, err := config.Load(write(t, `
[connectors.obv]
module = "obv.wasm"
[connectors.conformance]
module = "conformance.wasm"
tool_prefix = ""
resource_base = "test://"
`), []string{"BESLUITBRON_CONNECTORS__ORI__MODULE=ori.wasm", "BESLUITBRON_CONNECTORS__ORI__TOOL_PREFIX=raad_"})
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Connectors["obv"].ToolPrefix; p != nil {
		t.Errorf("obv tool_prefix = %q, want unset (the host's <id>_)", *p)
	}
	if p := cfg.Connectors["conformance"].ToolPrefix; p == nil || *p != "" {
		t.Errorf("conformance tool_prefix = %v, want set and empty", p)
	}
	if p := cfg.Connectors["ori"].ToolPrefix; p == nil || *p != "raad_" {
		t.Errorf("ori tool_prefix from the environment = %v", p)
	}
	if b := cfg.Connectors["conformance"].ResourceBase; b != "test://" {
		t.Errorf("resource_base = %q", b)
	}
	for _, tc := range []struct{ body, want string }{
		{`tool_prefix = "a b"`, `connectors.x.tool_prefix "a b": want at most 32`},
		{`tool_prefix = "` + strings.Repeat("a", 33) + `"`, `connectors.x.tool_prefix`},
		{`resource_base = "no-scheme"`, `connectors.x.resource_base "no-scheme": want the start of an absolute URI`},
		{`resource_base = "test://x?q"`, `connectors.x.resource_base`},
	} {
		_, err := config.Load(write(t, "[connectors.x]\nmodule = \"x.wasm\"\n"+tc.body+"\n"), []string{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}
