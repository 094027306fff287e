#!/usr/bin/env bash
# Installs the MCPB CLI (@anthropic-ai/mcpb, pinned in
# scripts/mcpb/package-lock.json) into var/mcpb (git-ignored), only again
# when the lock file changes. packaging's tests and make release validate
# packaging/mcpb/manifest.json with its `mcpb validate`. It runs on the
# project's Node 22 (scripts/node-deps.sh, var/node; Debian's may be
# older than the CLI needs). Needs npm. Prints the folder; the node that
# runs it is var/node's (`scripts/node-deps.sh` prints its folder).
set -euo pipefail
cd "$(dirname "$0")/.."
nodebin=$(scripts/node-deps.sh)
export PATH="$nodebin:$PATH"
dir=var/mcpb
mkdir -p "$dir"
if ! cmp -s scripts/mcpb/package-lock.json "$dir/package-lock.json" || [ ! -f "$dir/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" ]; then
	cp scripts/mcpb/package.json scripts/mcpb/package-lock.json "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
echo "$PWD/$dir"
