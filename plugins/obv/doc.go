// Package obv is the OpenBesluitvorming connector: search over the council
// information of 330 Dutch municipalities, provinces and water boards,
// full texts of their documents, and the list of sources.
//
// API facts: GET /api/search, /api/entities/{id}, /api/sources and
// /api/status (import freshness per source and supplier, [StatusResult]) on
// https://openbesluitvorming.nl; a token bucket of 60 units per minute per
// client, search costing max(1, ceil(limit/24)) units ([SearchCost]).
// The mapping from tool arguments to requests lives in this package; limits
// and caching are the host's.
package obv
