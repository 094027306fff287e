// Package memo keeps whole tool results, so that an assistant repeating a
// question gets its answer without running the connector again.
//
// A connector is deterministic: it has no clock, no randomness and no way
// out but fetch, so its result is a function of the tool, the arguments and
// the upstream answers it fetched. When every one of those answers came from
// (or went into) the platform's cache, the result is as valid as the
// earliest-expiring of them, and can be served until then without running
// the guest at all (callinfo records that expiry; a call that used an
// uncached, stale or failed answer is never kept).
//
// A call that asked its MCP client anything (a granted client feature:
// what the user chose, what the client's model wrote) depends on more than
// upstream answers, so it is never kept either: callinfo.Info.AskClient
// clears the expiry the store would be given. Nor is one that only tried
// and found no client, or a client without the capability: the same
// arguments from a client that can answer must reach the connector. A
// result that is kept therefore came from a call that asked no one, and
// the same arguments over the same cached answers ask no one again; that
// is why serving it needs no check of its own.
//
// Keys hold the platform, the module's version stamp, a per-platform
// generation (bumped by `besluitbron cache clear`), the tool and the
// arguments in canonical form (remembered for recently seen argument
// bytes, since a repeat arrives as the same bytes); values hold their
// expiry. Because a result is kept only after its arguments passed the
// tool's schema, the MCP server looks a call up before checking its
// arguments again. The store is one
// bounded in-memory fastcache shared by all platforms; it is not saved: the
// platform caches are, and they rebuild it on the first repeat.
//
// A Store is safe for concurrent use.
package memo
