#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (host/internal/serve/web).
# Idempotent: does nothing when /usr/bin/chromium is already there.
# Needs root (apt-get); without root it says what to run and exits 0 so a
# developer's `make test` still runs (the browser tests then skip, unless
# BESLUITBRON_REQUIRE_BROWSER is set).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
	exit 0
fi
if [ "$(id -u)" != "0" ]; then
	echo "install-chromium: /usr/bin/chromium is missing; run as root: apt-get install -y chromium" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-chromium: installing Debian's chromium for the browser tests" >&2
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version >&2
