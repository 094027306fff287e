package host_test

// A connector written outside this repository gets everything the seven
// built-in ones get, with no host edit: plugins/example is copied to a
// temporary directory, its sdk requirement pointed at this checkout, built
// there for wasip1 on its own (its module requires nothing but the sdk),
// pinned by sha256 and loaded beside a built-in connector. It must then
// appear on the search page (checkbox, organisation filter, results), in
// besluitbron_search, on /status and /status.json, and in
// besluitbron_status. What it catches: any host code that still knows
// connectors by id or by their import path (such a connector would be
// missing from one of these), an sdk that needs the rest of this
// repository to build, and a pin that is not checked.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goIn runs the go command in dir outside any workspace, as an author's
// machine would, and fails the test with its output.
func goIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

func getBody(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, clipText(string(b), 300))
	}
	return string(b)
}

// connectorsDoc is where the walkthrough for connector authors is
// written (it was README's "Writing a connector" until issue 31).
const connectorsDoc = "docs/connectors.md"

// docBlock returns the first ```sh block after marker in the document at
// path (from the repository's root).
func docBlock(t *testing.T, path, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), path))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("%s lacks %q", path, marker)
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	if start < 0 {
		t.Fatalf("%s has no sh block after %q", path, marker)
	}
	s = s[start+len("```sh\n"):]
	return s[:strings.Index(s, "```")]
}

// buildOutOfTree runs docs/connectors.md's walkthrough as written, from the root of
// the checkout with HOME in a temporary directory: copy plugins/example
// out of the repository, point its sdk requirement at the checkout, run
// its own tests and build its WebAssembly module. It returns the module's
// path and hex sha256.
func buildOutOfTree(t *testing.T) (wasm, sum string) {
	t.Helper()
	root := wasmbuild.Root()
	home := t.TempDir()
	if strings.HasPrefix(home, root+string(filepath.Separator)) {
		t.Fatalf("the temporary directory %s is inside the repository", home)
	}
	script := docBlock(t, connectorsDoc, "**Copy it out of the tree")
	// The go command's caches stay where they are (they default to
	// places under HOME); a cold build cache would only make this slow.
	env := []string{"HOME=" + home, "GOWORK=off"}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf(connectorsDoc+"'s walkthrough failed: %v\n%s\n%s", err, script, out)
	}
	dir := filepath.Join(home, "voorbeeld")
	wasm = filepath.Join(dir, "voorbeeld.wasm")
	b, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatalf(connectorsDoc+"'s walkthrough built no %s: %v\n%s", wasm, err, out)
	}
	s := sha256.Sum256(b)
	sum = hex.EncodeToString(s[:])
	if !strings.Contains(string(out), sum) {
		t.Errorf(connectorsDoc+"'s walkthrough did not print the module's sha256 %s:\n%s", sum, out)
	}
	// The copy's module graph is itself and the sdk: nothing else of this
	// repository's requirements.
	if deps := goIn(t, dir, nil, "list", "-m", "all"); strings.Count(strings.TrimSpace(deps), "\n") != 1 {
		t.Fatalf("the copied connector's module graph is more than itself and the sdk:\n%s", deps)
	}
	return wasm, sum
}

func outOfTreeConfig(t *testing.T, simURL, wasm, pin string) string {
	urls := platformsim.BaseURLs(simURL)
	return fmt.Sprintf(`[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[mcp_rate_limit]
enabled = false
[connectors.example]
module = %q
sha256 = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
[connectors.rechtspraak]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
`, proofCompileDir(t), t.TempDir(), wasm, pin, urls["obv"], wasmbuild.Path(t, "./plugins/rechtspraak/cmd"), urls["rechtspraak"])
}

