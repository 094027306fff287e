#!/usr/bin/env bash
# Installs the MCPB CLI (@anthropic-ai/mcpb, pinned in
# scripts/mcpb/package-lock.json) into var/mcpb (git-ignored), only again
# when the lock file changes. packaging's tests and make release validate
# packaging/mcpb/manifest.json with its `mcpb validate`. Needs node >= 20
# and npm. Prints the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=var/mcpb
mkdir -p "$dir"
if ! cmp -s scripts/mcpb/package-lock.json "$dir/package-lock.json" || [ ! -f "$dir/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" ]; then
	cp scripts/mcpb/package.json scripts/mcpb/package-lock.json "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
echo "$PWD/$dir"
