package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where things are in the image. The config names the connectors by these
// absolute paths (packaging/image/plugins.toml), so the paths are fixed
// here and checked by the tests against that file.
const (
	BinaryPath  = "/usr/local/bin/besluitbron"
	PluginsPath = "/usr/lib/besluitbron/plugins"
	ConfigPath  = "/etc/besluitbron/plugins.toml"
	StatePath   = "/var/lib/besluitbron"
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// UID and GID are the non-root user the server runs as: 65532 is
	// distroless's "nonroot", a number no host user is likely to have.
	UID  = 65532
	GID  = 65532
	Port = "8080/tcp"
	// ServerName is the MCP registry's name of BesluitBron (server.json's
	// "name"); the registry checks an OCI package by this label.
	ServerName = "io.github.besluitbron/besluitbron"
	// DefaultSource is the repository the labels point at.
	DefaultSource = "https://github.com/besluitbron/besluitbron"
)

// Env is the image's environment: the settings that differ from a
// developer's plugins.toml (every interface, JSON logs, state under
// StatePath), in the form an operator overrides them with (docker run -e,
// compose's environment:). The config file says the same, so that the
// file alone serves too.
var Env = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"BESLUITBRON_SERVER__ADDR=:8080",
	"BESLUITBRON_LOG__FORMAT=json",
	"BESLUITBRON_CACHE__DIR=" + StatePath + "/cache",
	"BESLUITBRON_RUNTIME__COMPILATION_CACHE_DIR=" + StatePath + "/wazero",
}

// Options say what goes into the image.
type Options struct {
	// Binaries maps "linux/amd64" and "linux/arm64" to a static host
	// binary each; one image per entry.
	Binaries map[string]string
	// PluginsDir holds the connectors; every *.wasm in it goes in, shared
	// by every platform's image (WebAssembly is the same on each).
	PluginsDir string
	// ConfigFile is copied to ConfigPath.
	ConfigFile string
	// CACerts, when set, is copied to CACertsPath: without a CA bundle
	// the platforms' HTTPS cannot be verified in a scratch image.
	CACerts string
	// Version, Source and Revision go into the OCI labels; Version also
	// names the image in the layout (org.opencontainers.image.ref.name).
	Version, Source, Revision string
	// Created is the time of every file and of the config.
	Created time.Time
}

// Build writes the image index of every platform in o.Binaries as an OCI
// image layout at dir and returns the index's digest.
func Build(dir string, o Options) (v1.Hash, error) {
	// The version tags the image in a registry too (skopeo copy
	// oci:<dir>:<version> docker://…:<version>): a semver "+build" part,
	// or anything else a tag cannot hold, is refused here, not at the push.
	if !imageTag.MatchString(o.Version) {
		return v1.Hash{}, fmt.Errorf("version %q is not a valid image tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})", o.Version)
	}
	if o.Source == "" {
		o.Source = DefaultSource
	}
	base, err := baseLayer(o)
	if err != nil {
		return v1.Hash{}, err
	}
	shared, err := sharedLayer(o)
	if err != nil {
		return v1.Hash{}, err
	}
	platforms := make([]string, 0, len(o.Binaries))
	for p := range o.Binaries {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		img, err := platformImage(o, p, base, shared)
		if err != nil {
			return v1.Hash{}, fmt.Errorf("%s: %w", p, err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return v1.Hash{}, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: cf.Platform()}})
	}
	idx := mutate.IndexMediaType(mutate.AppendManifests(empty.Index, adds...), types.OCIImageIndex)
	idx = mutate.Annotations(idx, map[string]string{
		"org.opencontainers.image.version": o.Version,
		"org.opencontainers.image.source":  o.Source,
	}).(v1.ImageIndex)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	// The layout's one entry is the multi-platform index, named by the
	// version: `skopeo copy --all oci:<dir>:<version>` and `crane push
	// <dir>` both find it.
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": o.Version,
	})); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}

