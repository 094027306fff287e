// Package crosssearch owns besluitbron_search, the one query fanned out to
// several platforms at once. It translates the common arguments (query,
// organization, dates, limit) into each connector's own <id>_search
// arguments ([translators]: the schemas differ, and some platforms cannot
// do what others can; query, dates and limit through the manifest's
// search profile, connector.SearchProfile.Arguments, the one mapping the
// search page asks through too), runs the calls in parallel through the host's
// regular tool path (validation, limits, cache, _meta), each under its own
// deadline and all under an overall one, and returns one JSON object with
// a section per platform. A slow or failing platform is named in its
// section with the reason; it never holds up the others. When no platform
// answers at all, the result is a tool error (isError) that gives each
// platform's reason, so an assistant does not read it as "no documents".
//
//	s := crosssearch.New(crosssearch.Options{Platforms: ps, Invoke: invoker})
//	a := s.Handle(ctx, info, rawArgs) // an invoke.Answer (ExampleSearcher)
//
// What the platforms cannot do is said, not papered over: Rechtspraak's
// index has no free-text search, so it is searched only when named and
// then by its filters alone; the Tweede Kamer API matches words in titles
// and subjects only; platforms without an organisation filter are left
// out when an organisation is given, unless named. Organisation names are
// resolved through each platform's own list tool (the one its manifest's
// search profile names), cached by the host like any list, and read by the
// rules the council connectors use too (sdk/orgname: a key, a name with
// kind words and province, the start of a name). A name
// that fits several organisations of a platform is never settled by
// picking one: that platform is not searched, and its section lists the
// candidates with what to pass; the other platforms still answer.
//
// One document is listed once ([Group], group.go): results that share a
// document key their connectors' manifests declare (source file URL, TK
// document number, Kamerstuk, ECLI, publication id) are one document,
// shown in the first section that has it with a link, its other copies in
// also_on; the answer counts results and distinct documents. When nothing
// is found for a query that reads as English, the answer's hint says the
// sources are Dutch (sdk/querylang).
//
// A Searcher is safe for concurrent use. Time enters only through
// Options.Now and context deadlines, so tests run under testing/synctest.
package crosssearch
