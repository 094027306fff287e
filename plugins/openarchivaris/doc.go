// Package openarchivaris is the Open Archivaris connector: search over the
// archive of published government documents that Stichting Common Sense in
// Actie collects from council information systems, municipal websites and
// other sources (gemeenteraden, provinciale staten, waterschappen and other
// bodies), the text of one document, and the list of governments.
//
// # What is verified and what is not
//
// Verified (the publisher's forum articles): the archive exists at
// https://openarchivaris.nl; its web search covers all governments at once
// by default; filters exist for the type of government, specific
// governments, size in pages and document date; simple search ranks by the
// number of matching words and searches title, author and content; every
// result has a metadata view.
//
// NOT verified: the API. No endpoint, parameter, response format or error
// shape of Open Archivaris was found in public pages, code or issues. The
// limit of 120 calls per minute comes from the project's limits table and
// is declared as such, unconfirmed by the platform. Everything this
// connector assumes about requests and responses is in one file,
// mapping.go, so that observing the live API means editing that file only:
// its paths ([SearchURL], [DocumentURL], [GovernmentsURL]), its parameter
// names, and the field names read from answers (several likely spellings
// each). An answer of another shape, or an HTML page where JSON was
// expected, is a tool error that says the mapping is unverified, never a
// guessed result. Tool descriptions tell the assistant the same.
//
// get_document reads through sdk.PagedText: the answer is decoded once,
// into the record's known fields only (decode.go: other values, such as
// the document as HTML, are skipped undecoded), its text key is the
// document's URL, and later pages come from the host without a request.
//
// Citations: a url is the record's own link when it is on https, or a
// page of the site it names by a path (not an /api/ one), the same from
// search and get_document. No page format of the site for a document is
// known (it is a single-page app), so a record without such a link has
// no url rather than a guessed address; the assumed API address is
// extra.openarchivaris.api_url, a link on http extra.openarchivaris.source_url.
//
// # Single points of failure
//
// The whole mapping is a guess, so every assumption in mapping.go is one:
// should the live API differ, every call of the tool that uses it fails
// with [ErrUnverifiedMapping]. Per tool:
//
//   - all tools: the site answering JSON under /api/ (an HTML page is
//     [ErrUnverifiedMapping]).
//   - search: the path /api/search and the parameter q; an answer that is
//     a list or holds one under listKeys; records with an id under idKeys
//     (the other parameters and fields only narrow or enrich).
//   - get_document: the path /api/documents/{id}; a JSON object, itself the
//     record or holding it under document or data, with an id. A text
//     under none of textKeys does not fail: the result says no text came.
//   - list_governments: the path /api/governments; a list of names or of
//     records with a name under govNameKeys.
//
// What fails soft, with a note in the result: a search result that is not
// an object or has no id is left out (unless none is readable: then the
// mapping, not a record, is wrong and the call fails); a search answer
// without a total or has-more flag infers has_more from a full page.
package openarchivaris
