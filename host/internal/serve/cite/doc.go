// Package cite gives every search result a citation anyone can check,
// and the host tools built on it: besluitbron_cite (a result's citation
// as CSL-JSON, BibTeX or RIS, which Zotero and similar tools import as
// is, also behind the pages' "Citeer" link) and besluitbron_check_quote
// (whether a passage is in a document, on which page, with the sentence
// around it, or the closest passage when it is not).
//
// The citation is written where the host already reads every result: a
// connector's search answer passes [Book.Annotate] on the invoke path
// (each item gains "cite": the Dutch citation and the date it was
// retrieved), and besluitbron_search's items carry the same ([Of]). It is
// written from what results already have, the normalised document keys
// (connector.Item.Keys) with the title, organisation, date and address,
// by sdk/cite's Describe, which owns the citation forms: the host names
// no platform, and a connector built elsewhere whose results carry keys
// is cited alike. A connector writes nothing for it, and a kept result
// (serve/memo) is annotated afresh on every call, so the retrieved date
// is the call's.
//
// The Book remembers the last results it annotated (bounded), so that
// besluitbron_cite and the Citeer link cite a result the assistant or
// the page has just seen without asking the platform again; a document
// it does not remember is described from its document tool's first page.
//
// The quote check reads only the document's kept text, through the
// invoke path: the platform's <id>_get_document with find (sdk.FindText)
// and page (sdk.PagedText), so once the text is kept no platform request
// is made. Passages are compared folded as a find folds them (sdk.Fold).
package cite
