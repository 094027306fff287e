// Package obk is the Officiële Bekendmakingen connector (KOOP): search over
// the official publications of the Dutch government (Staatscourant,
// Staatsblad, Gemeenteblad, Provinciaal blad, Waterschapsblad, Kamerstukken,
// Handelingen, …) and their full texts.
//
// API facts: search is SRU 2.0 with CQL on https://repository.overheid.nl/sru,
// scoped to the collection by AND-ing c.product-area==officielepublicaties
// into the query ([BuildCQL], [SearchURL]); the full text is the publication
// XML at https://zoek.officielebekendmakingen.nl/{id}.xml ([DocumentURL]),
// from which the text is extracted ([ExtractText]). No SRU limit is
// published; zoek.officielebekendmakingen.nl is said by a third party to
// allow 10 requests per 30 seconds. The mapping from tool arguments to
// requests lives in this package; limits and caching are the host's.
//
// Reading a long document: obk_get_document fetches and extracts a
// publication's XML once (sdk.PagedText, keyed by the XML's URL, the only
// thing that shapes the text); the host keeps its pages with a head of
// root, title, date, creator and metadata link, so a later page is neither
// a request against the zoek host's 10 per 30 s nor a parse.
//
// Citations: obk_get_document reads a publication as people cite it (the
// id in any case, "Stcrt. 2025, 18220", "Kamerstukken II 2025/26,
// 36800-VII, nr. 14"; sdk/cite) in the platform's spelling: family lower
// case, the rest upper case (kst-36800-VII-14). An ECLI or a TK document
// number gets an error naming the tool that reads it.
//
// # What fails soft
//
//   - A search record without dcterms:identifier is left out with a note,
//     as long as one record is readable.
//   - A publication whose XML lacks the metadata block still gives its
//     text, with the first title or the id as title; an XML without text
//     says so instead of failing.
//
// # Single points of failure
//
// One platform change that breaks every call of a tool:
//
//   - obk_search: the SRU 2.0 endpoint /sru on repository.overheid.nl, the
//     CQL indexes the query uses (c.product-area==officielepublicaties and
//     the filter indexes of [BuildCQL]: a renamed index is a diagnostic,
//     which is an error), the searchRetrieveResponse with numberOfRecords,
//     and the gzd record layout (originalData/meta/owmskern…): a moved
//     identifier leaves every record out, which is an error.
//   - obk_get_document: the address {id}.xml on
//     zoek.officielebekendmakingen.nl and well-formed XML there; a
//     different root element still gives text, an HTML page is refused.
//   - obk_list_values: none; its lists are built in (and may go stale).
package obk
