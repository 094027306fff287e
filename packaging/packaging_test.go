package packaging

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/besluitbron/besluitbron/host"
)

// resolved reads a vendored schema.
func resolved(t *testing.T, file string) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func readJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}

// TestServerJSON: the registry entry passes the registry's published
// schema (2025-12-11, vendored), names the schema it passes, and agrees
// with the image: its name is the image's io.modelcontextprotocol.server.name
// label (the registry's ownership check of an OCI package) and the image's
// tag is the entry's version.
func TestServerJSON(t *testing.T) {
	rs := resolved(t, "schemas/server.schema.json")
	s := readJSON(t, "../server.json")
	if err := rs.Validate(s); err != nil {
		t.Fatalf("server.json: %v", err)
	}
	var schema struct {
		ID string `json:"$id"`
	}
	raw, _ := os.ReadFile("schemas/server.schema.json")
	json.Unmarshal(raw, &schema)
	if s["$schema"] != schema.ID {
		t.Errorf("server.json's $schema %v, the vendored schema is %s", s["$schema"], schema.ID)
	}
	image, _ := os.ReadFile("../cmd/mkimage/image.go")
	if !strings.Contains(string(image), `ServerName = "`+s["name"].(string)+`"`) {
		t.Errorf("cmd/mkimage's ServerName label is not server.json's name %v", s["name"])
	}
	var oci, remote bool
	for _, p := range s["packages"].([]any) {
		p := p.(map[string]any)
		if p["registryType"] == "oci" {
			oci = true
			if want := "ghcr.io/besluitbron/besluitbron:" + s["version"].(string); p["identifier"] != want {
				t.Errorf("oci identifier %v, want %s", p["identifier"], want)
			}
			var args []string
			for _, a := range p["packageArguments"].([]any) {
				a := a.(map[string]any)
				if a["type"] == "named" {
					args = append(args, a["name"].(string))
				}
				args = append(args, a["value"].(string))
			}
			if want := []string{"stdio", "--config", "/etc/besluitbron/plugins.toml"}; !slices.Equal(args, want) {
				t.Errorf("the image's arguments %q, want %q", args, want)
			}
		}
	}
	for _, r := range s["remotes"].([]any) {
		r := r.(map[string]any)
		remote = remote || (r["type"] == "streamable-http" && strings.HasSuffix(r["url"].(string), "/mcp/unified/v1"))
	}
	if !oci || !remote {
		t.Errorf("server.json: oci package %v, streamable-http remote %v", oci, remote)
	}

	// The schema is not vacuous: what the registry refuses, it refuses.
	for name, change := range map[string]func(map[string]any){
		"a name without a namespace": func(m map[string]any) { m["name"] = "besluitbron" },
		"a description over 100":     func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"no version":                 func(m map[string]any) { delete(m, "version") },
		"a remote that is no URL":    func(m map[string]any) { m["remotes"].([]any)[0].(map[string]any)["url"] = "besluitbron.example/mcp" },
		"a bad bundle hash": func(m map[string]any) {
			m["packages"] = append(m["packages"].([]any), map[string]any{"registryType": "mcpb", "identifier": "https://x/b.mcpb", "fileSha256": "abc", "transport": map[string]any{"type": "stdio"}})
		},
	} {
		bad := readJSON(t, "../server.json")
		change(bad)
		if rs.Validate(bad) == nil {
			t.Errorf("the schema passed %s", name)
		}
	}
}

