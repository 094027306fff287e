#!/usr/bin/env bash
# Runs README's MCP client commands as written against `make demo` on free
# ports: every line of a ```sh block in README.md that starts with
# `npx -y @modelcontextprotocol/inspector`. The only change made to a
# command is the demo's address in place of 127.0.0.1:8080 (and stdio
# commands get demo.toml in place of plugins.toml, so they ask the
# simulator rather than the real platforms).
#
#   scripts/readme-clients.sh
#
# The Inspector needs Node ≥ 22 (Debian's may be older): the one
# scripts/node-deps.sh installs into var/node/ (git-ignored), shared with
# the conformance suite, is put first on PATH; npx fetches the pinned
# Inspector as README says. A command fails the script when it exits non-zero, prints
# an error object, or returns a tool error.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=var/readme-clients
mkdir -p "$dir"
# README pins the Inspector's version; the Makefile's and demo.toml's
# comments show the same commands, and must pin the same one.
pin=$(grep -o '@modelcontextprotocol/inspector@[^ ]*' README.md | sort -u)
for f in Makefile demo.toml; do
	other=$(grep -o '@modelcontextprotocol/inspector@[^ ]*' "$f" | sort -u)
	if [ -z "$pin" ] || [ "$other" != "$pin" ]; then
		echo "readme-clients: $f names ${other:-no Inspector}, README.md ${pin:-none}: pin one version everywhere" >&2
		exit 1
	fi
done

nodebin=$(scripts/node-deps.sh)
export PATH="$nodebin:$PATH"
node --version | grep -q '^v2[2-9]\.' || { echo "readme-clients: node on PATH is not ≥ 22" >&2; exit 1; }

# free_port prints a loopback port nothing listens on.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	echo "readme-clients: no free port" >&2
	return 1
}
addr=127.0.0.1:$(free_port)
sim=127.0.0.1:$(free_port)

log=$dir/demo.log
echo "readme-clients: make demo ADDR=$addr SIM_ADDR=$sim"
setsid ${MAKE:-make} --no-print-directory demo ADDR="$addr" SIM_ADDR="$sim" >"$log" 2>&1 &
demo=$!
trap 'kill -- -"$demo" 2>/dev/null || true; wait "$demo" 2>/dev/null || true' EXIT
# Up to 5 minutes: make demo builds what it serves first.
for _ in $(seq 1 3000); do
	if curl -fsS "http://$addr/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 "$demo" 2>/dev/null; then
		echo "readme-clients: make demo exited; its output:" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.1
done
curl -fsS "http://$addr/readyz" >/dev/null || { echo "readme-clients: the demo is not ready; its output:" >&2; cat "$log" >&2; exit 1; }

# The commands: README's sh blocks, continuation lines joined.
mapfile -t cmds < <(awk '
	/^```sh$/ { inblock = 1; next }
	/^```/ { inblock = 0; next }
	inblock {
		line = $0
		if (cont != "") { line = cont " " line; cont = "" }
		if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); cont = line; next }
		if (line ~ /^npx -y @modelcontextprotocol\/inspector/) print line
	}' README.md)
if [ "${#cmds[@]}" -lt 3 ]; then
	echo "readme-clients: found ${#cmds[@]} Inspector commands in README.md, want the HTTP list, the HTTP call and the stdio list" >&2
	exit 1
fi

failed=0
for c in "${cmds[@]}"; do
	run=${c//127.0.0.1:8080/$addr}
	run=${run//--config plugins.toml/--config demo.toml}
	printf 'readme-clients: %s … ' "$c"
	if ! out=$(bash -c "$run" 2>"$dir/stderr"); then
		echo "FAILED (exit status)"; echo "$out" | head -c 2000; cat "$dir/stderr" | tail -20; failed=1; continue
	fi
	if grep -q '"isError": *true' <<<"$out" || grep -q '^{"error"' <<<"$out" || ! grep -q '"tools"\|"content"' <<<"$out"; then
		echo "FAILED (answer)"; echo "$out" | head -c 2000; echo; failed=1; continue
	fi
	echo ok
done
exit $failed
