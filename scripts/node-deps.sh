#!/usr/bin/env bash
# Node ≥ 22 for the scripts that need it (the conformance suite, README's
# Inspector commands; Debian's may be older): node@NODE_VERSION from npm,
# installed once into var/node/ (git-ignored) and shared, so var/ holds
# one copy (each script used to install its own, 185 and 236 MB). Prints
# the folder with its node, npm and npx, to put first on PATH.
#
#   PATH="$(scripts/node-deps.sh):$PATH"
#
# Safe to run side by side (make test runs both scripts at once): the
# install holds a lock on the folder. Needs npm.
set -euo pipefail

NODE_VERSION=22.23.3

root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/var/node
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -x "$dir/node_modules/.bin/node" ] || [ "$(cat "$dir/installed" 2>/dev/null)" != "$NODE_VERSION" ]; then
	echo "node-deps: installing node@$NODE_VERSION into var/node" >&2
	rm -rf "$dir/node_modules" "$dir/package-lock.json"
	echo '{"private":true}' >"$dir/package.json"
	(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "node@$NODE_VERSION" >/dev/null)
	echo "$NODE_VERSION" >"$dir/installed"
fi
# The copies the scripts kept before var/node, when still there.
rm -rf "$root/var/readme-clients/node_modules" "$root/var/conformance/node_modules/node"
"$dir/node_modules/.bin/node" --version | grep -q '^v2[2-9]\.' || { echo "node-deps: $dir/node_modules/.bin/node is not Node ≥ 22" >&2; exit 1; }
echo "$dir/node_modules/.bin"
