// Package obv is the OpenBesluitvorming connector: search over the council
// information of 330 Dutch municipalities, provinces and water boards,
// full texts of their documents, and the list of sources.
//
// API facts: GET /api/search, /api/entities/{id}, /api/sources and
// /api/status (import freshness per source and supplier, [StatusResult]) on
// https://openbesluitvorming.nl; a token bucket of 60 units per minute per
// client, search costing max(1, ceil(limit/24)) units ([SearchCost]).
// get_document reads through sdk.PagedText: an entity (a document's
// markdownText can be megabytes) is decoded once, into the fields the
// result shows, its text key is the entity's URL, and later pages come
// from the host without a request.
//
// search's organization and status's source take a source key or a name
// ([orgname.MatchOrg], shared with ori), read against /api/sources (every source,
// implemented or not; cached 30 days). A name that fits several sources
// (Bergen and Bergen Nh, the municipality and the province of Groningen)
// is never settled by order: search asks the user through elicitation,
// if the admin granted it (the manifest asks for it), and otherwise fails
// with the candidates and their keys ([orgname.ResolveOrg]); status lists every
// source the name fits.
//
// The mapping from tool arguments to requests lives in this package; limits
// and caching are the host's.
//
// # Single points of failure
//
// What one change of the platform would break for every call of a tool:
//
//   - all tools: the paths under /api/ answering JSON (an HTML page or
//     an error status is a tool error).
//   - search: the query parameters (query, organization, entityType,
//     dateFrom, dateTo, sort, limit, offset), the results list and each
//     result's entityId.
//   - get_document: /api/entities/{id} with entityId, and markdownText
//     as a string (a document's only text; renamed, every document would
//     read as having no text).
//   - list_sources: the sources list and its key and label fields.
//   - status: /api/status and each source's sourceKey and state.
//
// What fails soft, with a note in the result: in search a result of
// another shape or without entityId (left out, unless none is readable),
// an unreadable matchedPage or pageCount, totalCount, or hasMore (then
// inferred from a full page); in get_document every part besides entityId
// and markdownText (title, dates, organisation, download URL, content
// type, meeting id, agenda, motions, recordings, motion); in status a
// source or supplier row of another shape, an unreadable or missing
// suppliers list, windowHours or indexActivityAvailable.
package obv
