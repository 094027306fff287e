// Package eventstore keeps the events of the MCP server's streams so that
// a client whose connection dropped can resume a stream with
// Last-Event-ID (MCP 2025-11-25, basic/transports, "Resumability and
// Redelivery") and still receive the answer of a call that was waiting at
// a platform's limit.
//
// It owns one thing: a bound on the memory those events take, counted
// with the bookkeeping as well as the payloads, and enforced by dropping
// whole streams, least recently written first, from the sessions over
// their share. Each session with events kept has an equal share of the
// bound; a session that floods the store with answers evicts its own
// streams, never the answer another client is waiting to resume while
// that client's session is within its share. The go-sdk's
// MemoryEventStore bounds only payload bytes and keeps every stream's
// bookkeeping until its session ends, so one long session's streams grow
// without bound; docs/RATIONALE.md says more.
package eventstore
