#!/usr/bin/env bash
# Runs the official TypeScript MCP client (pinned in scripts/ts-client/
# package-lock.json) against BesluitBron with a tight session limit, and
# checks it sees the 429 and its Retry-After and gets in after waiting.
#
# The packages are installed with `npm ci` into var/ts-client (git-ignored),
# and only again when the lock file changes. Needs node ≥ 20 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=var/ts-client
mkdir -p "$dir"
if ! cmp -s scripts/ts-client/package-lock.json "$dir/package-lock.json" || [ ! -d "$dir/node_modules/@modelcontextprotocol/sdk" ]; then
	cp scripts/ts-client/package.json scripts/ts-client/package-lock.json "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp scripts/ts-client/client.mjs "$dir/"
BESLUITBRON_TS_CLIENT_DIR="$root/$dir" ${GO:-go} test -count=1 -run '^TestTypeScriptClientSees429$' -v ./host | grep -E '^(=== RUN|--- |\s+ratelimit_|ok|FAIL|PASS)'
