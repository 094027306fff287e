// Package codec is the sdk's JSON codec: the decoder behind sdk.Unmarshal,
// sdk.DecodeArgs, sdk.DecodeJSON and sdk.DecodeLenient ([Unmarshal],
// [DecodeStrict]), and the encoder behind sdk.Result ([Marshal],
// [AppendString]).
//
// It exists because encoding/json is slow where connectors run: in a
// WebAssembly guest its per-byte scanner and its reflection cost about ten
// times their native time (see RATIONALE, "Where a WebAssembly call's time
// goes"). The fast paths here decode and encode the shapes connectors
// mostly meet (flat structs, the sdk's own result types) by hand, and
// hand everything else to encoding/json whole, so that values, bytes and
// errors are always json's own. The differential tests and fuzz targets
// beside the code (decode_test.go, resultjson_test.go) hold both paths to
// encoding/json on random inputs, random struct types and prefilled
// targets; any change here must keep them passing.
//
// It is internal because none of it is a connector author's concern: the
// sdk's root package is what an author reads, and its thin faces
// (sdk.Unmarshal and the Decode functions, sdk.Result) are the whole
// contract. Keeping the engine (its type plans, its unsafe field stores,
// its hand-written encoder) out of that package keeps the author's API
// readable, and lets the engine change without the sdk's exported surface
// changing with it.
package codec
