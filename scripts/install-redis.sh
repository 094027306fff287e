#!/usr/bin/env bash
# Installs Debian's redis-server for the cluster integration tests
# (host/internal/upstream/cluster: several replicas sharing limits through Redis).
# Idempotent: does nothing when redis-server is already there. The tests
# start their own redis-server on a free port in a temporary folder; the
# package's own service is stopped and disabled so it holds no port.
# Needs root (apt-get); without root it says what to run and exits 0 so a
# developer's `make test` still runs (the integration tests then skip,
# unless BESLUITBRON_REQUIRE_REDIS is set).
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != "0" ]; then
	echo "install-redis: redis-server is missing; run as root: apt-get install -y redis-server" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
echo "install-redis: installing Debian's redis-server for the cluster tests" >&2
apt-get update -qq
# policy-rc.d keeps the package from starting its own service here.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d.besluitbron
chmod +x /usr/sbin/policy-rc.d.besluitbron
had_policy=0
if [ -e /usr/sbin/policy-rc.d ]; then had_policy=1; else cp /usr/sbin/policy-rc.d.besluitbron /usr/sbin/policy-rc.d; fi
apt-get install -y -qq --no-install-recommends redis-server >/dev/null
if [ "$had_policy" = 0 ]; then rm -f /usr/sbin/policy-rc.d; fi
rm -f /usr/sbin/policy-rc.d.besluitbron
redis-server --version >&2
