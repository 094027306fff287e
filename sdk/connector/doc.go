// Package connector is the contract between the BesluitBron host and its
// connectors: the manifest a connector declares, the wire types of a tool
// call and of an upstream fetch, the normalised results a connector's tools
// answer ([SearchResult], [Document], [ListResult]), and the [Connector] and
// [Host] interfaces.
//
// It sits at the bottom of the import graph: the host, the sdk and every
// runtime import it, and it imports nothing of BesluitBron's own. Its types
// are plain data; the host copies and validates a [Manifest] once (see
// [Manifest.Validate]) and never trusts a connector's slices afterwards.
//
// # Concurrency
//
// The types here are values. A [Connector] implementation must allow
// concurrent calls to Call; a [Host] must allow concurrent Fetch calls.
package connector
