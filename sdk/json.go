package sdk

import "github.com/besluitbron/besluitbron/sdk/internal/codec"

// Unmarshal is json.Unmarshal, faster for what connectors decode most: an
// object into a struct of strings, numbers, booleans, pointers to those
// and types with their own UnmarshalJSON, members it does not have
// skipped, or a lone string or number. Anything else is decoded by
// json.Unmarshal itself, so values and errors are always json's. Use it
// in a connector's own UnmarshalJSON methods (as obv's soft values do):
// [DecodeJSON] and [DecodeLenient] already go through it, and [DecodeArgs]
// through the same fast path, refusing members the struct does not name.
// In a WebAssembly connector json.Unmarshal cost about ten times its
// native time, which this path mostly saves (the codec is the sdk's
// internal package codec; see RATIONALE, "Where a WebAssembly call's time
// goes").
func Unmarshal(data []byte, v any) error { return codec.Unmarshal(data, v) }
