package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// fixture writes small stand-ins for the binaries, connectors, config and
// CA bundle (their bytes only have to arrive intact) and returns Options.
func fixture(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("plugins/obv.wasm", "\x00asm obv")
	write("plugins/tk.wasm", "\x00asm tk")
	write("plugins/README", "not a connector")
	return Options{
		Binaries: map[string]string{
			"linux/amd64": write("amd64/besluitbron", "ELF amd64"),
			"linux/arm64": write("arm64/besluitbron", "ELF arm64"),
		},
		PluginsDir: filepath.Join(dir, "plugins"),
		ConfigFile: write("plugins.toml", "[server]\naddr = \":8080\"\n"),
		CACerts:    write("ca.crt", "-----BEGIN CERTIFICATE-----\n"),
		Version:    "0.1.0",
		Revision:   "0123456789abcdef",
		Created:    time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC),
	}
}

// file is what a test reads back of one tar entry.
type file struct {
	mode     int64
	uid, gid int
	typ      byte
	body     string
}

// filesOf flattens an image's layers (later layers win).
func filesOf(t *testing.T, img v1.Image) map[string]file {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]file{}
	for _, l := range layers {
		if mt, _ := l.MediaType(); mt != types.OCILayer {
			t.Errorf("layer media type %s, want %s", mt, types.OCILayer)
		}
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(tr)
			out["/"+strings.TrimSuffix(h.Name, "/")] = file{mode: h.Mode, uid: h.Uid, gid: h.Gid, typ: h.Typeflag, body: string(b)}
		}
		rc.Close()
	}
	return out
}

// TestImageLayout builds the image from stand-in files and reads the
// layout back as crane or skopeo would: one index named by the version,
// an image per platform, each with the config a deployment relies on.
func TestImageLayout(t *testing.T) {
	o := fixture(t)
	dir := filepath.Join(t.TempDir(), "oci")
	digest, err := Build(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	outer, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	om, err := outer.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(om.Manifests) != 1 || om.Manifests[0].Digest != digest || om.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "0.1.0" {
		t.Fatalf("index.json = %+v, want one index %s named 0.1.0", om.Manifests, digest)
	}
	idx, err := outer.ImageIndex(digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s", im.MediaType)
	}
	var archs []string
	for _, d := range im.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" {
			t.Fatalf("manifest %s: platform %+v", d.Digest, d.Platform)
		}
		archs = append(archs, d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, img, d.Platform.Architecture, o)
	}
	if !slices.Equal(archs, []string{"amd64", "arm64"}) {
		t.Errorf("platforms %v, want amd64 and arm64", archs)
	}

	// The same inputs give the same digest: the release is reproducible.
	again, err := Build(filepath.Join(t.TempDir(), "oci"), o)
	if err != nil {
		t.Fatal(err)
	}
	if again != digest {
		t.Errorf("second build %s, first %s", again, digest)
	}
}

