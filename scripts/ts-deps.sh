#!/usr/bin/env bash
# Installs the official TypeScript MCP SDK (pinned in
# scripts/ts-client/package-lock.json) into var/ts-client (git-ignored),
# only again when the lock file changes, with the scripts that use it.
# Needs node ≥ 20 and npm. Prints the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=var/ts-client
mkdir -p "$dir"
if ! cmp -s scripts/ts-client/package-lock.json "$dir/package-lock.json" || [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then
	cp scripts/ts-client/package.json scripts/ts-client/package-lock.json "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
cp scripts/ts-client/client.mjs scripts/ts-client/server.mjs "$dir/"
echo "$PWD/$dir"
