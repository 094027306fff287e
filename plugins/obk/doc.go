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
package obk
