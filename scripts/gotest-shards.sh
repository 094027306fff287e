#!/usr/bin/env bash
# Runs one Go package's tests as N processes side by side, each with a
# share of its top-level tests, and fails when any share fails.
#
#   scripts/gotest-shards.sh [-race] [-record DIR | -rest DIR] ./host 3
#
# -record DIR (make test's race step) keeps the names of the tests this
# binary has in DIR/ran and lets the tests note, in DIR/dependent, each
# one that asked whether the race detector is on (host's raceEnabled and
# proofRace: it skipped, shortened or checked less because it was).
# -rest DIR (the plain step after it) runs only what that race run did
# not cover as it is: the tests the race binary does not have (a !race
# file), and the ones noted. Without DIR/ran (the race build or a race
# share failed: a share that panics never runs the rest of its tests), or
# with a "*" noted (a test asked from a goroutine no test function is on),
# it runs them all.
#
# Why: the host package's end-to-end tests spend most of their time
# waiting (on a platform's refill, a kill, a process start), not computing:
# run one after another they took ~440 s of wall time for ~230 s of CPU on
# two cores, the longest step of make test. Shares side by side use the
# cores while another share waits. The tests are built to hold on a busy
# machine (the seed and jitter tests pass under stress-ng on two cores), so
# a neighbouring share is load they already expect.
#
# The test binary is built once; `-test.list` names every test, so a new
# test lands in a share without anyone listing it. Shares are balanced by
# the known long tests' weights below (seconds, measured on the 2-core
# machine); every other test counts 2. A stale weight only unbalances the
# shares, it never skips a test.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
TIMEOUT=${TIMEOUT:-1h}

race=()
if [ "${1:-}" = -race ]; then
	race=(-race)
	shift
fi
record= rest=
case "${1:-}" in
-record) record=${2:?directory}; shift 2 ;;
-rest) rest=${2:?directory}; shift 2 ;;
esac
pkg=${1:?package directory, e.g. ./host}
n=${2:?number of shares}

dir=$(mktemp -d "${TMPDIR:-/tmp}/besluitbron-shards.XXXXXX")
trap 'rm -rf "$dir"' EXIT
bin=$dir/pkg.test
if ! $GO test -c "${race[@]}" -o "$bin" "$pkg"; then
	echo "building the tests of $pkg failed"
	exit 1
fi
if [ ! -x "$bin" ]; then
	echo "$pkg has no tests"
	exit 0
fi
if ! (cd "$pkg" && "$bin" -test.list '.*') >"$dir/list"; then
	echo "listing the tests of $pkg failed"
	exit 1
fi
if [ -n "$record" ]; then
	mkdir -p "$record"
	cp "$dir/list" "$record/ran"
	: >"$record/dependent"
	export BESLUITBRON_RACE_DEPENDENT=$record/dependent
fi
if [ -n "$rest" ] && [ -s "$rest/ran" ] && ! grep -qx '\*' "$rest/dependent" 2>/dev/null; then
	all=$(wc -l <"$dir/list")
	{ grep -vxF -f "$rest/ran" "$dir/list"; grep -xF -f "$dir/list" "$rest/dependent" 2>/dev/null; } | sort -u >"$dir/list.rest"
	mv "$dir/list.rest" "$dir/list"
	echo "$pkg: $(wc -l <"$dir/list") of $all tests plain; the race step ran the other $((all - $(wc -l <"$dir/list"))) as they are"
fi
if [ ! -s "$dir/list" ]; then
	echo "$pkg: no test left to run"
	exit 0
fi

weights() {
	cat <<'EOF'
TestKillDuringCacheSave 83
TestHostileLoad 63
TestNamedClientsShareAndReconnect 45
TestLoad 38
TestThreeReplicasFairFloodNeverOver 31
TestSeedNewcomersWithMoreSessionsThanInstances 26
TestLongDocumentsWithoutKeptTexts 25
TestFiftyIdenticalCallsOneRequest 25
TestSeedRatios 24
TestOneDocumentOnceThroughMCP 24
TestQuota429PausesBothConnectors 20
TestHostRestartUpgradeAndClear 20
TestDemoWalk 20
TestBinaryUpgradeAsksAgainOnce 19
TestThreeReplicaProcessesShareOBV 17
TestBinaryRestartKeepsCache 14
TestBrowserOneDocumentOnce 13
TestSeedLoneSessionUsesTheEntireSpace 12
TestAnswersAsAnAssistantMeetsThem 12
TestHostilePageSearches 10
TestResearchTasks 9
EOF
}

# Greedy: the heaviest test first, each to the lightest share so far.
awk -v n="$n" '
	NR == FNR { w[$1] = $2; next }
	/^(Test|Example|Fuzz)/ { t[++k] = $1; tw[k] = ($1 in w) ? w[$1] : 2 }
	END {
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (tw[j] > tw[i]) { x = t[i]; t[i] = t[j]; t[j] = x; x = tw[i]; tw[i] = tw[j]; tw[j] = x }
		for (s = 0; s < n; s++) load[s] = 0
		for (i = 1; i <= k; i++) {
			best = 0
			for (s = 1; s < n; s++) if (load[s] < load[best]) best = s
			load[best] += tw[i]
			share[best] = share[best] (share[best] == "" ? "" : "|") t[i]
		}
		for (s = 0; s < n; s++) print share[s]
	}' <(weights) "$dir/list" >"$dir/shares"

pids=()
i=0
while read -r names; do
	[ -n "$names" ] || continue
	(
		start=$SECONDS
		cd "$pkg" && "$bin" -test.count=1 -test.timeout "$TIMEOUT" -test.run "^(${names})\$" >"$dir/$i.log" 2>&1
		echo "$? $((SECONDS - start))" >"$dir/$i.rc"
	) &
	pids+=($!)
	i=$((i + 1))
done <"$dir/shares"
wait "${pids[@]}"

failed=0
for ((s = 0; s < i; s++)); do
	read -r rc took <"$dir/$s.rc"
	count=$(sed -n "$((s + 1))p" "$dir/shares" | tr '|' '\n' | wc -l)
	if [ "$rc" -eq 0 ]; then
		echo "ok   $pkg share $((s + 1))/$i (${race[*]:-plain}): $count tests, $took s"
	else
		echo "FAIL $pkg share $((s + 1))/$i (${race[*]:-plain}): $count tests, $took s, exit $rc"
		cat "$dir/$s.log"
		failed=1
	fi
done
if [ $failed -ne 0 ] && [ -n "$record" ]; then
	rm -f "$record/ran"
fi
exit $failed
