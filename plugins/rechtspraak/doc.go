// Package rechtspraak is the Rechtspraak open data connector: the ECLI index
// of Dutch court decisions (uitspraken) and Advocate-General opinions
// (conclusies), their full texts and metadata, and the value lists (courts,
// areas of law, procedure types) that the index filters take.
//
// API facts: GET /uitspraken/zoeken on https://data.rechtspraak.nl answers an
// Atom feed filtered on metadata only: it has no free-text search, and it
// silently ignores parameters it does not know, so this connector sends only
// the ones known to filter ([SearchURL]) and never pretends to match words.
// GET /uitspraken/content?id=ECLI:… answers the decision's XML: RDF metadata
// and the text ([ParseContent]). /Waardelijst/… serves the value lists. The
// platform publishes no limit ("don't hammer the server") and none was
// observed; the two services are declared with a polite default. The mapping
// from tool arguments to requests lives in this package; limits and caching
// are the host's.
//
// get_document reads through sdk.PagedText: a judgement (several MB for
// the longest) is parsed once, its text key is the content URL, its head
// the [Decision] without its body, and later pages come from the host.
//
// # Single points of failure
//
// What one change of the platform would break for every call of a tool:
//
//   - search: /uitspraken/zoeken answering an Atom feed, and its filter
//     parameters (creator, subject, type, date, modified, return, sort,
//     max, from); the platform silently ignores unknown parameters, so a
//     renamed one would widen results rather than fail. A court or subject
//     given by name also needs its value list (below); an identifier does
//     not.
//   - get_document: /uitspraken/content?id= answering XML under
//     <open-rechtspraak> with the text in a top-level inhoudsindicatie,
//     uitspraak or conclusie element; renamed, every decision would read
//     as metadata only.
//   - list_courts, list_subjects, list_procedure_types: the /Waardelijst/
//     paths, their root elements and each entry's Identifier.
//
// What fails soft, with a note in the result: a feed entry without an id
// (left out, unless no entry has one), a missing total (has_more is then
// guessed from a full page), and a decision whose metadata lacks
// dcterms:identifier but has a text (the ECLI asked for is used).
package rechtspraak
