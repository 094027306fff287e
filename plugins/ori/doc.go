// Package ori is the Open Raadsinformatie "Classic" connector: full-text
// search over the council documents of Dutch municipalities, provinces and
// water boards through ORI's public, read-only Elasticsearch 7 proxy, the
// full text of one document, and the list of organisations.
//
// # The platform is being switched off
//
// ORI Classic was announced to close in autumn 2026: OpenBesluitvorming's
// front page names 1 October 2026, the ORI repository's API-docs.md names
// 1 November 2026. Both dates have passed when this version was written, so
// the API may be gone. Its successor, OpenBesluitvorming (connector obv),
// indexes the same sources. This connector is a thin fallback: every tool
// description says so, and when the upstream no longer answers as an
// Elasticsearch API (network failure, 404/410/5xx, redirects, an HTML page
// instead of JSON) the tool error says the platform may be switched off and
// points at obv ([GoneError]).
//
// # API facts
//
// Base URL https://api.openraadsinformatie.nl/v1/elastic (nginx strips the
// prefix and proxies to Elasticsearch). POST is only allowed to paths ending
// in _search. One index per organisation, named ori_<key>_<timestamp>
// (ori_soest_20250629013104); ori_* searches all of them.
//
//   - search: POST /ori_*/_search (or /ori_<key>_2*/_search for one
//     organisation, see [IndexPattern]) with a simple_query_string over
//     text, title, description and name, and _source.excludes of the full
//     text fields, because a hit with its text can be megabytes.
//   - full text: GET /ori_*/_search?q=_id:<id>, reading _source.md_text or
//     _source.text (arrays, one string per page).
//   - organisations: POST /ori_*/_search filtered on classification
//     municipality, province and water (the repository's own example).
//
// No rate limit is published or observed; the manifest declares none
// (Units 0), as the limits table says. The mapping from tool arguments to
// requests lives in this package; caching and limits are the host's.
package ori