// platformImage is one platform's image: the base and shared layers, its
// own binary's layer, and the config.
func platformImage(o Options, platform string, base, shared v1.Layer) (v1.Image, error) {
	arch, _ := archOf(platform)
	bin, err := os.ReadFile(o.Binaries[platform])
	if err != nil {
		return nil, err
	}
	binLayer, err := layerOf(o.Created, []entry{{path: BinaryPath, mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, base, shared, binLayer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: o.Created}
	cf.Author = "BesluitBron"
	labels := map[string]string{
		"org.opencontainers.image.title":         "BesluitBron",
		"org.opencontainers.image.description":   "MCP server for Dutch government decisions and documents (OpenBesluitvorming, ORI, Tweede Kamer, officiële bekendmakingen, Rechtspraak, Open Archivaris)",
		"org.opencontainers.image.version":       o.Version,
		"org.opencontainers.image.source":        o.Source,
		"org.opencontainers.image.url":           o.Source,
		"org.opencontainers.image.documentation": o.Source + "/blob/main/docs/deploy.md",
		"org.opencontainers.image.created":       o.Created.Format(time.RFC3339),
		"io.modelcontextprotocol.server.name":    ServerName,
	}
	if o.Revision != "" {
		labels["org.opencontainers.image.revision"] = o.Revision
	}
	cf.Config = v1.Config{
		User:         fmt.Sprintf("%d:%d", UID, GID),
		Entrypoint:   []string{BinaryPath},
		Cmd:          []string{"serve", "--config", ConfigPath},
		Env:          Env,
		WorkingDir:   StatePath,
		ExposedPorts: map[string]struct{}{Port: {}},
		Volumes:      map[string]struct{}{StatePath: {}},
		Labels:       labels,
		StopSignal:   "SIGTERM",
	}
	cf.History = nil // one entry per layer would only repeat the labels
	return mutate.ConfigFile(img, cf)
}

// imageTag is the OCI distribution spec's tag grammar.
var imageTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// archOf maps "linux/amd64" to "amd64"; only the two built platforms pass.
func archOf(platform string) (string, bool) {
	switch platform {
	case "linux/amd64":
		return "amd64", true
	case "linux/arm64":
		return "arm64", true
	}
	return "", false
}

// baseLayer is the filesystem the server needs around it: the user it
// runs as, a writable /tmp and state directory, and the CA bundle.
func baseLayer(o Options) (v1.Layer, error) {
	es := []entry{
		{path: "/etc/", dir: true, mode: 0o755},
		{path: "/etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, GID, StatePath))},
		{path: "/etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID))},
		{path: "/tmp/", dir: true, mode: 0o1777},
		{path: "/var/", dir: true, mode: 0o755},
		{path: "/var/lib/", dir: true, mode: 0o755},
		{path: StatePath + "/", dir: true, mode: 0o755, owned: true},
	}
	if o.CACerts != "" {
		b, err := os.ReadFile(o.CACerts)
		if err != nil {
			return nil, err
		}
		es = append(es,
			entry{path: "/etc/ssl/", dir: true, mode: 0o755},
			entry{path: "/etc/ssl/certs/", dir: true, mode: 0o755},
			entry{path: CACertsPath, mode: 0o644, data: b})
	}
	return layerOf(o.Created, es)
}

// sharedLayer holds what every platform's image shares byte for byte: the
// connectors and the config, so a registry stores it once.
func sharedLayer(o Options) (v1.Layer, error) {
	cfg, err := os.ReadFile(o.ConfigFile)
	if err != nil {
		return nil, err
	}
	es := []entry{
		{path: "/etc/", dir: true, mode: 0o755},
		{path: "/etc/besluitbron/", dir: true, mode: 0o755},
		{path: ConfigPath, mode: 0o644, data: cfg},
		{path: "/usr/", dir: true, mode: 0o755},
		{path: "/usr/lib/", dir: true, mode: 0o755},
		{path: "/usr/lib/besluitbron/", dir: true, mode: 0o755},
		{path: PluginsPath + "/", dir: true, mode: 0o755},
	}
	wasm, err := filepath.Glob(filepath.Join(o.PluginsDir, "*.wasm"))
	if err != nil {
		return nil, err
	}
	if len(wasm) == 0 {
		return nil, fmt.Errorf("no connectors (*.wasm) in %s", o.PluginsDir)
	}
	sort.Strings(wasm)
	for _, w := range wasm {
		b, err := os.ReadFile(w)
		if err != nil {
			return nil, err
		}
		es = append(es, entry{path: PluginsPath + "/" + filepath.Base(w), mode: 0o644, data: b})
	}
	return layerOf(o.Created, es)
}

// entry is one file or directory of a layer.
type entry struct {
	path  string // absolute; a directory's ends in /
	dir   bool
	mode  int64
	data  []byte
	owned bool // owned by UID:GID, else by root
}

// layerOf writes es as a gzip-compressed OCI layer, in order, every entry
// at time t (the tar's own order and times make the digest reproducible).
func layerOf(t time.Time, es []entry) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{
			Name:    strings.TrimPrefix(e.path, "/"),
			Mode:    e.mode,
			ModTime: t,
			Format:  tar.FormatPAX,
		}
		if e.owned {
			h.Uid, h.Gid = UID, GID
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
