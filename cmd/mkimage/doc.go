// Command mkimage assembles BesluitBron's OCI image without a container
// daemon: `make release` (scripts/release.sh) runs it after the
// cross-compiled host binaries and the WebAssembly connectors are built,
// and it writes a multi-platform image (linux/amd64 and linux/arm64) as
// an OCI image layout that crane, skopeo or podman copy into a registry.
//
// Usage:
//
//	mkimage -out dist/besluitbron-oci -version 0.1.0 \
//	    -binary linux/amd64=dist/build/linux-amd64/besluitbron \
//	    -binary linux/arm64=dist/build/linux-arm64/besluitbron \
//	    -plugins bin/plugins -config packaging/image/plugins.toml \
//	    [-cacerts /etc/ssl/certs/ca-certificates.crt] [-source URL] [-revision SHA]
//
// The image holds nothing but what serving needs: the static host binary
// at /usr/local/bin/besluitbron, the connectors (*.wasm) under
// /usr/lib/besluitbron/plugins, the config at /etc/besluitbron/plugins.toml,
// /etc/passwd and /etc/group naming the non-root user it runs as (uid and
// gid 65532, as distroless images do), the CA bundle the platforms' HTTPS
// needs, and /var/lib/besluitbron (owned by that user) for the cache, the
// compilation cache and the watches. Every setting is also read from the
// environment (BESLUITBRON_*), so one image serves any deployment.
//
// The image is reproducible: every file and the config carry one time,
// SOURCE_DATE_EPOCH when set (scripts/release.sh sets it to the commit's
// time), so two builds of one commit give the same digests.
package main
