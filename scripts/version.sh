#!/usr/bin/env bash
# BesluitBron's version, from git: what the Makefile passes as
# -X main.version, and so what `besluitbron version`, the MCP serverInfo,
# the cache stamps, the release archives and the image's labels say.
#
#   on a tag v0.1.0                  0.1.0
#   3 commits after it               0.1.0-3-g0123456789ab
#   a clone without tags             0.0.0-dev.g0123456789ab
#   uncommitted changes              ...-dirty (0.1.0-dirty, 0.1.0-3-g…-dirty)
#   no git at all (a source tarball) dev
#
# Only tags v<digit>... count: another tag never becomes a version. The
# leading v goes (semver, as serverInfo and server.json want it). Every
# commit gives another version, so the caches it stamps never outlive it.
# Each is also a valid image tag ([A-Za-z0-9_.-], no semver "+build"
# part), since the image is tagged with it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! d=$(git describe --tags --match 'v[0-9]*' --always --dirty --abbrev=12 2>/dev/null); then
	echo dev
	exit 0
fi
case $d in
v[0-9]*) echo "${d#v}" ;;
*) echo "0.0.0-dev.g$d" ;; # --always gave the commit (and -dirty): no tag reaches it
esac
