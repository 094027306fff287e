package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

const usage = "usage: mkdist zip|server-json|manifest [flags] (see go doc ./cmd/mkdist)\n"

func run(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("mkdist "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var err error
	switch args[0] {
	case "zip":
		out := fs.String("o", "", "the zip to write")
		dir := fs.String("C", "", "the directory whose files go in")
		prefix := fs.String("prefix", "", "a folder every entry goes under, e.g. besluitbron-0.1.0-windows-amd64/")
		if fs.Parse(args[1:]) != nil || *out == "" || *dir == "" {
			fmt.Fprint(stderr, usage)
			return 2
		}
		var t time.Time
		if t, err = sourceTime(); err == nil {
			err = writeZip(*out, *dir, *prefix, t)
		}
	case "server-json":
		in := fs.String("in", "server.json", "the repository's server.json")
		out := fs.String("out", "", "the release's server.json")
		version := fs.String("version", "", "the release's version")
		bundle := fs.String("mcpb", "", "the built MCPB bundle (empty: no mcpb package)")
		url := fs.String("mcpb-url", "", "where the bundle is downloaded from")
		if fs.Parse(args[1:]) != nil || *out == "" || *version == "" || (*bundle != "") != (*url != "") {
			fmt.Fprint(stderr, usage)
			return 2
		}
		err = stampServerJSON(*in, *out, *version, *bundle, *url)
	case "manifest":
		in := fs.String("in", "packaging/mcpb/manifest.json", "the bundle's manifest")
		out := fs.String("out", "", "the manifest to write")
		version := fs.String("version", "", "the release's version")
		if fs.Parse(args[1:]) != nil || *out == "" || *version == "" {
			fmt.Fprint(stderr, usage)
			return 2
		}
		err = stampManifest(*in, *out, *version)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "mkdist %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// sourceTime is SOURCE_DATE_EPOCH, else now.
func sourceTime() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Now().UTC().Truncate(time.Second), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// writeZip zips every regular file under dir, in lexical order (WalkDir's),
// each at time t with its Unix mode, under prefix. Symbolic links and
// other special files are refused: a release holds none.
func writeZip(out, dir, prefix string, t time.Time) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: prefix + filepath.ToSlash(rel), Method: zip.Deflate, Modified: t}
		h.SetMode(info.Mode().Perm())
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
	if err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// stampServerJSON writes the registry entry of a release: the version, the
// OCI package's tag set to it, and, when bundle is set, an mcpb package
// for it (replacing one from an earlier stamp).
func stampServerJSON(in, out, version, bundle, url string) error {
	var s map[string]any
	if err := readJSON(in, &s); err != nil {
		return err
	}
	s["version"] = version
	pkgs, _ := s["packages"].([]any)
	kept := pkgs[:0]
	for _, p := range pkgs {
		m, ok := p.(map[string]any)
		if !ok {
			return errors.New("packages: an entry is not an object")
		}
		switch m["registryType"] {
		case "mcpb":
			continue
		case "oci":
			id, _ := m["identifier"].(string)
			repo, _, ok := strings.Cut(id, ":")
			if !ok || strings.Contains(id, "@") {
				return fmt.Errorf("oci identifier %q: want repository:tag", id)
			}
			m["identifier"] = repo + ":" + version
		}
		kept = append(kept, p)
	}
	if bundle != "" {
		sum, err := fileSHA256(bundle)
		if err != nil {
			return err
		}
		kept = append(kept, map[string]any{
			"registryType": "mcpb",
			"identifier":   url,
			"version":      version,
			"fileSha256":   sum,
			"transport":    map[string]any{"type": "stdio"},
		})
	}
	s["packages"] = kept
	return writeJSON(out, s)
}

// stampManifest writes the MCPB manifest with the release's version.
func stampManifest(in, out, version string) error {
	var m map[string]any
	if err := readJSON(in, &m); err != nil {
		return err
	}
	m["version"] = version
	return writeJSON(out, m)
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readJSON(p string, v any) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	return nil
}

// writeJSON writes v indented, without HTML escaping (a manifest's
// "${__dirname}" and URLs stay as written).
func writeJSON(p string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(p, buf.Bytes(), 0o644)
}
