// Package web owns BesluitBron's pages for people: the search page at /,
// the document view, and the Laadstatus pages /status and /status.json.
//
// The pages call the platforms the way an assistant does: through the
// same connector tools, cache and fair scheduler, as the one shared public
// session (sched.PublicSession), whose usage the scheduler does not count
// because it stands for many visitors at once. [Options.Invoke] is the
// host's tool runner (an invoke.Invoker, the MCP server's Invoke): it answers with the
// connector's own JSON, which the pages decode into the contract's results
// (connector.SearchResult, Document, ListResult), and the call's summary;
// this package never talks to a platform itself, nor reads an MCP result.
//
// A platform is what its manifest says ([PlatformOf]): the search tool
// and the arguments that take the query, the dates, the limit and the
// offset come from its search profile, mapped by
// connector.SearchProfile.Arguments exactly as besluitbron_search maps
// its own (a range the platform takes only whole is filled the same way),
// never guessed from the tool's argument names; the organisation choice
// from its search filter; its record types' words from its type labels.
// So a connector written outside this repository gets the same page.
//
// Pages are html/template with templates, CSS and a little JavaScript
// embedded in the binary: no build step. Everything works without
// JavaScript; with it, a platform that is still answering fills in
// without a reload. The interface is Dutch, with an English toggle
// (?lang=en, remembered in a cookie).
//
// After a search the results come right under the query field (the
// platform and period choices fold into a disclosure), and one document
// found on several platforms is shown once, its copies linked as "ook op"
// (crosssearch.Group over the keys the manifests declare; a section still
// answering is rendered on its own later and not grouped). When every
// platform found nothing for a query that reads as English, the page says
// the sources are Dutch and links the Dutch search (sdk/querylang).
//
// # One language per page
//
// Everything a reader sees is in the chosen language, while the
// platforms and connectors speak their own: snippets may carry markdown
// (shown as plain text), result types are the platforms' words
// ("Meeting", "MediaObject"; named in Dutch or English by the labels
// each connector's manifest declares, connector.Manifest.TypeLabels: the
// page keeps no dictionary of platform types, and a type its platform
// does not label is shown as written), connector notes and error messages are English for assistants,
// and the Laadstatus job words its findings in English. The pages word
// what they can themselves: a check's reason, where a limit comes from
// (published, measured, BesluitBron's choice, the admin's, unknown; the
// note beside it is the manifest's own, in the page's language), a note's
// kind (see noteKind); what only the original words can say (a
// platform's error, an unknown note) sits behind a closed "Technische
// melding" disclosure, marked lang="en".
//
// # Quota charts
//
// The Laadstatus draws each limited quota's last hour (units per minute
// against the limit, calls waiting, 429s) as inline SVG on the server,
// from the snapshot's history, which loadstatus samples from the same
// counters /metrics exports. The host's name stands above its chart. Each
// strip's y axis runs to a round figure just above what was used, with
// labelled ticks (a limit above that is said in the label, not drawn off
// the scale); minutes before the first sample are shaded "no data yet",
// and a measured zero is a mark on the baseline.
//
// # Slow, queued and down platforms
//
// A page waits at most [Options.Wait] for the platforms. A call that is
// not done by then keeps running in the background (bounded by
// [Options.CallTimeout]) so its answer lands in the cache, and the page
// says whether the platform is slow or waiting in the queue of its request
// limit (position and expected wait); asking again joins the running call
// instead of starting another. A platform that does not answer is marked
// down, with the platform's own message.
//
// # Host, Origin and client limits
//
// [Server.Guard] puts the pages behind the MCP addresses' rules (package
// inbound): a foreign Host on a loopback address is refused (403) on
// every page, a foreign Origin on the pages that start calls, and each
// page is charged to the client address's and the process's buckets of
// the MCP addresses' own limits as the tool calls it starts: a search
// over seven platforms costs 7, a document 1, /status.json 1, /static/
// nothing. Past a limit the page answers 429 with Retry-After and a short
// page in the reader's language. guard.go gives each page's rule and why.
//
// # Concurrency
//
// A *Server is safe for concurrent use. At most [Options.MaxInFlight]
// platform calls run for the pages at once; past that the page says
// BesluitBron is busy.
package web
