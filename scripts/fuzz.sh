#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each (go test -fuzz takes one
# target per run).
#
#   scripts/fuzz.sh              5 s per target, a worker per core
#   FUZZTIME=1s FUZZWORKERS=1 scripts/fuzz.sh
#                                make fuzz-short, in make test
#   FUZZTIME=2m scripts/fuzz.sh  longer (make soak)
#
# make test runs on two cores that every other step keeps busy: a second
# fuzzing worker there only takes a core from the tests beside it, and
# the instrumented build of each package costs more than the fuzzing
# itself. One worker for one second per target keeps the exploration (and
# the check that every target still builds and runs) at a sixth of the
# CPU; make soak explores for real.
#
# The seed corpora run in every plain `go test` too; this explores beyond
# them. A failing input is saved under the package's testdata/fuzz/<Target>/
# by go test: commit it with the fix, so it stays a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-5s}
FUZZWORKERS=${FUZZWORKERS:-}
workers=()
[ -n "$FUZZWORKERS" ] && workers=(-parallel "$FUZZWORKERS")

targets=(
	"./sdk/connector FuzzManifest"      # connector manifests (Manifest.Validate)
	"./sdk/connector FuzzContent"       # result content items
	"./sdk FuzzResult"                  # tool values → results (sdk.Result)
	"./sdk FuzzFind"                    # find arguments, folding and finding in a text
	"./sdk/cite FuzzParse"              # citation forms (ECLI, publications, Kamerstukken, TK numbers)
	"./sdk FuzzSourceURLKey"            # source URL keys: any input, a key is its own key
	"./host/internal/runtime/wasmrt FuzzGuestResult"   # raw guest output through runtime and MCP layer
	"./host/internal/runtime/wasmbudget FuzzInstrument" # module rewrites for the loop budget
	"./host/internal/runtime/wasmbudget FuzzInstrumentDifferential" # rewritten modules run as the originals
	"./host/internal/serve/mcpserver FuzzToolArguments" # client arguments against every tool schema
	"./host/internal/config FuzzLoad"   # config files
	"./host/internal/upstream/cache FuzzDecode"  # cache entries (the cache's own target)
	"./plugins/obk FuzzResponses"       # each platform's response parsing
	"./plugins/obv FuzzResponses"
	"./plugins/openarchivaris FuzzResponses"
	"./plugins/opentk FuzzResponses"
	"./plugins/ori FuzzResponses"
	"./plugins/rechtspraak FuzzResponses"
	"./plugins/tk FuzzResponses"
)

# moddir PKG prints the directory of PKG's module (the sdk is a module of
# its own, and go refuses to test its packages by a path from the root)
# and PKG relative to it.
moddir() {
	local d=${1#./}
	while [ "$d" != . ] && [ ! -f "$d/go.mod" ]; do d=$(dirname "$d"); done
	local rel=${1#./}
	rel=${rel#"$d"}
	[ "$d" = . ] && rel=/${1#./}
	echo "$d .${rel:-}"
}

start=$SECONDS
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	printf 'fuzz %-28s %-18s ' "$pkg" "$name"
	ok=0
	for attempt in 1 2 3; do
		read -r dir rel <<<"$(moddir "$pkg")"
		if out=$(cd "$dir" && $GO test -count=1 -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "${workers[@]}" "$rel" 2>&1); then
			ok=1
			break
		fi
		# go test -fuzz sometimes ends a short run with "context deadline
		# exceeded" and no failing input (the deadline hit while a worker
		# was still starting): that is the fuzzing engine's, not a finding.
		# A real finding always says "Failing input written".
		if grep -q 'Failing input written' <<<"$out" || ! grep -q 'context deadline exceeded' <<<"$out"; then
			break
		fi
	done
	if [ $ok = 0 ]; then
		echo FAIL
		echo "$out" | grep -v '^fuzz: elapsed' >&2
		exit 1
	fi
	echo "$out" | grep -o 'execs: [0-9]*' | tail -1 || echo ok
done
echo "fuzz: ${#targets[@]} targets passed in $((SECONDS - start)) s (${FUZZTIME} each, workers: ${FUZZWORKERS:-one per core})"
