#!/usr/bin/env bash
# BesluitBron's version, from git: what the Makefile passes as
# -X main.version, and so what `besluitbron version`, the MCP serverInfo,
# the cache stamps, the release archives and the image's labels say.
#
#   on a tag v0.1.0                 0.1.0
#   3 commits after it              0.1.0-3-g0123456789ab
#   a clone without tags            0.0.0-dev+0123456789ab
#   uncommitted changes             ...+dirty (or .dirty after a +)
#   no git at all (a source tarball) dev
#
# Only tags v<digit>... count: another tag never becomes a version. The
# leading v goes (semver, as serverInfo and server.json want it). Every
# commit gives another version, so the caches it stamps never outlive it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! d=$(git describe --tags --match 'v[0-9]*' --always --dirty --abbrev=12 2>/dev/null); then
	echo dev
	exit 0
fi
dirty=
case $d in *-dirty) dirty=1; d=${d%-dirty} ;; esac
case $d in
v[0-9]*) v=${d#v} ;;
*) v="0.0.0-dev+$d" ;; # --always gave the commit: no tag reaches it
esac
if [ -n "$dirty" ]; then
	case $v in *+*) v="$v.dirty" ;; *) v="$v+dirty" ;; esac
fi
echo "$v"
