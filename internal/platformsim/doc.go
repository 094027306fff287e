// Package platformsim is an offline stand-in for the seven platforms
// BesluitBron reaches. One [Sim] serves every platform's API on one HTTP
// handler, each under its own path prefix that stands for the platform's
// host (/obv for openbesluitvorming.nl, /tk for gegevensmagazijn.tweedekamer.nl,
// …; [BaseURLs] gives the base_url per connector). Answers come from the
// recorded responses in the repository's testdata/<id>/ and the extra
// recorded-shape data in testdata/<id>/sim/: searches filter those records by
// the query's words, organisation, dates and type, page through them, and
// full texts are served by id, in each platform's own format and with its
// own error shapes.
//
// Every record a search can return has its document, as on the platforms:
// an obk SRU record without a recorded publication file gets one on the
// zoek host, generated from the record in its journal's op-xml shape
// (Gemeenteblad, Staatscourant, Kamerstuk, Kamervragen, …; obkgen.go), and
// an OpenTK Document row without a recorded text gets a getdoc rendition
// made from the row. OpenTK's activities, commitments, gifts and Woo
// documents have no text there and none here. Every list the connectors
// read has entries (tk's sitting fracties, committees and members among
// them). Both council platforms hold names more than one organisation
// answers to, as the real lists do: two municipalities named Bergen (ORI's
// indexes ori_bergen_… "Bergen (L)" and ori_bergen_nh_… "Bergen (NH)";
// OBV's sources "bergen", labelled "Bergen", and "bergen_nh", "Bergen
// Nh"), each with documents, and on OBV the municipality and the province
// of Utrecht, so the demo shows ori_search and obv_search asking which one
// is meant (or listing both). [EnvOverrides] gives the environment that
// points a BesluitBron config at a Sim on any address (`make demo
// SIM_ADDR=…`).
//
// A document the Sim has on several platforms is described alike on each,
// as on the platforms: one title, date and source document URL for a
// council document on obv, ori and openarchivaris, one Onderwerp, Titel
// and date for a TK document on tk and opentk, the Kamerstuk's number on
// tk and obk (kst-36800-VII-14 is on all three); a motion is dated the day
// of the meeting it names, and the TK motions have votes. The demo's
// cross-search for woningbouw meets such copies.
//
//	sim, err := platformsim.New(platformsim.Options{DataDir: "testdata"})
//	srv := httptest.NewServer(sim.Handler())
//	defer srv.Close()
//	defer sim.Close()
//	urls := platformsim.BaseURLs(srv.URL) // connectors.<id>.base_url
//
// OpenBesluitvorming's own token bucket is simulated as the platform runs
// it: capacity 60 units refilled at 1 unit per second per client address,
// a search costing max(1, ceil(limit/24)) units and anything else 1; every
// API answer carries RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset, and an exhausted bucket answers 429 with Retry-After
// and the platform's JSON body.
//
// Besides the recorded documents, each platform serves generated long
// documents ([LongDocuments]): one of about 1.3 MB of text ("long") and one
// of about 5 MB ("huge"), and for tk a third, a long Kamerstuk whose text
// comes from its official XML on zoek.officielebekendmakingen.nl. They are
// served by the endpoints and in the formats of the platform's other
// documents (tk: a many-page PDF as Document({Id})/resource; obk and the
// Kamerstuk: publication XML on zoek; rechtspraak: /uitspraken/content;
// opentk: /getdoc; ori: an Elasticsearch hit with text and md_text; obv:
// an entity's markdownText; openarchivaris: a document's text), so a
// connector's get_document reads them page by page. Their Dutch text is
// deterministic, generated on first request and kept for the process (no
// multi-megabyte files in the repository); it opens with a StartPhrase,
// ends with an EndPhrase found nowhere else, and holds [FindPhrase] once,
// about 70 % through ([FindAt]; the judgement [FindJudgement] has it on
// page [FindJudgementPage] of rechtspraak_get_document), the passage a
// find looks for. They are found by id; no
// search indexes their text. tk's Document set, obk's SRU records (by
// metadata) and Rechtspraak's ECLI index list them; the other platforms'
// searches do not.
//
// Faults are injected per platform ([Fault]: latency, hanging, 5xx in the
// platform's error shape, connection resets, malformed bodies, 429 storms,
// and tk's platform drift: RefuseExpand answers any OData request whose
// $expand names HuidigeDocumentVersie with the 400 of an unknown property),
// from flags ([ParseFault], e.g. "tk:refuse_expand"), from the admin
// endpoint /_sim/faults/{id} (e.g. {"refuse_expand":true}) or from Go
// ([Sim.SetFault]) while requests run. Every request is logged
// (time, platform, method, path, cost, status) and counted ([Sim.Stats]:
// requests and 429s per platform, and the most units admitted in any
// window, to check that a client kept to a limit).
//
// A Sim is safe for concurrent use. Its clock is Options.Now; the bucket
// and the window counter take the time as an argument ([Bucket.Take]), so
// tests step time without sleeping.
package platformsim
