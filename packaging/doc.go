// Package packaging holds what BesluitBron is deployed with, beside the
// source: the OCI image's config (image/), the compose example with Redis,
// two replicas and nginx (compose/), the MCPB desktop bundle's manifest
// (mcpb/) and the published JSON schemas those and the repository's
// server.json are checked against (schemas/). docs/deploy.md tells how
// each is used; scripts/release.sh builds the release from them.
//
// It has no code: its tests check those files against what reads them.
// server.json passes the MCP registry's schema and the manifest MCPB's
// (and, when scripts/mcpb-deps.sh has installed it, `mcpb validate`); the
// compose file parses as YAML and every BesluitBron setting it makes loads
// through the config package, which refuses unknown keys; the image's
// config names every connector of plugins.toml at the path cmd/mkimage
// puts it; scripts/version.sh gives the version each git state should.
package packaging
