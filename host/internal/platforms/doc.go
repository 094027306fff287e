// Package platforms assembles the platforms the host serves: for every
// enabled connector it loads the runtime (WebAssembly or a native
// process) and the manifest, checked against the admin's keys; builds the
// quotas from all manifests and the config together, so that connectors
// naming one upstream host share one limiter; and equips each platform
// with its cache and fetch gate on those quotas. It owns what the
// platforms share once built: the cluster link (when cluster.redis_url is
// set), the loop that saves the caches and applies `besluitbron cache
// clear`, and the runtime and admission metrics; and, for the offline
// commands (`besluitbron cache stats|clear`), the reading and clearing of
// the caches it saves; and the facts about the set that the host's edges
// read: what the unified address exposes of it under server.tools and
// connectors.<id>.expose (Exposure, with the start's warnings and the
// unified address's instructions) and check-config's Summary.
//
// Why a package of its own: construction is most of what a platform is,
// and it draws on the runtime, upstream and config wings only. Kept in
// the host package it sat beside the serving code with nothing to stop
// one from reaching into the other; here the architecture test keeps it
// from serving (what serving needs, such as emptying kept results when a
// cache is cleared, the host hands in as a callback), and only the host
// imports it. Build returns a Set of equipped platforms; the host keeps
// only the wiring of them into the invoke path, its features and the MCP
// edge.
package platforms