// TestMCPBManifest: the bundle's manifest passes MCPB's schema (v0.3,
// vendored from @anthropic-ai/mcpb) and, where scripts/mcpb-deps.sh has
// installed it and Node runs, `mcpb validate` itself.
func TestMCPBManifest(t *testing.T) {
	m := readJSON(t, "mcpb/manifest.json")
	if err := resolved(t, "schemas/mcpb-manifest-v0.3.schema.json").Validate(m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	s := readJSON(t, "../server.json")
	if m["version"] != s["version"] {
		t.Errorf("manifest version %v, server.json %v", m["version"], s["version"])
	}
	server := m["server"].(map[string]any)
	cfg := server["mcp_config"].(map[string]any)
	args := slices.Collect(func(yield func(string) bool) {
		for _, a := range cfg["args"].([]any) {
			yield(a.(string))
		}
	})
	if want := []string{"stdio", "--config", "${__dirname}/plugins.toml"}; !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if info, err := os.Stat("mcpb/darwin.sh"); err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("mcpb/darwin.sh: %v, mode %v", err, info)
	}
	if s, _ := os.ReadFile("mcpb/darwin.sh"); !strings.Contains(string(s), `darwin-$arch/besluitbron`) {
		t.Error("darwin.sh does not run server/darwin-<arch>/besluitbron")
	}

	node := mcpbCLI(t)
	if node == "" {
		return
	}
	cli := filepath.Join("..", "var", "mcpb", "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js")
	out, err := exec.Command(node, cli, "validate", "mcpb/manifest.json").CombinedOutput()
	if err != nil {
		t.Fatalf("mcpb validate: %v\n%s", err, out)
	}
	t.Logf("mcpb validate: %s", strings.TrimSpace(string(out)))
}

// imageEnv is cmd/mkimage's Env, the environment every container of the
// image starts with (cmd/mkimage's tests check the image carries it).
var imageEnv = []string{
	"BESLUITBRON_SERVER__ADDR=:8080",
	"BESLUITBRON_LOG__FORMAT=json",
	"BESLUITBRON_CACHE__DIR=/var/lib/besluitbron/cache",
	"BESLUITBRON_RUNTIME__COMPILATION_CACHE_DIR=/var/lib/besluitbron/wazero",
}

// TestImageConfig: the image's config loads with the image's environment
// and names every connector of plugins.toml, at the path cmd/mkimage puts
// its module.
func TestImageConfig(t *testing.T) {
	cfg, err := host.LoadConfig("image/plugins.toml", imageEnv)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := host.LoadConfig("../plugins.toml", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(cfg.Connectors)), slices.Sorted(maps.Keys(dev.Connectors)); !slices.Equal(got, want) {
		t.Errorf("the image's connectors %v, plugins.toml's %v", got, want)
	}
	for id, c := range cfg.Connectors {
		if want := "/usr/lib/besluitbron/plugins/" + id + ".wasm"; c.Module != want {
			t.Errorf("%s: module %s, want %s", id, c.Module, want)
		}
	}
	if cfg.Server.Addr != ":8080" || cfg.Cache.Dir != "/var/lib/besluitbron/cache" || cfg.Log.Format != "json" {
		t.Errorf("addr %q, cache %q, log %q", cfg.Server.Addr, cfg.Cache.Dir, cfg.Log.Format)
	}
}

// TestCompose: the compose example parses, and the settings it gives each
// BesluitBron replica load through the config package (which refuses an
// unknown key) over the image's config, as the container would start.
func TestCompose(t *testing.T) {
	raw, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Image       string
			Environment map[string]string
			Volumes     []string
			Networks    yaml.Node
		}
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"redis", "besluitbron-1", "besluitbron-2", "proxy"} {
		if _, ok := c.Services[want]; !ok {
			t.Fatalf("no service %s", want)
		}
	}
	nginx, err := os.ReadFile("compose/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Services["proxy"].Volumes, "./nginx.conf:/etc/nginx/conf.d/default.conf:ro") {
		t.Errorf("the proxy does not mount nginx.conf: %v", c.Services["proxy"].Volumes)
	}
	proxyIP := regexp.MustCompile(`ipv4_address: ([0-9.]+)`).FindSubmatch(raw)
	if proxyIP == nil {
		t.Fatal("the proxy has no fixed address for trusted_proxies")
	}
	ids := map[string]bool{}
	for _, name := range []string{"besluitbron-1", "besluitbron-2"} {
		s := c.Services[name]
		if !strings.HasPrefix(s.Image, "ghcr.io/besluitbron/besluitbron:") {
			t.Errorf("%s: image %q", name, s.Image)
		}
		if !strings.Contains(string(nginx), "server "+name+":8080") {
			t.Errorf("nginx.conf does not balance to %s:8080", name)
		}
		env := slices.Clone(imageEnv)
		for k, v := range s.Environment {
			env = append(env, k+"="+v)
		}
		cfg, err := host.LoadConfig("image/plugins.toml", env)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.HasPrefix(cfg.Cluster.RedisURL, "redis://redis:6379/") {
			t.Errorf("%s: redis_url %q does not name the redis service", name, cfg.Cluster.RedisURL)
		}
		if ids[cfg.Cluster.ReplicaID] {
			t.Errorf("%s: replica_id %q taken", name, cfg.Cluster.ReplicaID)
		}
		ids[cfg.Cluster.ReplicaID] = true
		ip := netip.MustParseAddr(string(proxyIP[1]))
		trusted := false
		for _, p := range cfg.Server.TrustedProxies {
			trusted = trusted || netip.MustParsePrefix(p).Contains(ip)
		}
		if !trusted {
			t.Errorf("%s: trusted_proxies %v lacks the proxy %s", name, cfg.Server.TrustedProxies, ip)
		}
	}
	// A mistyped key in the example would be refused at the start, as here.
	if _, err := host.LoadConfig("image/plugins.toml", append(slices.Clone(imageEnv), "BESLUITBRON_CLUSTER__REDIS_ULR=redis://redis:6379/0")); err == nil {
		t.Error("an unknown key loaded")
	}
}

