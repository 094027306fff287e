package tasks

// Extension is the tasks extension's identifier, the key a client
// declares it under in its capabilities' extensions.
const Extension = "io.modelcontextprotocol/tasks"

// MetaClientCapabilities is the _meta key of a 2026-07-28 request's client
// capabilities (specification 2026-07-28, changelog "Major changes" 2).
const MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

// CodeMissingCapability is the JSON-RPC error code of a request from a
// client that did not declare the extension: -32021, as the 2026-07-28
// changelog renumbers MissingRequiredClientCapability (Minor changes 12);
// an earlier draft of the extension said -32003.
const CodeMissingCapability = -32021

// Declared reports whether a request's _meta declares the extension: its
// io.modelcontextprotocol/clientCapabilities holds an extensions object
// with the extension's key, whose value is an object (empty: no settings
// are defined). The meta is as decoded JSON (map[string]any), or nil.
func Declared(meta map[string]any) bool {
	caps, _ := meta[MetaClientCapabilities].(map[string]any)
	return DeclaredIn(caps)
}

// DeclaredIn reports whether a client capabilities object (decoded JSON)
// declares the extension in its extensions.
func DeclaredIn(caps map[string]any) bool {
	ext, _ := caps["extensions"].(map[string]any)
	return ExtensionsDeclare(ext)
}

// ExtensionsDeclare reports whether an extensions map (a capabilities
// object's "extensions") declares the extension: its key with an object.
func ExtensionsDeclare(ext map[string]any) bool {
	_, ok := ext[Extension].(map[string]any)
	return ok
}
