// Package opentk is the OpenTK connector: Bert Hubert's tkconv mirror of
// the Tweede Kamer's Gegevensmagazijn (plus open.overheid.nl Woo
// documents), searched with SQLite FTS5; full texts of parliamentary
// documents and plenary reports; and the lists of committees and members.
//
// # API facts
//
// Public instance https://berthub.eu/tkconv, no authentication, no API
// documentation: the facts come from the server's code (tkserv.cc,
// search.cc).
//
//   - search: POST /search, multipart/form-data with q, twomonths
//     ("true" = last 60 days) and soorten (alles, moties,
//     vragenantwoorden, activiteiten). The answer is at most 280 rows,
//     newest indexed first, with no paging and no total. Queries are capped
//     at 10 s, 2 s when more than 5 run at once and 1 s above 8: under load
//     the answer is silently partial. [SearchForm] builds the request with a
//     fixed boundary so equal searches are equal requests (one cache entry).
//   - offset, limit, sort, category and date filters are applied by this
//     connector to those rows ([Slice]); every result says so in its notes.
//   - full text: GET /getdoc/{nummer} gives an HTML rendition of a document
//     (pdftohtml or pandoc output); GET /verslag.html?vergaderingid=… the
//     report of a plenary sitting. Both become plain text ([HTMLText]).
//   - lists: /commissies.html and /kamerleden.html are server-rendered
//     tables, read row by row; a changed layout is a tool error.
//
// # Limits
//
// OpenTK publishes no limit and the server has none in code; its operator
// warns about costly searches. As the seed's limits table says ("no strict
// limit"), BesluitBron tracks no limit here; the cache (searches 10
// minutes, pages weeks) and the cost notes keep the load down, and an admin
// can impose one per service in plugins.toml.
package opentk
