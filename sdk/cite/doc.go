// Package cite reads the forms in which people cite Dutch public
// documents, so that a document tool accepts what a reader copies from a
// footnote, not only the id a search returned: an ECLI in any case and
// spacing, a publication of Officiële Bekendmakingen by its id
// (Stcrt-2025-18220, kst-36800-vii-14) or by its citation ("Stcrt. 2025,
// 18220", "Gmb. 2024, 512034", "Kamerstukken II 2025/26, 36800-VII,
// nr. 14"), and a Tweede Kamer document number (2025D05511).
//
// It owns the forms and which platform holds each (by the connector id
// that reads it: rechtspraak, obk, tk), so that a connector given another
// platform's document names the tool and the id to pass without knowing
// that connector. It knows no connector's own id forms (an
// OpenBesluitvorming entity id is not a citation) and makes no requests.
//
// It also says, from the same forms, where a document has a copy a result
// can name (Counterpart): a Tweede Kamer document's official publication
// by the external identifier the platform gives, and a numbered
// Kamerstuk's Tweede Kamer document by the reference tk_get_document
// reads.
//
// And it writes them (Describe): from a result's document keys, title,
// organisation, date and address, the citation Dutch practice uses for
// its kind ("Rechtbank Den Haag 19 december 2024,
// ECLI:NL:RBDHA:2024:19901", "Kamerstukken II 2025/26, 36800-VII, nr. 14",
// "Stcrt. 2025, 18220", a council document by organisation, title, date
// and address) and the parts a reference manager files it by, so that
// the host cites every platform's results alike without knowing any of
// them.
//
// Standard library only, like the rest of the sdk.
package cite
