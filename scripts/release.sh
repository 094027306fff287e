#!/usr/bin/env bash
# Builds what a release publishes into dist/ (make release; make image runs
# only the image's part). docs/deploy.md says how each is used.
#
#   scripts/release.sh all     everything below
#   scripts/release.sh image   the OCI image only
#
#   dist/besluitbron-<v>-<os>-<arch>.tar.gz   linux and darwin, amd64 and arm64
#   dist/besluitbron-<v>-windows-<arch>.zip   windows, amd64 and arm64
#       each: bin/besluitbron[.exe] (CGO_ENABLED=0, -trimpath), the
#       connectors in bin/plugins/*.wasm (built once for wasip1, the same
#       files in every archive), plugins.toml, README.md, CHANGELOG.md and
#       LICENSE when there is one: `bin/besluitbron serve --config
#       plugins.toml` in the unpacked folder serves, as in a clone.
#   dist/besluitbron-<v>.mcpb                 the desktop bundle (MCPB)
#   dist/besluitbron-<v>.cdx.json             CycloneDX SBOM of the host
#   dist/besluitbron-oci/                     the OCI image (an OCI layout,
#   dist/besluitbron-<v>-oci.tar              and the same as one file)
#   dist/server.json                          the registry entry of <v>
#   dist/checksums.txt                        sha256 of every file above
#
# VERSION (default scripts/version.sh) names everything; SOURCE_DATE_EPOCH
# (default: the commit's time) dates every file, so a release rebuilt from
# the same commit has the same bytes. Needs Go, GNU tar and gzip; the
# bundle's manifest is also checked with `mcpb validate` when npm is there
# (scripts/mcpb-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
what=${1:-all}
case $what in all | image) ;; *) echo "usage: $0 all|image" >&2; exit 2 ;; esac
VERSION=${VERSION:-$(scripts/version.sh)}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
revision=$(git rev-parse HEAD 2>/dev/null || true)
repo_url=https://github.com/besluitbron/besluitbron
SBOM_TOOL=github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
CACERTS=${CACERTS:-/etc/ssl/certs/ca-certificates.crt}

dist=dist
stage=$dist/.stage
rm -rf "$stage"
mkdir -p "$stage"
trap 'rm -rf "$stage"' EXIT
echo "release $VERSION (commit ${revision:-unknown}, files dated $(date -u -d "@$SOURCE_DATE_EPOCH" +%FT%TZ 2>/dev/null || echo "$SOURCE_DATE_EPOCH"))"

# The connectors plugins.toml serves, built once: WebAssembly is the same
# on every platform.
connectors=$(sed -n 's/^module *= *"bin\/plugins\/\([a-z0-9_-]*\)\.wasm".*/\1/p' plugins.toml)
mkdir -p "$stage/plugins"
for id in $connectors; do
	GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 "$GO" build -C "plugins/$id" -trimpath -buildmode=c-shared \
		-o "$PWD/$stage/plugins/$id.wasm" ./cmd
done
echo "connectors: $(echo $connectors | wc -w) built for wasip1"

# host os arch: the static host binary for one platform, in $stage/host-os-arch/.
host() {
	local exe=besluitbron
	[ "$1" = windows ] && exe=besluitbron.exe
	mkdir -p "$stage/host-$1-$2"
	CGO_ENABLED=0 GOOS=$1 GOARCH=$2 "$GO" build -trimpath \
		-ldflags "-s -w -X main.version=$VERSION" -o "$stage/host-$1-$2/$exe" ./cmd/besluitbron
	echo "host: $1/$2"
}

image() {
	host linux amd64
	host linux arm64
	[ -f "$CACERTS" ] || { echo "release: no CA bundle at $CACERTS (Debian: apt-get install ca-certificates; or set CACERTS)" >&2; exit 1; }
	"$GO" run ./cmd/mkimage -out "$dist/besluitbron-oci" -version "$VERSION" -revision "$revision" -source "$repo_url" \
		-binary "linux/amd64=$stage/host-linux-amd64/besluitbron" \
		-binary "linux/arm64=$stage/host-linux-arm64/besluitbron" \
		-plugins "$stage/plugins" -config packaging/image/plugins.toml -cacerts "$CACERTS"
}

