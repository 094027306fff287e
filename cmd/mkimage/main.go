package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// binaries collects the repeated -binary os/arch=path flags.
type binaries map[string]string

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binaries) Set(v string) error {
	platform, path, ok := strings.Cut(v, "=")
	if !ok || path == "" {
		return fmt.Errorf("want os/arch=path, got %q", v)
	}
	if _, ok := archOf(platform); !ok {
		return fmt.Errorf("platform %q: only linux/amd64 and linux/arm64 are built", platform)
	}
	b[platform] = path
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mkimage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bins := binaries{}
	o := Options{}
	fs.Var(bins, "binary", "os/arch=path of a static host binary (repeat per platform)")
	out := fs.String("out", "", "directory of the OCI image layout to write (replaced)")
	fs.StringVar(&o.Version, "version", "", "BesluitBron's version: the label and the layout's tag")
	fs.StringVar(&o.PluginsDir, "plugins", "bin/plugins", "directory of the connectors (*.wasm)")
	fs.StringVar(&o.ConfigFile, "config", "packaging/image/plugins.toml", "the config file the image serves with")
	fs.StringVar(&o.CACerts, "cacerts", "", "CA bundle for the platforms' HTTPS (empty: none)")
	fs.StringVar(&o.Source, "source", DefaultSource, "the source repository's address (label)")
	fs.StringVar(&o.Revision, "revision", "", "the commit built (label; empty: none)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || o.Version == "" || len(bins) == 0 {
		fmt.Fprintln(stderr, "mkimage: -out, -version and at least one -binary are required")
		return 2
	}
	o.Binaries = bins
	o.Created = time.Now().UTC().Truncate(time.Second)
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "mkimage: SOURCE_DATE_EPOCH=%q: %v\n", s, err)
			return 2
		}
		o.Created = time.Unix(sec, 0).UTC()
	}
	if err := os.RemoveAll(*out); err != nil {
		fmt.Fprintf(stderr, "mkimage: %v\n", err)
		return 1
	}
	digest, err := Build(*out, o)
	if err != nil {
		fmt.Fprintf(stderr, "mkimage: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: index %s, tag %s\n", *out, digest, o.Version)
	return 0
}
