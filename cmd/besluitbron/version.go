package main

import (
	"runtime/debug"
	"strings"
)

// The Makefile and make release set version from git (scripts/version.sh).
// A binary built another way still says which release it is: `go install
// github.com/besluitbron/besluitbron/cmd/besluitbron@v0.1.0` records the
// module's version in the build info, and a plain `go build` in a clone
// records a pseudo-version from the commit (unless -buildvcs=false).
func init() { version = resolveVersion(version, debug.ReadBuildInfo) }

// resolveVersion returns set unless it is the default "dev", else the main
// module's version from the build info without its leading v (the form
// scripts/version.sh gives, and serverInfo and server.json use), else
// "dev".
func resolveVersion(set string, read func() (*debug.BuildInfo, bool)) string {
	if set != "dev" {
		return set
	}
	bi, ok := read()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return set
	}
	return strings.TrimPrefix(bi.Main.Version, "v")
}