# tarball dir name: a reproducible tar.gz of $stage/name (GNU tar).
tarball() {
	tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
		--format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		-C "$1" -cf - "$2" | gzip -n -9 >"$dist/$2.tar.gz"
}

mkdir -p "$dist"
if [ "$what" = image ]; then
	image
	exit 0
fi
rm -rf "$dist"/besluitbron-* "$dist/checksums.txt" "$dist/server.json"
image
"$GO" build -o "$stage/mkdist" ./cmd/mkdist

for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	os=${target%/*} arch=${target#*/}
	[ -d "$stage/host-$os-$arch" ] || host "$os" "$arch"
	name=besluitbron-$VERSION-$os-$arch
	d=$stage/archives/$name
	mkdir -p "$d/bin/plugins"
	cp "$stage/host-$os-$arch"/* "$d/bin/"
	cp "$stage"/plugins/*.wasm "$d/bin/plugins/"
	cp plugins.toml README.md CHANGELOG.md "$d/"
	if [ -f LICENSE ]; then cp LICENSE "$d/"; fi
	if [ "$os" = windows ]; then
		"$stage/mkdist" zip -o "$dist/$name.zip" -C "$d" -prefix "$name/"
	else
		tarball "$stage/archives" "$name"
	fi
done

# The desktop bundle: stdio, with the binaries of the desktops people use
# (Apple silicon and Intel Macs through darwin.sh, Windows and Linux on
# amd64) and the same connectors and plugins.toml as the archives.
b=$stage/mcpb
mkdir -p "$b/bin/plugins" "$b/server"
cp "$stage"/plugins/*.wasm "$b/bin/plugins/"
cp plugins.toml README.md "$b/"
if [ -f LICENSE ]; then cp LICENSE "$b/"; fi
for p in linux-amd64 darwin-amd64 darwin-arm64 windows-amd64; do
	mkdir -p "$b/server/$p"
	cp "$stage/host-$p"/* "$b/server/$p/"
done
cp packaging/mcpb/darwin.sh "$b/server/"
"$stage/mkdist" manifest -in packaging/mcpb/manifest.json -out "$b/manifest.json" -version "$VERSION"
if command -v npm >/dev/null; then
	cli=$(scripts/mcpb-deps.sh)/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js
	"$(scripts/node-deps.sh)/node" "$cli" validate "$b/manifest.json"
else
	echo "mcpb validate not run: no npm (packaging's tests check the manifest against its schema)"
fi
"$stage/mkdist" zip -o "$dist/besluitbron-$VERSION.mcpb" -C "$b"

# The OCI layout as one file, for a release page (skopeo copy oci-archive:…).
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --format=posix \
	--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-C "$dist/besluitbron-oci" -cf "$dist/besluitbron-$VERSION-oci.tar" .

# The SBOM of what the host binary is built from (the connectors are
# packages of the same module, with a subset of its requirements).
# One SBOM, of the linux/amd64 build (the image's and the most common
# archive's; the other targets differ only in golang.org/x/sys's files).
GOBIN=$PWD/$stage "$GO" install "$SBOM_TOOL"
# It reads git with go-git, which cannot open a `git worktree add` folder
# (its .git is a file): release from a clone.
if ! GOOS=linux GOARCH=amd64 CGO_ENABLED=0 "$stage/cyclonedx-gomod" app -json -licenses -main cmd/besluitbron \
	-output "$dist/besluitbron-$VERSION.cdx.json" .; then
	if [ -f .git ]; then echo "release: cyclonedx-gomod cannot read a git worktree (.git is a file here): run make release in a clone" >&2; fi
	exit 1
fi

"$stage/mkdist" server-json -in server.json -out "$dist/server.json" -version "$VERSION" \
	-mcpb "$dist/besluitbron-$VERSION.mcpb" \
	-mcpb-url "$repo_url/releases/download/v$VERSION/besluitbron-$VERSION.mcpb"

files="besluitbron-*.tar.gz besluitbron-*.zip besluitbron-*.mcpb besluitbron-*-oci.tar besluitbron-*.cdx.json server.json"
(cd "$dist" && sha256sum $files >checksums.txt && sha256sum -c --quiet checksums.txt)
echo "dist/:"
(cd "$dist" && ls -l $files checksums.txt | awk '{printf "  %-52s %7.1f MB\n", $NF, $5/1048576}')
