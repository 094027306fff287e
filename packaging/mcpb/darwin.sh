#!/bin/sh
# The bundle's macOS entry: one bundle serves Apple silicon and Intel Macs,
# and an MCPB manifest can choose a command per OS but not per processor,
# so this picks the binary uname names (Rosetta reports x86_64 and runs
# the amd64 one).
case $(uname -m) in
arm64) arch=arm64 ;;
*) arch=amd64 ;;
esac
exec "$(dirname "$0")/darwin-$arch/besluitbron" "$@"
