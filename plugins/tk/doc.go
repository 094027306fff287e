// Package tk is the Tweede Kamer connector: search over the Gegevensmagazijn
// (the House of Representatives' open data, OData v4), full texts of its
// documents, the decisions and votes on motions, amendments and bills, and
// the lists of party groups, committees and current members.
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
// serves its PDF text to one that found it. A find (sdk.FindText) reads
// the same kept text; in a PDF's text it names the PDF page of each match
// ("[page N]", see PDFText) and links the file at #page=N.
//
// Citations: tk_get_document takes a document number in any case and a
// Kamerstuk as cited ("Kamerstukken II 2025/26, 36800-VII, nr. 14", found
// by Volgnummer and Kamerstukdossier, the filter tk_get_votes uses). An
// Officiële Bekendmakingen id (kst-36800-VII-14) or citation, or an ECLI,
// gets an error naming the tool that reads it (sdk/cite).
//
// # Votes
//
// tk_get_votes is a tool of its own rather than part of tk_get_document:
// a document's text and a case's decisions are different questions with
// different sources (a file; the Besluit and Stemming entities), different
// freshness (a text does not change; a vote arrives on a Tuesday and may
// be corrected) and different costs, and a model that wants the votes
// should not pay for a PDF. It takes what tk_search hands out: a document
// number (a Motie's or Amendement's, the usual way in; every such search
// result and tk_get_document of one names the call in extra.tk.votes), a
// case number, a kamerstuk as people cite it (36800-VII-14, "36800 VII,
// nr. 14", kst-36800-VII-14, "Kamerstukken II 2025/26, 36800-VII, nr.
// 14"), or a Document's or Zaak's Id. So a search and one call answer
// "how did the fracties vote on this motion".
//
// Requests: a case number is one request, Besluit?$filter=Verwijderd eq
// false and Zaak/any(z:z/Nummer eq '…') with Stemming, Zaak and
// Agendapunt($expand=Activiteit) expanded, each with a $select (votes.go
// names where each field and the query shape come from: several
// independent typed clients of the v2.0 API, tkconv's SyncFeed reader,
// and the Besluit queries public clients send the live service). A
// document number, kamerstuk or Id first reads the document with its cases
// ($expand=Zaak; a kamerstuk by Volgnummer and
// Kamerstukdossier/any(k:k/Nummer eq … and k/Toevoeging eq …)), then asks
// the same for its case numbers. An Id that is no document (HTTP 404) is
// taken as a Zaak Id (z/Id eq <bare Guid>). The expansion is two deep, the
// most the platform's ASP.NET OData allows by default.
//
// Cache: the document lookup is metadata class (a day): a document's cases
// do not change. The decisions are search class (10 minutes), not list
// class: a motion looked up before its vote gets its decision within days,
// votes get corrected (a deleted Stemming, a Vergissing) the same week,
// and a stale "no vote yet" or a stale count is a wrong answer; the
// request is cheap and the odata service has no limit.
//
// Normalised: every decision on the cases, oldest first (by the date of the
// meeting that took it), with BesluitSoort, BesluitTekst, StemmingsSoort,
// Status, Opmerking, an outcome read from them (aangenomen, verworpen,
// aangehouden, ingetrokken, vervallen), the votes per fractie (Soort, or
// "verdeeld" when a roll call split it; seats on each side; Vergissing)
// with totals, and each member's vote in a roll call (ActorNaam,
// Persoon_Id, fractie). A roll call is StemmingsSoort "Hoofdelijk" or rows
// with Persoon_Id: each row one member, so a fractie's "zetels" there are
// its members who voted. The top level repeats the latest decision that
// was voted on (outcome, date, one-line summary). Deleted vote records are
// left out with a note; a Vergissing (a fractie's declaration that it
// voted by mistake) is kept and named, the vote counted as cast (the
// Kamer records such a declaration without changing the result; our
// reading of its rules, not the API's documentation); an outcome that its
// own vote records contradict is reported as the platform gives it, with
// a note.
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
//   - tk_search of documents expands the current version too, for its
//     publication id (ExterneIdentifier: the key by which an answer to
//     written questions, no Kamerstuk, meets its copy on obk). A 400 that
//     names HuidigeDocumentVersie is asked again with the dossier expand
//     only; the results then lack the publication key, and a note says a
//     copy on Officiële Bekendmakingen may be listed apart.
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
//   - tk_get_votes: the entity set Besluit, its navigations Stemming, Zaak
//     and Agendapunt (and Agendapunt's Activiteit), the properties named
//     in its $filter and $select, an expansion two deep with nested
//     options, and Stemming.Soort's three values; by document also
//     Document's Zaak navigation (and for a kamerstuk Volgnummer and
//     Kamerstukdossier's Nummer and Toevoeging).
//   - tk_list_fracties, tk_list_commissies, tk_list_kamerleden: the entity
//     sets Fractie, Commissie and Persoon with the properties filtered and
//     ordered on (Verwijderd, DatumInactief, Functie = 'Tweede Kamerlid',
//     NaamNL, Achternaam), and an Id (and Achternaam) in every entry.
package tk