func checkImage(t *testing.T, img v1.Image, arch string, o Options) {
	t.Helper()
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("%s: manifest media type %s", arch, mt)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || cf.Architecture != arch {
		t.Errorf("config platform %s/%s, want linux/%s", cf.OS, cf.Architecture, arch)
	}
	if c.User != "65532:65532" {
		t.Errorf("%s: user %q, want 65532:65532 (non-root)", arch, c.User)
	}
	cmd := append(slices.Clone(c.Entrypoint), c.Cmd...)
	if want := []string{"/usr/local/bin/besluitbron", "serve", "--config", "/etc/besluitbron/plugins.toml"}; !slices.Equal(cmd, want) {
		t.Errorf("%s: entrypoint+cmd %q, want %q", arch, cmd, want)
	}
	for _, want := range []string{"BESLUITBRON_SERVER__ADDR=:8080", "BESLUITBRON_LOG__FORMAT=json",
		"BESLUITBRON_CACHE__DIR=/var/lib/besluitbron/cache", "BESLUITBRON_RUNTIME__COMPILATION_CACHE_DIR=/var/lib/besluitbron/wazero"} {
		if !slices.Contains(c.Env, want) {
			t.Errorf("%s: env %q lacks %s", arch, c.Env, want)
		}
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("%s: exposed ports %v, want 8080/tcp", arch, c.ExposedPorts)
	}
	if _, ok := c.Volumes["/var/lib/besluitbron"]; !ok {
		t.Errorf("%s: volumes %v", arch, c.Volumes)
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":    "0.1.0",
		"org.opencontainers.image.source":     DefaultSource,
		"org.opencontainers.image.revision":   "0123456789abcdef",
		"org.opencontainers.image.created":    "2026-12-05T12:00:00Z",
		"org.opencontainers.image.title":      "BesluitBron",
		"io.modelcontextprotocol.server.name": "io.github.besluitbron/besluitbron",
	} {
		if c.Labels[k] != v {
			t.Errorf("%s: label %s = %q, want %q", arch, k, c.Labels[k], v)
		}
	}
	if !cf.Created.Time.Equal(o.Created) {
		t.Errorf("%s: created %v", arch, cf.Created)
	}

	files := filesOf(t, img)
	want := map[string]file{
		"/usr/local/bin/besluitbron":            {mode: 0o755, typ: tar.TypeReg, body: "ELF " + arch},
		"/usr/lib/besluitbron/plugins/obv.wasm": {mode: 0o644, typ: tar.TypeReg, body: "\x00asm obv"},
		"/usr/lib/besluitbron/plugins/tk.wasm":  {mode: 0o644, typ: tar.TypeReg, body: "\x00asm tk"},
		"/etc/besluitbron/plugins.toml":         {mode: 0o644, typ: tar.TypeReg, body: "[server]\naddr = \":8080\"\n"},
		"/etc/ssl/certs/ca-certificates.crt":    {mode: 0o644, typ: tar.TypeReg, body: "-----BEGIN CERTIFICATE-----\n"},
		"/var/lib/besluitbron":                  {mode: 0o755, typ: tar.TypeDir, uid: UID, gid: GID},
		"/tmp":                                  {mode: 0o1777, typ: tar.TypeDir},
		"/usr/lib/besluitbron/plugins":          {mode: 0o755, typ: tar.TypeDir},
	}
	for p, w := range want {
		got, ok := files[p]
		if !ok {
			t.Errorf("%s: no %s in the image", arch, p)
			continue
		}
		if got != w {
			t.Errorf("%s: %s = %+v, want %+v", arch, p, got, w)
		}
	}
	if _, ok := files["/usr/lib/besluitbron/plugins/README"]; ok {
		t.Errorf("%s: a file that is no connector went in", arch)
	}
	if !strings.Contains(files["/etc/passwd"].body, "nonroot:x:65532:65532:") {
		t.Errorf("%s: /etc/passwd = %q", arch, files["/etc/passwd"].body)
	}
	// Nothing but the state directory belongs to the server's user: it
	// cannot rewrite its binary, connectors or config.
	for p, f := range files {
		if (f.uid != 0 || f.gid != 0) && p != StatePath {
			t.Errorf("%s: %s owned by %d:%d", arch, p, f.uid, f.gid)
		}
	}
}

// TestRunFlags: the command refuses a platform it does not build and
// writes the layout the flags describe.
func TestRunFlags(t *testing.T) {
	o := fixture(t)
	var stderr bytes.Buffer
	if code := run([]string{"-out", t.TempDir(), "-version", "1", "-binary", "linux/s390x=x"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "only linux/amd64 and linux/arm64") {
		t.Errorf("s390x: exit %d, %s", code, stderr.String())
	}
	if code := run([]string{"-out", t.TempDir(), "-version", "0.1.0+dirty", "-binary", "linux/amd64=" + o.Binaries["linux/amd64"],
		"-plugins", o.PluginsDir, "-config", o.ConfigFile}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "not a valid image tag") {
		t.Errorf("0.1.0+dirty: exit %d, %s", code, stderr.String())
	}
	out := filepath.Join(t.TempDir(), "oci")
	t.Setenv("SOURCE_DATE_EPOCH", "1764936000")
	var stdout bytes.Buffer
	args := []string{"-out", out, "-version", "0.2.0", "-binary", "linux/amd64=" + o.Binaries["linux/amd64"],
		"-plugins", o.PluginsDir, "-config", o.ConfigFile}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p, err := layout.FromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	ii, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ii.IndexManifest()
	inner, err := ii.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, _ := inner.IndexManifest()
	if len(im.Manifests) != 1 || im.Manifests[0].Platform.Architecture != "amd64" {
		t.Fatalf("manifests %+v, want linux/amd64 alone", im.Manifests)
	}
	img, _ := inner.Image(im.Manifests[0].Digest)
	cf, _ := img.ConfigFile()
	if got := cf.Created.Time.Unix(); got != 1764936000 {
		t.Errorf("created %d, want SOURCE_DATE_EPOCH", got)
	}
	if _, ok := filesOf(t, img)[CACertsPath]; ok {
		t.Errorf("a CA bundle went in without -cacerts")
	}
	// mutate.Extract reads the image as a runtime would unpack it.
	rc := mutate.Extract(img)
	defer rc.Close()
	if n, _ := io.Copy(io.Discard, rc); n == 0 {
		t.Error("extracting the image gave nothing")
	}
}
