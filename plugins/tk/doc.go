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
// Citation links: a document's url is its file on the platform
// (Document({Id})/resource, documented by the platform) or, when its text
// was read from the official XML, that publication's page on
// zoek.officielebekendmakingen.nl. Cases, activities and list entries link
// their OData record. Pages on www.tweedekamer.nl are not linked: their
// address pattern is known only from third parties, who disagree on it.
//
// The mapping from tool arguments to requests lives in this package; limits
// and caching are the host's.
package tk
