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
package rechtspraak
