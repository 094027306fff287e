// Package tk is the Tweede Kamer connector: search over the Gegevensmagazijn
// (the House of Representatives' open data, OData v4), full texts of its
// documents, and the lists of party groups, committees and current members.
//
// API facts (upstreams.md §3): GET {Entity}?$filter=…&$select=…&$orderby=…
// &$top=…&$skip=…&$count=true on https://gegevensmagazijn.tweedekamer.nl/
// OData/v4/2.0; server pages of 250; no full-text search, only
// contains()/eq on fields; errors as {"error":{"code","message"}}; files at
// Document({Id})/resource, ~99.7 % of them PDF. No limit is published and
// none was observed, so the odata service declares none. Kamerstukken,
// Handelingen and Aanhangsels also exist as XML on
// zoek.officielebekendmakingen.nl (the document version's
// ExterneIdentifier), which is read in preference to the PDF; that host
// states 10 requests per 30 s (a third-party report), declared as the obk
// service.
//
// Third parties measured on the live service that a $filter may hold at most
// 100 nodes (HTTP 400 beyond), and that a contains() search scans the table
// for seconds, giving up with HTTP 500 after about 30 s. [FilterNodes] keeps
// every search under that limit; the tool descriptions say the rest.
//
// Citation links: every url is the record's page on www.tweedekamer.nl
// (pages.go), found by its number as the site does, never by GUID: a
// document's kamerstukken/detail?id=<DocumentNummer>&did=<DocumentNummer>
// (search results and the metadata carry no case number; the site opens a
// document by its own number in both places), a case's
// kamerstukken/detail?id=<Zaak.Nummer>, an activity's page among the
// plenary debates or the committee meetings by its kind. tk_search and
// tk_get_document cite the same page for a document. The OData record or
// file is extra.tk.api_url or extra.tk.resource_url, the official
// publication a text was read from extra.tk.officielebekendmakingen_url.
// A record without its number (a document whose metadata could not be
// read) and list entries (party groups, committees, members, whose pages
// go by names) have no url. The page patterns come from public code that
// links the site (several independent clients agree), not from the
// platform's documentation.
//
// Reading a long document: tk_get_document extracts a document's text
// once (sdk.PagedText) and the host keeps it, with what the text source
// was (official XML, PDF and its page count, notes) as its head; a later
// page reads the metadata (cached a day) and takes its slice of the kept
// text. The text key is the file's URL plus what decides the text: the
// official XML URL from the metadata, the content type and size, the
// version. A lookup that lost the XML twin (see below) therefore never
// serves its PDF text to one that found it.
//
// The mapping from tool arguments to requests lives in this package; limits
// and caching are the host's.
//
// # What fails soft
//
//   - The metadata of tk_get_document asks for the current version
//     ($expand=HuidigeDocumentVersie), the only way to the official XML's
//     identifier. When the platform refuses that (HTTP 400, for a renamed
//     or dropped navigation), the metadata is asked for again without the
//     expansion, then without $select; the text then comes from
//     Document({Id})/resource and extra.tk.notes says the official XML
//     could not be looked up and why. When no metadata request succeeds
//     for a document named by Id, its file is read with only the Id known
//     (no title, type or date), with a note. While the platform refuses,
//     every call repeats the refused requests: answers other than 2xx are
//     not cached.
//   - The official XML failing (not published, limit, an error page) falls
//     back to the Kamer's file, with a note; a file that cannot be read
//     (Word, ZIP, a scan, a broken PDF) is described instead of read.
//   - A field that arrives in another JSON type (a number turned string)
//     is left out of its result or entry with a note (search notes,
//     extra.tk.notes of a document or list entry); a search result without
//     a readable Id is left out with a note, as long as one result is
//     readable.
//
// # Single points of failure
//
// One platform change that breaks every call of a tool:
//
//   - tk_search: the entity sets Document, Zaak and Activiteit, and the
//     properties its $filter, $select and $orderby name (Verwijderd, Titel,
//     Onderwerp, Soort, Datum, GestartOp, Zaak/Nummer, Id and the selected
//     ones): a renamed one is an HTTP 400 for every search. It is not
//     retried with less, since a search without a filter answers another
//     question. Also the collection envelope (value, @odata.count or
//     @odata.nextLink) and the 100-node filter limit as measured.
//   - tk_get_document: for every document, Document({Id})/resource (when
//     the official XML cannot be used) and the ledongthuc/pdf reader for
//     PDFs; by document number also the $filter on DocumentNummer and
//     Verwijderd, without which a number names no Id. The official XML's
//     host and the op-xml format (root <officiele-publicatie>) only cost
//     the fallback to the PDF.
//   - tk_list_fracties, tk_list_commissies, tk_list_kamerleden: the entity
//     sets Fractie, Commissie and Persoon with the properties filtered and
//     ordered on (Verwijderd, DatumInactief, Functie = 'Tweede Kamerlid',
//     NaamNL, Achternaam), and an Id (and Achternaam) in every entry.
package tk
