#!/usr/bin/env bash
# Runs the official TypeScript MCP client (pinned in scripts/ts-client/
# package-lock.json) against BesluitBron with a tight session limit, and
# checks it sees the 429 and its Retry-After and gets in after waiting.
#
# scripts/ts-deps.sh installs the packages into var/ts-client (git-ignored),
# only again when the lock file changes. Needs node ≥ 20 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(scripts/ts-deps.sh)
BESLUITBRON_TS_CLIENT_DIR="$dir" ${GO:-go} test -count=1 -run '^TestTypeScriptClientSees429$' -v ./host | grep -E '^(=== RUN|--- |\s+ratelimit_|ok|FAIL|PASS)'
