// Package eventstore keeps the events of the MCP server's streams so that
// a client whose connection dropped can resume a stream with
// Last-Event-ID (MCP 2025-11-25, basic/transports, "Resumability and
// Redelivery") and still receive the answer of a call that was waiting at
// a platform's limit.
//
// It owns one thing: a bound on the memory those events take, counted
// with the bookkeeping as well as the payloads, and enforced by dropping
// whole streams, least recently written first. The go-sdk's
// MemoryEventStore bounds only payload bytes and keeps every stream's
// bookkeeping until its session ends, so one long session's streams grow
// without bound; docs/RATIONALE.md says more.
package eventstore
