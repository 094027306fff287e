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
// description says so, and when the upstream answers, but no longer as an
// Elasticsearch API (404/410, redirects, 403, an HTML page instead of
// JSON), the tool error says the platform is probably switched off and
// points at obv ([GoneError]); a gateway's 502/503/504 says it may pass.
// A request that got no answer at all (DNS, refused, timeout, no route,
// TLS, reset) is no sign of the switch-off: its error says "could not
// reach <host>: <cause>" and what to check ([UnreachableError]).
//
// # Organisations and citations
//
// ORI names an item's organisation only by its index (ori_soest_…), so
// search and get_document look the names up with the request
// ori_list_organizations makes (the host keeps its answer 30 days in the
// list cache class, so the lookup rarely reaches the platform) and give
// the name as people say it ("Gemeente Soest", "Provincie Zuid-Holland",
// [HumanName]); the key, which the organization argument takes, is
// extra.ori.organization_key. If the lookup fails, organization holds the
// key and a note says why.
//
// The organization argument of search and get_document takes a key or a
// name ([orgname.MatchOrg], shared with obv): an exact key is one organisation;
// a name is read apart from its kind and province ("Gemeente Bergen
// (NH)") and matched against the same list. A name that fits several
// organisations (ORI has "Bergen (NH)" and "Bergen (L)") is never
// settled by order: search asks the user through elicitation, if the
// admin granted it (the manifest asks for it), and otherwise fails with
// the candidates and their keys ([orgname.ResolveOrg]); get_document, whose id
// decides, looks in every candidate's index ([orgname.OrgKeys]).
//
// An item's url is the supplier's original (iBabs, Notubiz, …) when it is
// on https, the same from search and get_document. ORI has no page of its
// own for an item: its resolver copy, its id URI
// (https://id.openraadsinformatie.nl/<id>, RDF) and an original on http
// are in extra.ori (resolver_url, id_uri, original_url), and an item
// without an https original has no url.
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
//     _source.text (arrays, one string per page). A hit carries both and
//     can be megabytes (2.2 MB observed), so get_document decodes only the
//     first hit's metadata and md_text (text only when md_text has none)
//     and reads through sdk.PagedText: the text is extracted once, its key
//     is the lookup URL, and later pages come from the host.
//   - organisations: POST /ori_*/_search filtered on classification
//     municipality, province and water (the repository's own example).
//
// # Single points of failure
//
// What one change of the platform would break for every call of a tool:
//
//   - all tools: the proxy at api.openraadsinformatie.nl/v1/elastic
//     answering as Elasticsearch (the announced switch-off; [GoneError]),
//     and its answers keeping hits.hits with _index, _id and _source.
//   - search: POST to /<index>/_search staying allowed; the fields the
//     query names (text, title, description, name) and last_discussed_at
//     (date filter and sort) keeping their names; index names keeping the
//     form ori_<key>_<timestamp> (the organization filter ori_<key>_2*).
//   - get_document: GET _search?q=_id:… staying allowed and ids staying
//     unique per index. If md_text and text were renamed, documents would
//     not fail but show only their fields, each time.
//   - list_organizations: the classification field and its values
//     municipality, province, water; every hit keeping its _index. The
//     organisation names of search and get_document depend on it too, but
//     fail soft: the keys stay, with a note.
//
// What fails soft, with a note in the result: a search hit without _id
// (left out, unless every hit lacks one), an unreadable highlight (no
// snippet), _score (no score) or timed_out/_shards report (the results
// may be incomplete); in get_document an unreadable md_text (the plain
// text instead) and a second hit for the id (its index is named).
//
// No rate limit is published or observed; the manifest declares none
// (Units 0), as the limits table says. The mapping from tool arguments to
// requests lives in this package; caching and limits are the host's.
package ori
