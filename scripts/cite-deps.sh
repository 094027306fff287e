#!/usr/bin/env bash
# Installs citation-js's BibTeX and RIS parsers (pinned in
# scripts/cite-parsers/package-lock.json) into var/cite-parsers
# (git-ignored), only again when the lock file changes, with parse.mjs,
# which the host's citation tests read besluitbron_cite's exports with
# (no Go library on the module proxy parses RIS, and a reader written
# beside the writer would share its mistakes). Needs node >= 20 and npm.
# Prints the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=var/cite-parsers
mkdir -p "$dir"
if ! cmp -s scripts/cite-parsers/package-lock.json "$dir/package-lock.json" || [ ! -d "$dir/node_modules/@citation-js/plugin-ris" ]; then
	cp scripts/cite-parsers/package.json scripts/cite-parsers/package-lock.json "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
cp scripts/cite-parsers/parse.mjs "$dir/"
echo "$PWD/$dir"
