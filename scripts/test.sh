#!/usr/bin/env bash
# Every test, as `make test` runs them: each step in turn (a failing step
# does not stop the others, so one run shows everything that is wrong),
# then a summary with each step's outcome and wall time. Exits non-zero
# when any step failed.
#
#   GO=go MAKE=make scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
MAKE=${MAKE:-make}
SUBMODULES=${SUBMODULES:-sdk sdk/native plugins/example}

names=()
results=()
failed=0

# step NAME COMMAND… runs one step and records its outcome and time.
step() {
	local name=$1
	shift
	echo
	echo "=== $name: $*"
	local start=$SECONDS rc
	"$@"
	rc=$?
	local took=$((SECONDS - start))
	names+=("$name")
	if [ $rc -eq 0 ]; then
		results+=("ok      $(printf '%4d' "$took") s")
	else
		results+=("FAILED  $(printf '%4d' "$took") s  (exit $rc)")
		failed=1
	fi
}

submodules() {
	local m
	for m in $SUBMODULES; do
		(cd "$m" && $GO test -count=1 ./...) || return 1
	done
}

total=$SECONDS
step "vet and tidy (every module)" $MAKE --no-print-directory vet
step "unit and end-to-end (root module)" $GO test -count=1 ./...
step "sdk, sdk/native, plugins/example" submodules
step "race detector (sched, host)" $GO test -count=1 -race ./sched/... ./host/...
step "TypeScript SDK client vs client limits" env GO="$GO" scripts/ts-client-429.sh
step "MCP conformance suite" env MAKE="$MAKE" scripts/conformance.sh
step "README's client commands vs make demo" env MAKE="$MAKE" scripts/readme-clients.sh
step "short fuzzing" $MAKE --no-print-directory fuzz-short

echo
echo "=== SUMMARY (make test)"
for i in "${!names[@]}"; do
	printf '  %-42s %s\n' "${names[$i]}" "${results[$i]}"
done
printf '  %-42s %d s\n' "total" $((SECONDS - total))
if [ $failed -ne 0 ]; then
	echo "make test: FAILED"
	exit 1
fi
echo "make test: ok"
