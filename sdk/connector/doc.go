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
// # Where a limit comes from
//
// Each [Service] says where its limit comes from ([Service.LimitFrom]):
// [LimitPublished] (the platform publishes it; LimitWhere says where),
// [LimitMeasured] (observed, not published), [LimitPolite] (BesluitBron's
// own choice where the platform publishes no number) or [LimitUnknown] (no
// limit published and none observed, which is not "no limit": BesluitBron
// keeps none, and the platform may still refuse). A manifest that does not
// say reads as [Service.LimitOrigin] decides: unknown without a limit,
// polite with one. Validate refuses a value that does not fit the limit
// declared (a published limit of none, an unknown limit with units),
// naming the connector and the service. The Laadstatus words these, with
// LimitNote and LimitNoteNL, in Dutch and English.
//
// # Record types in people's words
//
// A platform names its records in its own words ("MediaObject",
// "agenda_item", "Brief regering"); [Manifest.TypeLabels] says each in
// Dutch and English, so that the host's pages name them for people
// without a dictionary of platform types of their own, and a connector
// written elsewhere gets its types named too. Types match by [TypeKey]
// (case, spaces, underscores and hyphens aside).
//
// # One search, one mapping
//
// [SearchProfile.Arguments] is the only mapping from the host's common
// search terms (query, dates, limit, offset) onto a connector's search
// tool: besluitbron_search and the search page both ask through it, so a
// platform is asked the same thing from either, from what its manifest
// declares and never from a guess at its tool's argument names.
//
// # Concurrency
//
// The types here are values. A [Connector] implementation must allow
// concurrent calls to Call; a [Host] must allow concurrent Fetch calls.
package connector