func TestConnectorBuiltOutOfTree(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("builds a connector module from a copy (seconds; under -race it says nothing more)")
	}
	wasm, sum := buildOutOfTree(t)
	_, simURL := proofSim(t)

	// A wrong pin stops the start, naming the connector, the file and
	// both digests.
	wrong := strings.Repeat("0", 64)
	p := filepath.Join(t.TempDir(), "wrong.toml")
	if err := os.WriteFile(p, []byte(outOfTreeConfig(t, simURL, wasm, wrong)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := host.LoadConfig(p, []string{})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err == nil {
		h.Close(context.Background())
		t.Fatal("a wrong sha256 pin started the host")
	} else {
		for _, want := range []string{"connectors.example.sha256", wasm, sum, wrong} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("wrong pin: error %q lacks %q", err, want)
			}
		}
	}

	// The right pin starts it.
	h, base, _ := proofHost(t, outOfTreeConfig(t, simURL, wasm, sum))
	c := newProofClient(t, base, "out-of-tree")
	defer c.close()
	ctx := context.Background()

	// Its own tools answer through MCP.
	r := c.call(ctx, "example", "example_search", map[string]any{"query": "klimaat", "limit": 5})
	if r.err != nil || r.res.IsError {
		t.Fatalf("example_search: %v %s", r.err, resultText(r.res))
	}
	var own struct {
		Results []struct {
			Title string `json:"title"`
			Cite  struct {
				Text string `json:"text"`
			} `json:"cite"`
		} `json:"results"`
	}
	raw, _ := json.Marshal(r.res.StructuredContent)
	if err := json.Unmarshal(raw, &own); err != nil || len(own.Results) == 0 || own.Results[0].Title == "" {
		t.Fatalf("example_search: %v %s", err, clipText(string(raw), 400))
	}
	first := own.Results[0].Title
	// Its results are cited as the repository's are (issue 30): the host
	// writes the citation from what every result has.
	if c := own.Results[0].Cite.Text; !strings.Contains(c, first) {
		t.Errorf("example_search's first result is cited as %q, without its title %q", c, first)
	}

	// The search page: a checkbox, the organisation filter (its label and
	// the list tool's values), and results under its title.
	page := getBody(t, base+"/")
	for _, want := range []string{`value="example"`, `name="f.example"`, "Gemeente of bron", "OpenBesluitvorming (voorbeeldconnector)"} {
		if !strings.Contains(page, want) {
			t.Errorf("search page lacks %q", want)
		}
	}
	if en := getBody(t, base+"/?lang=en"); !strings.Contains(en, "OpenBesluitvorming (example connector)") || !strings.Contains(en, "Municipality or source") {
		t.Errorf("the English search page lacks the example's English title or filter label")
	}
	q := url.Values{"q": {"klimaat"}, "p": {"example", "rechtspraak"}}
	results := getBody(t, base+"/?"+q.Encode())
	if !strings.Contains(results, html.EscapeString(first)) {
		t.Errorf("search page results lack the example's first hit %q", first)
	}

	// The cross-search asks it, by the profile in its manifest: by
	// default (it searches free text), and named beside a platform that
	// has no free-text search (Rechtspraak, searched by the dates alone).
	for _, args := range []map[string]any{
		{"query": "klimaat"},
		{"query": "klimaat", "platforms": []string{"example", "rechtspraak"}, "date_from": "2015-01-01", "date_to": "2026-12-01"},
	} {
		r = c.call(ctx, "", "besluitbron_search", args)
		if r.err != nil || r.res.IsError {
			t.Fatalf("besluitbron_search %v: %v %s", args, r.err, resultText(r.res))
		}
		var cross struct {
			Answered []string `json:"answered"`
			Failed   []string `json:"failed"`
		}
		raw, _ = json.Marshal(r.res.StructuredContent)
		want := []string{"example"}
		if _, named := args["platforms"]; named {
			want = append(want, "rechtspraak")
		}
		if err := json.Unmarshal(raw, &cross); err != nil || strings.Join(cross.Answered, ",") != strings.Join(want, ",") {
			t.Errorf("besluitbron_search %v answered %v, failed %v (%v); want %v", args, cross.Answered, cross.Failed, err, want)
		}
	}

	// The Laadstatus checks it and reads its freshness as its manifest
	// says.
	host.CheckStatusNow(ctx, h)
	var snap struct {
		Platforms []struct {
			Platform  string          `json:"platform"`
			Title     string          `json:"title"`
			State     string          `json:"state"`
			Freshness json.RawMessage `json:"freshness"`
		} `json:"platforms"`
	}
	if err := json.Unmarshal([]byte(getBody(t, base+"/status.json")), &snap); err != nil {
		t.Fatal(err)
	}
	var title string
	for _, p := range snap.Platforms {
		if p.Platform == "example" {
			title = p.Title
			if p.State != "up" || len(p.Freshness) == 0 {
				t.Errorf("/status.json: example is %q with freshness %s; want up, with its newest record", p.State, p.Freshness)
			}
		}
	}
	if title == "" {
		t.Fatalf("/status.json does not name example: %+v", snap.Platforms)
	}
	if status := getBody(t, base+"/status"); !strings.Contains(status, html.EscapeString(title)) {
		t.Errorf("/status lacks %q", title)
	}
	r = c.call(ctx, "", "besluitbron_status", map[string]any{"platform": "example"})
	if r.err != nil || r.res.IsError || !strings.Contains(resultText(r.res), title+": up") {
		t.Errorf("besluitbron_status: %v %s", r.err, clipText(resultText(r.res), 600))
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