// TestVersionScript runs scripts/version.sh in a scratch repository
// through each git state a build can meet.
func TestVersionScript(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	script, err := os.ReadFile("../scripts/version.sh")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.WriteFile(filepath.Join(dir, "scripts", "version.sh"), script, 0o755)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	version := func() string {
		t.Helper()
		out, err := exec.Command("bash", filepath.Join(dir, "scripts", "version.sh")).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	if v := version(); v != "dev" {
		t.Errorf("no git: %q, want dev", v)
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, "a"), []byte("1"), 0o644)
	git("add", ".")
	git("commit", "-qm", "one")
	for _, c := range []struct {
		do   func()
		want string
	}{
		{func() {}, `^0\.0\.0-dev\.g[0-9a-f]{12}$`},
		{func() { os.WriteFile(filepath.Join(dir, "a"), []byte("2"), 0o644) }, `^0\.0\.0-dev\.g[0-9a-f]{12}-dirty$`},
		{func() { git("commit", "-qam", "two"); git("tag", "not-a-version") }, `^0\.0\.0-dev\.g[0-9a-f]{12}$`},
		{func() { git("tag", "v0.1.0") }, `^0\.1\.0$`},
		{func() { os.WriteFile(filepath.Join(dir, "a"), []byte("3"), 0o644) }, `^0\.1\.0-dirty$`},
		{func() { git("commit", "-qam", "three") }, `^0\.1\.0-1-g[0-9a-f]{12}$`},
		{func() { os.WriteFile(filepath.Join(dir, "a"), []byte("4"), 0o644) }, `^0\.1\.0-1-g[0-9a-f]{12}-dirty$`},
	} {
		c.do()
		v := version()
		if !regexp.MustCompile(c.want).MatchString(v) {
			t.Errorf("version %q, want %s", v, c.want)
		}
		// The image is tagged with it: an OCI distribution tag.
		if !regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`).MatchString(v) {
			t.Errorf("version %q is no image tag", v)
		}
	}
}

// mcpbCLI installs the MCPB CLI (scripts/mcpb-deps.sh) and returns the
// node that runs it (the project's Node 22, scripts/node-deps.sh). Without node and npm the bundle is checked against
// the vendored schema only: that fails on CI, where they are installed,
// and is logged elsewhere ("" returned).
func mcpbCLI(t *testing.T) string {
	t.Helper()
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing: the bundle is validated with `mcpb validate` (scripts/mcpb-deps.sh)", bin)
			}
			t.Logf("mcpb validate not run: %s is missing (scripts/mcpb-deps.sh needs node and npm)", bin)
			return ""
		}
	}
	for _, script := range []string{"mcpb-deps.sh", "node-deps.sh"} {
		cmd := exec.Command("bash", filepath.Join("..", "scripts", script))
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("scripts/%s: %v\n%s", script, err, errb.String())
		}
		if script == "node-deps.sh" {
			return filepath.Join(strings.TrimSpace(string(out)), "node")
		}
	}
	return ""
}
