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
package openarchivaris
