#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against BesluitBron's streamable HTTP address, with the conformance
# fixture connector of conformance.toml, in two versions side by side:
#
#   0.1.16          every server scenario ("all" suite), the protocol
#                   versions up to 2025-11-25;
#   0.2.0-alpha.12  exactly the scenarios MCP 2026-07-28 requires
#                   (--requirements 2026-07-28), with the extension
#                   (tasks) and pending scenarios the suite runs beside
#                   them.
#
#   scripts/conformance.sh            build, install what is missing, run both
#
# It takes Node 22 (the suite needs ≥ 22; Debian's may be older) from
# scripts/node-deps.sh (var/node/, shared with README's client commands),
# installs each suite from npm into its own folder under var/ (git-ignored),
# starts one `bin/besluitbron serve --config conformance.toml` per suite on a
# free loopback port (the suites are independent, and one server each keeps
# their clients out of each other's rate-limit buckets), and fails on any
# failing scenario or check except those in the suite's expected-failures
# file (scripts/conformance-expected.yml, scripts/conformance-expected-2026.yml),
# which docs/conformance.md explains. The suite also fails when a listed
# entry starts passing, so the lists cannot go stale.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

nodebin=$(scripts/node-deps.sh)
export PATH="$nodebin:$PATH"
node="$nodebin/node"

# install <dir> <version>: the suite at version into dir, once.
install() {
	local dir=$1 version=$2
	mkdir -p "$dir"
	if [ ! -f "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] ||
		[ "$(cat "$dir/installed" 2>/dev/null)" != "$version" ]; then
		echo "conformance: installing @modelcontextprotocol/conformance@$version into $dir"
		# Afresh: the folder once held its own copy of Node as well.
		rm -rf "$dir/node_modules" "$dir/package-lock.json"
		echo '{"private":true}' >"$dir/package.json"
		(cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
			"@modelcontextprotocol/conformance@$version" >/dev/null)
		echo "$version" >"$dir/installed"
	fi
}

# The two installs are independent; npm's cache takes concurrent use.
install var/conformance 0.1.16 &
i1=$!
install var/conformance-2026 0.2.0-alpha.12 &
i2=$!
wait $i1
wait $i2

${MAKE:-make} --no-print-directory host bin/plugins/conformance.wasm >/dev/null

# run <dir> <expected-file> <suite args...>: starts a server for the suite
# in dir and runs the suite against it; the suite's output goes to
# dir/results.txt, every check to dir/checks/, the server's log to
# dir/server.log. Called in the background: the subshell stops its server
# when it ends.
run() {
	local dir=$1 expected=$2
	shift 2
	local log=$dir/server.log addr=
	# Port 0: the kernel picks a free port, and the server logs the
	# address it serves on (at info level).
	BESLUITBRON_LOG__LEVEL=info bin/besluitbron serve --config conformance.toml --addr 127.0.0.1:0 >"$log" 2>&1 &
	server_pid=$!
	trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT
	# Up to 60 s for the first start (the module compiles once; later
	# starts use the compilation cache).
	for _ in $(seq 1 600); do
		addr=$(sed -n 's/.*msg=serving addr=\([0-9.:]*\).*/\1/p' "$log" | head -1)
		if [ -n "$addr" ] && curl -fsS "http://$addr/readyz" >/dev/null 2>&1; then break; fi
		if ! kill -0 "$server_pid" 2>/dev/null; then
			echo "conformance: the server exited; its log:" >&2
			cat "$log" >&2
			return 1
		fi
		sleep 0.1
	done
	if [ -z "$addr" ] || ! curl -fsS "http://$addr/readyz" >/dev/null; then
		echo "conformance: the server did not become ready; its log:" >&2
		cat "$log" >&2
		return 1
	fi
	rm -rf "$dir/checks"
	(cd "$dir" && "$node" "$root/$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
		--url "http://$addr/mcp/unified/v1" "$@" -o "$root/$dir/checks" \
		--expected-failures "$root/$expected") >"$dir/results.txt" 2>&1
}

# Both suites at once: each has its own server, and neither waits on the
# other (the longest scenarios wait on timers, not on the CPU).
set +e
(run var/conformance scripts/conformance-expected.yml --suite all) &
r1=$!
(run var/conformance-2026 scripts/conformance-expected-2026.yml --requirements 2026-07-28) &
r2=$!
wait $r1
rc1=$?
wait $r2
rc2=$?
set -e

# report <dir> <version> <expected-file> <rc>: the suite's summary, with
# the scenarios listed as expected shown as such (~) rather than as
# failures (✗). Its "=== SUMMARY ===" header is relabelled: inside make
# test's output it read as a second summary of make test, in the middle.
# Suite 0.1.16 counts a WARNING check as a pass, so warnings are failures
# here (0.2.0 counts them against the baseline itself); the saved checks
# have them.
report() {
	local dir=$1 version=$2 expected=$3 rc=$4
	if [ "$version" = 0.1.16 ]; then
		local warnings
		warnings=$( (grep -rhoE '"status": ?"WARNING"' "$dir/checks" 2>/dev/null || true) | wc -l)
		if [ "$warnings" -ne 0 ]; then
			echo "conformance $version: $warnings warning check(s):" >&2
			grep -rh -A3 -B3 '"WARNING"' "$dir/checks" | grep -E '"(id|errorMessage)"' >&2 || true
			[ "$rc" -ne 0 ] || rc=1
		fi
	fi
	local want
	want=$(sed -n 's/^  - \([a-z0-9:-]*\).*/\1/p' "$expected" | sed 's/:.*//' | sort -u | tr '\n' ' ')
	if [ "$version" != 0.1.16 ]; then
		# Under --requirements the suite judges the scored scenarios
		# only; the extension (tasks) and pending ones it runs beside
		# them are judged here, by scenario, against the same list: a
		# failing one not listed fails, and so does a listed one that
		# passes (the list cannot go stale).
		local failing name
		failing=$(sed -n '/=== SUMMARY ===/,$s/^✗ \([a-z0-9-]*\):.*/\1/p' "$dir/results.txt" | sort -u)
		for name in $failing; do
			case " $want " in *" $name "*) ;; *)
				echo "conformance $version: $name fails and is not listed in $expected" >&2
				[ "$rc" -ne 0 ] || rc=1 ;;
			esac
		done
		for name in $want; do
			if ! printf '%s\n' $failing | grep -qx "$name"; then
				echo "conformance $version: $name is listed in $expected but passes: remove it" >&2
				[ "$rc" -ne 0 ] || rc=1
			fi
		done
	fi
	sed -n '/=== SUMMARY ===/,$p' "$dir/results.txt" | awk -v want=" $want" -v version="$version" '
		/=== SUMMARY ===/ { print "conformance " version ": the suite'"'"'s scenarios"; next }
		/^✗ / { name = $2; sub(/:$/, "", name); if (index(want, " " name " ")) { sub(/^✗ /, "~ "); $0 = $0 "  (expected: docs/conformance.md)" } }
		{ print }'
	if [ "$rc" -ne 0 ]; then
		echo "conformance $version: FAILED (exit $rc); full output in $dir/results.txt, server log in $dir/server.log" >&2
		grep -E 'FAILURE|errorMessage|Unexpected|stale|Stale|  ✗ ' "$dir/results.txt" | head -40 >&2 || true
		return "$rc"
	fi
	echo "conformance $version: ok (node $("$node" --version))"
}

status=0
report var/conformance 0.1.16 scripts/conformance-expected.yml $rc1 || status=1
report var/conformance-2026 0.2.0-alpha.12 scripts/conformance-expected-2026.yml $rc2 || status=1
exit $status
