// Command mkdist does the steps of `make release` (scripts/release.sh)
// that need more than a shell and coreutils, the same on any machine
// with Go:
//
//	mkdist zip -o out.zip -C dir [-prefix name/]
//	    a zip of every file under dir (the Windows archives and the MCPB
//	    bundle), in name order, every entry at one time, Unix modes kept,
//	    so the same inputs give the same bytes (no zip(1) needed).
//	mkdist server-json -in server.json -out dist/server.json -version V \
//	    [-mcpb dist/besluitbron-V.mcpb -mcpb-url URL]
//	    the registry entry of this release: its version, the OCI image's
//	    tag, and the MCPB bundle's package with its sha256 (the registry
//	    requires the hash, known only once the bundle is built).
//	mkdist manifest -in packaging/mcpb/manifest.json -out FILE -version V
//	    the MCPB manifest with this release's version.
//
// Times come from SOURCE_DATE_EPOCH when set, as in cmd/mkimage.
package main
