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
//
// # Citations
//
// Every url is a page of OpenTK on https: a Document's
// document.html?nummer=, a Verslag's verslag.html?vergaderingid=, the
// same from opentk_search and opentk_get_document ([PageURL]); other rows
// their own page as their relurl names it. The renditions read
// (/getdoc/, /getraw/) are not citations; the original file is
// extra.opentk.original_url of a document.
//
// # Reading a long document
//
// opentk_get_document fetches a rendition and turns its HTML into text
// once (sdk.PagedText, keyed by the URL fetched, which holds the number and
// by its path the category); the host keeps the pages with a head of
// title, date and notes, so a later page is neither a request nor a parse.
// [HTMLText] builds the text line by line, about one copy of the text on
// top of the page, and the page's <main> is found by scanning, not by a
// regular expression over megabytes.
//
// # What fails soft
//
//   - A search row without nummer or category is left out with a note, a
//     field of another JSON type is left out of its row with a note, and a
//     search time (milliseconds) in another form is named in a note, as
//     long as one row is readable.
//   - A rendition labelled with a non-HTML content type that is HTML is
//     read, with a note; a plenary report whose page gives no date is read
//     without one, with a note.
//
// # Single points of failure
//
// One platform change that breaks every call of a tool:
//
//   - opentk_search: POST /search with the form fields q, twomonths and
//     soorten, and the JSON answer's results array with nummer and
//     category in each row.
//   - opentk_get_document: the addresses /getdoc/{nummer} and
//     /verslag.html?vergaderingid=…, an HTML answer (any other format is
//     an error) and the "Found nothing!!" answer for an unknown number.
//     (Without the <main> element around a report the site's navigation
//     is read along: worse text, not a failure.)
//   - opentk_list_committees, opentk_list_members: the table layout of
//     /commissies.html and /kamerleden.html (cells per row, the link in
//     the first or fourth cell). A changed row is an error, not a shorter
//     list, since a list result has no room for a note saying what was
//     left out.
package opentk
