// Package fetch is a connector's only way out of its sandbox: the
// [connector.Host] the host hands to every call. A [Gate] enforces, for one
// connector:
//
//   - the request names a declared service and cache class;
//   - the URL's scheme, host and port are an origin the connector declared:
//     its base_url's, or an allowed_hosts entry ("host" on the manifest's
//     scheme and its default port, "host:8443", or "http://host:8080"),
//     plus the admin's base_url override and url_rewrites targets exactly
//     as written (trusted config; the override's prefix replaces the
//     manifest's). Another port or scheme on an allowed host is refused
//     with what that host allows;
//   - the address dialled is not private, loopback or link-local unless the
//     admin's config names its network (checked at dial time, so DNS
//     cannot smuggle one in), and redirects stay on allowed hosts;
//   - responses are capped in size;
//   - the cache is asked first; only a miss waits at the service's limiter
//     and reaches the platform; failures are never cached;
//   - a request departs when the transport has its connection and is about
//     to write it (httptrace's GotConn): the limiter counts it there
//     (Limiter.Depart), and a call whose context has ended by then is never
//     sent (for HTTP/1 the gate's own connections refuse the write,
//     held.go); the time from departure to the answer's headers goes back
//     to the limiter, which sizes its headroom by it;
//   - a 429 pauses the service until its Retry-After and the call retries,
//     a bounded number of times, without queueing (or being charged) at the
//     fair scheduler again: it waits for the pause and departs.
//
// Each connector gets its own HTTP transport, so a slow platform holds up
// no other. A Gate is safe for concurrent use.
package fetch
