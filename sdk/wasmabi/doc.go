// Package wasmabi encodes the payloads that cross the WebAssembly boundary
// in version 2 of the ABI (see package sdk's documentation): a call's
// request and result, a fetch's request and reply, a kept text's page
// request and reply. Both sides use it: the sdk in the guest, the host in
// package wasmrt.
//
// Version 1 sent these as JSON, and Go compiled to WebAssembly is slow at
// JSON: scanning a string costs an indirect call per byte, and a body
// travelled as base64 inside a JSON string. Version 2 lays them out as
// length-prefixed fields (little-endian uint32 lengths, int64 and float64
// as 8 bytes, a byte for a flag or a choice), so that a body is copied
// once into guest memory and read in place.
//
// What the guest gets and gives is what version 1's JSON gave: every
// string is valid UTF-8, an invalid byte read as U+FFFD as encoding/json
// does, and the JSON values a payload carries (a call's arguments, a
// result's structured content, a text's head) are compacted and
// HTML-escaped by the host, as json.Marshal did, so the guest does no JSON
// work for the boundary at all.
//
// A decoder never panics on malformed input: it returns [ErrMalformed].
package wasmabi
