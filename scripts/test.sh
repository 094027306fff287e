#!/usr/bin/env bash
# Every test, as `make test` runs them: each step in turn (a failing step
# does not stop the others, so one run shows everything that is wrong),
# then a summary with each step's outcome and wall time. Exits non-zero
# when any step failed. The three client steps (TypeScript client,
# conformance, README's clients) mostly wait on Node and loopback I/O:
# they and the short fuzzing run side by side with the race detector, each
# into a log of its own
# that is printed, whole and under its own header, when all are done. The
# host package's tests run in shares side by side (withshards below).
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

# together NAME COMMAND… [--- NAME COMMAND…]… runs steps side by side,
# each with its output in a log of its own; once all have ended it prints
# each log under its step's header, in the order given, and records each
# outcome and wall time as step does (each step's time is its own; the
# summary marks them "side by side", so their times overlap).
together() {
	local dir names_=() pids=() i
	dir=$(mktemp -d "${TMPDIR:-/tmp}/besluitbron-test.XXXXXX")
	while [ $# -gt 0 ]; do
		local name=$1 cmd=()
		shift
		while [ $# -gt 0 ] && [ "$1" != --- ]; do
			cmd+=("$1")
			shift
		done
		[ $# -gt 0 ] && shift # the ---
		i=${#names_[@]}
		names_+=("$name")
		printf '%s\n' "${cmd[*]}" >"$dir/$i.cmd"
		( start=$SECONDS; "${cmd[@]}" >"$dir/$i.log" 2>&1; rc=$?; echo "$rc $((SECONDS - start))" >"$dir/$i.rc" ) &
		pids+=($!)
	done
	wait "${pids[@]}"
	for i in "${!names_[@]}"; do
		local rc took
		read -r rc took <"$dir/$i.rc"
		echo
		echo "=== ${names_[$i]}: $(cat "$dir/$i.cmd")"
		cat "$dir/$i.log"
		names+=("${names_[$i]}")
		if [ "$rc" -eq 0 ]; then
			results+=("ok      $(printf '%4d' "$took") s  (side by side)")
		else
			results+=("FAILED  $(printf '%4d' "$took") s  (exit $rc; side by side)")
			failed=1
		fi
	done
	rm -rf "$dir"
}

# go test's own limit of 10 minutes per package is a verdict on the
# machine's speed: on two busy cores host/internal/runtime/wasmbudget took
# longer (its tests compile two 4.5 MB modules). An hour still ends a hung
# test.
TIMEOUT=${TIMEOUT:-1h}

submodules() {
	local m
	for m in $SUBMODULES; do
		(cd "$m" && $GO test -count=1 -timeout "$TIMEOUT" ./...) || return 1
	done
}

# withshards [-race] SHARES PATTERN… tests the packages PATTERN names,
# with the host package's own tests in SHARES processes side by side
# (scripts/gotest-shards.sh: they mostly wait, on refills, kills and
# process starts) beside one go test for every other package.
withshards() {
	local race=()
	if [ "$1" = -race ]; then
		race=(-race)
		shift
	fi
	local shares=$1 rest rc1 rc2 cover=()
	shift
	if [ ${#race[@]} -ne 0 ]; then
		cover=(-record "$RACE_RECORD")
	else
		cover=(-rest "$RACE_RECORD")
	fi
	rest=$($GO list "$@" | grep -vx "$($GO list ./host)")
	if [ ${#race[@]} -eq 0 ] && [ -n "${RACE_COVERED:-}" ]; then
		rest=$(grep -vxF "$RACE_COVERED" <<<"$rest")
	fi
	$GO test -count=1 "${race[@]}" -timeout "$TIMEOUT" $rest &
	local others=$!
	GO=$GO TIMEOUT=$TIMEOUT scripts/gotest-shards.sh "${race[@]}" "${cover[@]}" ./host "$shares"
	rc2=$?
	wait $others
	rc1=$?
	[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]
}

# racecovered PATTERN… prints the packages among PATTERN (the host
# package aside) whose tests the race detector's step runs exactly as the
# plain step would: none of their files (tests or code) is built only
# with or only without -race, and none asks whether the race detector is
# on (to skip, or to check less). Their plain run would only repeat the
# race run on two cores every step keeps busy, so the root module's step
# leaves them out. A package that does depend on the race detector (a
# race build tag, raceEnabled, proofRace) keeps both runs: no test is run
# by neither, and none is dropped by a list kept by hand.
racecovered() {
	local host pkg dir
	host=$($GO list ./host)
	$GO list -f '{{.ImportPath}} {{.Dir}}' "$@" | while read -r pkg dir; do
		[ "$pkg" = "$host" ] && continue
		compgen -G "$dir/*_test.go" >/dev/null || continue
		grep -qE 'go:build.*race|raceEnabled|proofRace|race\.Enabled' "$dir"/*.go || echo "$pkg"
	done
}
RACE_COVERED=$(racecovered ./sched/... ./host/...)
# What the race step ran of the host package, and which of its tests
# asked whether the race detector was on (scripts/gotest-shards.sh
# -record): the plain step runs those, and the ones the race binary lacks.
RACE_RECORD=$(mktemp -d "${TMPDIR:-/tmp}/besluitbron-race.XXXXXX")
trap 'rm -rf "$RACE_RECORD"' EXIT

total=$SECONDS
step "vet and tidy (every module)" $MAKE --no-print-directory vet
step "sdk, sdk/native, plugins/example" submodules
# The server binary the conformance suite and make demo both start, built
# once before they run side by side (so neither links it while the other
# starts it).
step "build the server (for the client steps)" $MAKE --no-print-directory host
# The race step's processes start side by side on a fresh clone's empty
# wazero cache (var/wazero-proof), and each compiled the connector modules
# and wasmrt's test guests under the detector (~67 CPU-s a host process;
# wasmrt's package 197 s). Two plain tests compile them first, into that
# cache, in ~15 s (the host package's build is the plain step's too).
# warmup fails when either test did not run (renamed or gone): the race
# step would compile cold again, still green but minutes slower.
warmup() {
	local tests=(TestEveryRepositoryModuleLoads TestEveryGuestLoads) out t
	if ! out=$($GO test -count=1 -timeout "$TIMEOUT" -v -run "^($(IFS='|'; echo "${tests[*]}"))\$" \
		./host ./host/internal/runtime/wasmrt 2>&1); then
		echo "$out"
		return 1
	fi
	grep -E '^(--- |ok)' <<<"$out"
	for t in "${tests[@]}"; do
		grep -q "^--- PASS: $t " <<<"$out" || { echo "warm-up: $t did not run (renamed or gone?): scripts/test.sh names it"; return 1; }
	done
}
step "compile the connectors once (plain)" warmup
# The client steps mostly wait on Node and loopback, and the race
# detector's host shares mostly wait on refills: the short fuzzing, which
# computes, fills the cores they leave idle. All take no longer than the
# race detector.
together "race detector (sched, host)" withshards -race 2 ./sched/... ./host/... \
	--- "TypeScript SDK client vs client limits" env GO="$GO" scripts/ts-client-429.sh \
	--- "MCP conformance suite" env MAKE="$MAKE" scripts/conformance.sh \
	--- "README's client commands vs make demo" env MAKE="$MAKE" scripts/readme-clients.sh \
	--- "short fuzzing" $MAKE --no-print-directory fuzz-short
# After the race step: every package it does not cover as it is
# (racecovered), and of the host package the tests it did not run as they
# are (RACE_RECORD).
step "unit and end-to-end (root module, plain)" withshards 3 ./...

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
