package main

// The rows of the table: every performance figure BesluitBron promises,
// the benchmark that measures it, and what it is measured against.

// bench is one go test -bench invocation.
type bench struct {
	pkg       string // ./host/internal/upstream/cache
	pattern   string // -bench regexp
	benchtime string // -benchtime
}

// command is how a reader reproduces the figure.
func (b bench) command() string {
	return "go test -run '^$' -bench '" + b.pattern + "' -benchtime=" + b.benchtime + " " + b.pkg
}

// metric names one reported figure: the benchmark's full name (with
// sub-benchmarks, without the -N suffix) and its unit.
type metric struct {
	name, unit string
}

// row is one line of the table. Value is the figure; Ref, when set, is
// what it is measured against, in the same run; Ratio, when set, is a
// ratio the benchmark reports itself (measured interleaved, which is more
// exact than dividing two separate runs).
type row struct {
	figure string
	bench  bench
	value  metric
	ref    *metric
	ratio  *metric
	target string
	// sched marks the scheduler row, which comes from cmd/schedsim.
	sched bool
}

var rows = []row{
	{
		figure: "Throughput of the measured headroom vs one unit at 60 per minute (OpenBesluitvorming), path spread 300 ms: units granted in the first window after idle (virtual time; the sustained rate is not lowered)",
		bench:  bench{"./host/internal/upstream/quota", "^BenchmarkHeadroomCost$", "3x"},
		value:  metric{"BenchmarkHeadroomCost/60per1m", "first-window/one-unit"},
		ratio:  &metric{"BenchmarkHeadroomCost/60per1m", "first-window/one-unit"},
	},
	{
		figure: "Throughput of the measured headroom vs one unit at 120 per minute (Open Archivaris), path spread 300 ms: units granted in the first window after idle (virtual time; the sustained rate is not lowered)",
		bench:  bench{"./host/internal/upstream/quota", "^BenchmarkHeadroomCost$", "3x"},
		value:  metric{"BenchmarkHeadroomCost/120per1m", "first-window/one-unit"},
		ratio:  &metric{"BenchmarkHeadroomCost/120per1m", "first-window/one-unit"},
	},
	{
		figure: "Throughput of the measured headroom vs one unit at 3 per second (SRU search), path spread 300 ms: units granted in the first window after idle (virtual time; the sustained rate is not lowered)",
		bench:  bench{"./host/internal/upstream/quota", "^BenchmarkHeadroomCost$", "3x"},
		value:  metric{"BenchmarkHeadroomCost/3per1s", "first-window/one-unit"},
		ratio:  &metric{"BenchmarkHeadroomCost/3per1s", "first-window/one-unit"},
	},
	{
		figure: "Throughput of the measured headroom vs one unit at 10 per second (Rechtspraak), path spread 300 ms: units granted in the first window after idle (virtual time; the sustained rate is not lowered)",
		bench:  bench{"./host/internal/upstream/quota", "^BenchmarkHeadroomCost$", "3x"},
		value:  metric{"BenchmarkHeadroomCost/10per1s", "first-window/one-unit"},
		ratio:  &metric{"BenchmarkHeadroomCost/10per1s", "first-window/one-unit"},
	},
	{
		figure: "Throughput of the measured headroom vs one unit at 10 per 30 s (zoek.officielebekendmakingen.nl), path spread 300 ms: units granted in the first window after idle (virtual time; the sustained rate is not lowered)",
		bench:  bench{"./host/internal/upstream/quota", "^BenchmarkHeadroomCost$", "3x"},
		value:  metric{"BenchmarkHeadroomCost/10per30s", "first-window/one-unit"},
		ratio:  &metric{"BenchmarkHeadroomCost/10per30s", "first-window/one-unit"},
	},
	{
		figure: "WebAssembly call vs in-process Go (obv_get_document)",
		bench:  bench{"./host/internal/testsupport/connectortest", "^BenchmarkCallRatio$", "300x"},
		value:  metric{"BenchmarkCallRatio/document", "wasm-ns/call"},
		ref:    &metric{"BenchmarkCallRatio/document", "inprocess-ns/call"},
		ratio:  &metric{"BenchmarkCallRatio/document", "wasm/inprocess"},
		target: "≤ 6",
	},
	{
		figure: "WebAssembly call with almost no work (example stats) vs in-process: its fixed cost (WebAssembly minus in-process)",
		bench:  bench{"./host/internal/testsupport/connectortest", "^BenchmarkCallRatio$", "300x"},
		value:  metric{"BenchmarkCallRatio/small", "wasm-extra-ns/call"},
		ref:    &metric{"BenchmarkCallRatio/small", "inprocess-ns/call"},
		ratio:  &metric{"BenchmarkCallRatio/small", "wasm/inprocess"},
		target: "≤ 50 µs",
	},
	{
		figure: "Native process call vs in-process Go (obv_get_document)",
		bench:  bench{"./host/internal/testsupport/connectortest", "^BenchmarkCallRatio$", "300x"},
		value:  metric{"BenchmarkCallRatio/document", "process-ns/call"},
		ref:    &metric{"BenchmarkCallRatio/document", "inprocess-beside-process-ns/call"},
		ratio:  &metric{"BenchmarkCallRatio/document", "process/inprocess"},
	},
	{
		figure: "Memory of one WebAssembly instance after every recorded case of its connector vs fresh (the largest of the eight connectors)",
		bench:  bench{"./host/internal/testsupport/connectortest", "^BenchmarkInstanceMemory$", "1x"},
		value:  metric{"BenchmarkInstanceMemory", "max-after-MB"},
		ref:    &metric{"BenchmarkInstanceMemory", "max-fresh-MB"},
	},
	{
		figure: "Start-up: seven modules, compilation cache warm, until the host serves (manifests from the load records) vs cold",
		bench:  bench{"./host/internal/runtime/wasmrt", "^BenchmarkStartup$/-7(-full)?$", "2x"},
		value:  metric{"BenchmarkStartup/warm-7", "ns/op"},
		ref:    &metric{"BenchmarkStartup/cold-7", "ns/op"},
	},
	{
		figure: "Start-up: seven modules, compilation cache warm, until every connector can answer a call, with load records vs without",
		bench:  bench{"./host/internal/runtime/wasmrt", "^BenchmarkStartup$/-7(-full)?$", "2x"},
		value:  metric{"BenchmarkStartup/warm-7", "ready-ms"},
		ref:    &metric{"BenchmarkStartup/warm-7-full", "ready-ms"},
		target: "≤ 200 ms",
	},
	{
		figure: "Cached tool call over MCP vs an empty go-sdk tool",
		bench:  bench{"./host", "^BenchmarkCachePathOverMCP$", "300x"},
		value:  metric{"BenchmarkCachePathOverMCP", "tool-ns/call"},
		ref:    &metric{"BenchmarkCachePathOverMCP", "empty-ns/call"},
		ratio:  &metric{"BenchmarkCachePathOverMCP", "tool/empty"},
	},
	{
		figure: "Cached obv_search, one session, median call vs an empty tool of a bare go-sdk server (same client, interleaved)",
		bench:  bench{"./host", "^BenchmarkBesideTheSDKs$", "1x"},
		value:  metric{"BenchmarkBesideTheSDKs", "besluitbron-p50-ns"},
		ref:    &metric{"BenchmarkBesideTheSDKs", "gosdk-p50-ns"},
		ratio:  &metric{"BenchmarkBesideTheSDKs", "besluitbron/gosdk-p50"},
		target: "≤ 1.1",
	},
	{
		figure: "The same vs an empty tool of the TypeScript SDK (node)",
		bench:  bench{"./host", "^BenchmarkBesideTheSDKs$", "1x"},
		value:  metric{"BenchmarkBesideTheSDKs", "besluitbron-p50-ns"},
		ref:    &metric{"BenchmarkBesideTheSDKs", "ts-p50-ns"},
		ratio:  &metric{"BenchmarkBesideTheSDKs", "besluitbron/ts-p50"},
	},
	{
		figure: "Cached obv_search, one session, median call vs a tool of a bare go-sdk server answering the same 2.4 kB result (same client, interleaved)",
		bench:  bench{"./host", "^BenchmarkBesideTheSDKs$", "1x"},
		value:  metric{"BenchmarkBesideTheSDKs", "besluitbron-p50-ns"},
		ref:    &metric{"BenchmarkBesideTheSDKs", "gosdk-same-p50-ns"},
		ratio:  &metric{"BenchmarkBesideTheSDKs", "besluitbron/gosdk-same-p50"},
		target: "≤ 1.1",
	},
	{
		figure: "The same vs that go-sdk server with resumable streams (its own event store), as BesluitBron's addresses are",
		bench:  bench{"./host", "^BenchmarkBesideTheSDKs$", "1x"},
		value:  metric{"BenchmarkBesideTheSDKs", "besluitbron-p50-ns"},
		ref:    &metric{"BenchmarkBesideTheSDKs", "gosdk-same-resumable-p50-ns"},
		ratio:  &metric{"BenchmarkBesideTheSDKs", "besluitbron/gosdk-same-resumable-p50"},
	},
	{
		figure: "Cached obv_search, 16 sessions at once, calls per second vs an empty tool of the TypeScript SDK",
		bench:  bench{"./host", "^BenchmarkBesideTheSDKs$", "1x"},
		value:  metric{"BenchmarkBesideTheSDKs", "besluitbron-16-calls/s"},
		ref:    &metric{"BenchmarkBesideTheSDKs", "ts-16-calls/s"},
		ratio:  &metric{"BenchmarkBesideTheSDKs", "besluitbron/ts-16"},
		target: "≥ 2",
	},
	{
		figure: "The same vs a tool of the TypeScript SDK answering the same 2.4 kB result",
		bench:  bench{"./host", "^BenchmarkBesideTheSDKs$", "1x"},
		value:  metric{"BenchmarkBesideTheSDKs", "besluitbron-16-calls/s"},
		ref:    &metric{"BenchmarkBesideTheSDKs", "ts-same-16-calls/s"},
		ratio:  &metric{"BenchmarkBesideTheSDKs", "besluitbron/ts-same-16"},
		target: "≥ 2",
	},
	{
		figure: "Cache path alone (gate + hit) over MCP vs an empty go-sdk tool",
		bench:  bench{"./host", "^BenchmarkCachePathOverMCP$", "300x"},
		value:  metric{"BenchmarkCachePathOverMCP", "fetch-ns/call"},
		ref:    &metric{"BenchmarkCachePathOverMCP", "empty-ns/call"},
		ratio:  &metric{"BenchmarkCachePathOverMCP", "fetch/empty"},
	},
	{
		figure: "Page 40 vs page 1 of a long Kamerstuk PDF once its text is kept (WebAssembly tk, no kept tool results)",
		bench:  bench{"./host", "^BenchmarkDocumentPage$", "200x"},
		value:  metric{"BenchmarkDocumentPage", "page40-ns/call"},
		ref:    &metric{"BenchmarkDocumentPage", "page1-ns/call"},
		ratio:  &metric{"BenchmarkDocumentPage", "page40/page1"},
		target: "≈ 1",
	},
	{
		figure: "First read of that PDF (fetch and extract) vs a later page",
		bench:  bench{"./host", "^BenchmarkDocumentPage$", "200x"},
		value:  metric{"BenchmarkDocumentPage", "extract-ns"},
		ref:    &metric{"BenchmarkDocumentPage", "page40-ns/call"},
		ratio:  &metric{"BenchmarkDocumentPage", "extract/page40"},
	},
	{
		figure: "Grouping one document's copies in a 100-result cross-search (five platforms, 25 copies) vs the merge without it (decoding the answers, encoding the result)",
		bench:  bench{"./host/internal/serve/crosssearch", "^BenchmarkGroup$", "2000x"},
		value:  metric{"BenchmarkGroup", "group-ns/op"},
		ref:    &metric{"BenchmarkGroup", "merge-ns/op"},
		ratio:  &metric{"BenchmarkGroup", "group/merge"},
	},
	{
		figure: "Find of a phrase on page 40 of that PDF vs reading page 40, its text kept (the find reads and folds all 66 kept pages; neither fetches nor extracts)",
		bench:  bench{"./host", "^BenchmarkFindInDocument$", "50x"},
		value:  metric{"BenchmarkFindInDocument", "find-ns/call"},
		ref:    &metric{"BenchmarkFindInDocument", "page40-ns/call"},
		ratio:  &metric{"BenchmarkFindInDocument", "find/page40"},
	},
	{
		figure: "Cache hit vs fastcache's own Get",
		bench:  bench{"./host/internal/upstream/cache", "^BenchmarkHitOverhead$", "200000x"},
		value:  metric{"BenchmarkHitOverhead", "hit-ns"},
		ref:    &metric{"BenchmarkHitOverhead", "raw-ns"},
		ratio:  &metric{"BenchmarkHitOverhead", "hit/raw"},
	},
	{
		figure: "Cache save, 256 MiB, vs fastcache's SaveToFileConcurrent",
		bench:  bench{"./host/internal/upstream/cache", "^Benchmark(Raw)?Save256MB$", "2x"},
		value:  metric{"BenchmarkSave256MB", "ns/op"},
		ref:    &metric{"BenchmarkRawSave256MB", "ns/op"},
	},
	{
		figure: "Cache load, 256 MiB, vs fastcache's LoadFromFile",
		bench:  bench{"./host/internal/upstream/cache", "^Benchmark(Raw)?Load256MB$", "2x"},
		value:  metric{"BenchmarkLoad256MB", "ns/op"},
		ref:    &metric{"BenchmarkRawLoad256MB", "ns/op"},
	},
	{
		figure: "Client limit check, known session (per request)",
		bench:  bench{"./host/internal/serve/inbound", "^BenchmarkAllowAtSession$", "1000000x"},
		value:  metric{"BenchmarkAllowAtSession", "ns/op"},
	},
	{
		figure: "Platform limit check with room (per upstream fetch)",
		bench:  bench{"./host/internal/upstream/quota", "^BenchmarkWaitGranted$", "1000000x"},
		value:  metric{"BenchmarkWaitGranted", "ns/op"},
	},
	{
		figure: "Granted call with room, shared in Redis vs one do-nothing script round trip (ratio: the cost added to a local grant, in such round trips)",
		bench:  bench{"./host/internal/upstream/cluster", "^BenchmarkGrant$", "3000x"},
		value:  metric{"BenchmarkGrant", "redis-ns/call"},
		ref:    &metric{"BenchmarkGrant", "roundtrip-ns/call"},
		ratio:  &metric{"BenchmarkGrant", "added/roundtrip"},
		target: "1 round trip",
	},
	{
		figure: "Cached tool call with client limits on vs off",
		bench:  bench{"./host", "^BenchmarkCachedToolCalls$", "300x"},
		value:  metric{"BenchmarkCachedToolCalls", "ns/call-on"},
		ref:    &metric{"BenchmarkCachedToolCalls", "ns/call-off"},
		ratio:  &metric{"BenchmarkCachedToolCalls", "on/off"},
	},
	{
		figure: "Scheduler: newcomer's longest wait behind a flood vs the physical bound (one unit's refill)",
		sched:  true,
		target: "≤ 1 (+10 ms)",
	},
	{
		figure: "Scheduler grant at 10,000 waiting sessions vs at 10",
		bench:  bench{"./sched", "^BenchmarkSchedGrant$/^10(000)?$/^plain$", "20000x"},
		value:  metric{"BenchmarkSchedGrant/10000/plain", "ns/grant"},
		ref:    &metric{"BenchmarkSchedGrant/10/plain", "ns/grant"},
		target: "≤ 5 µs",
	},
	{
		figure: "Scheduler arrival with a deadline at 10,000 waiting sessions vs at 10",
		bench:  bench{"./sched", "^BenchmarkSchedArrival$/^10(000)?$/^deadline$", "2000x"},
		value:  metric{"BenchmarkSchedArrival/10000/deadline", "ns/arrival"},
		ref:    &metric{"BenchmarkSchedArrival/10/deadline", "ns/arrival"},
		target: "≤ 50 µs",
	},
	{
		figure: "Scheduler arrival with a deadline at 10,000 waiting sessions vs at 10, every waiting call with a deadline too",
		bench:  bench{"./sched", "^BenchmarkSchedArrival$/^10(000)?$/^deadlines$", "200x"},
		value:  metric{"BenchmarkSchedArrival/10000/deadlines", "ns/arrival"},
		ref:    &metric{"BenchmarkSchedArrival/10/deadlines", "ns/arrival"},
	},
	{
		figure: "Cached obv_search over MCP with server.auth = \"keys\" vs \"none\" (interleaved)",
		bench:  bench{"./host", "^BenchmarkAuthCachedCall$", "300x"},
		value:  metric{"BenchmarkAuthCachedCall", "keys-ns/call"},
		ref:    &metric{"BenchmarkAuthCachedCall", "none-ns/call"},
		ratio:  &metric{"BenchmarkAuthCachedCall", "keys/none"},
	},
	{
		figure: "Cached obv_search over MCP with server.auth = \"oauth\" (a JWT checked on every request) vs \"none\" (interleaved)",
		bench:  bench{"./host", "^BenchmarkAuthCachedCall$", "300x"},
		value:  metric{"BenchmarkAuthCachedCall", "oauth-ns/call"},
		ref:    &metric{"BenchmarkAuthCachedCall", "none-ns/call"},
		ratio:  &metric{"BenchmarkAuthCachedCall", "oauth/none"},
	},
	{
		figure: "Cached obv_search over MCP with tracing on (every call's spans exported) vs off (interleaved)",
		bench:  bench{"./host", "^BenchmarkTracingCachedCall$", "300x"},
		value:  metric{"BenchmarkTracingCachedCall", "on-ns/call"},
		ref:    &metric{"BenchmarkTracingCachedCall", "off-ns/call"},
		ratio:  &metric{"BenchmarkTracingCachedCall", "on/off"},
	},
	{
		figure: "Healthy platforms' median latency with four platforms failing vs none",
		bench:  bench{"./host", "^BenchmarkFaultIsolation$", "1x"},
		value:  metric{"BenchmarkFaultIsolation", "healthy-ms-faults"},
		ref:    &metric{"BenchmarkFaultIsolation", "healthy-ms-free"},
		ratio:  &metric{"BenchmarkFaultIsolation", "faults/free"},
		target: "≤ 1.2",
	},
	{
		figure: "10,000 obv_search calls from 1,000 clients waiting as MCP tasks at one limit (60 per minute, virtual time): requests over the platform's limit",
		bench:  bench{"./host", "^BenchmarkTenThousandTasks$", "1x"},
		value:  metric{"BenchmarkTenThousandTasks", "over-limit"},
		target: "0",
	},
	{
		figure: "10,000 calls waiting as tasks: largest difference between a client's part of the grants and the fair-share oracle's, in units, while all 1,000 wait",
		bench:  bench{"./host", "^BenchmarkTenThousandTasks$", "1x"},
		value:  metric{"BenchmarkTenThousandTasks", "max-fair-dev-units"},
		target: "≤ 2",
	},
	{
		figure: "10,000 calls waiting as tasks: heap and goroutine stacks per waiting task, through the whole host (bytes)",
		bench:  bench{"./host", "^BenchmarkTenThousandTasks$", "1x"},
		value:  metric{"BenchmarkTenThousandTasks", "B/task"},
		target: "≤ 8 KB",
	},
	{
		figure: "10,000 calls waiting as tasks: server connections open while they wait",
		bench:  bench{"./host", "^BenchmarkTenThousandTasks$", "1x"},
		value:  metric{"BenchmarkTenThousandTasks", "open-conns"},
		target: "0",
	},
	{
		figure: "10,000 calls waiting as tasks: waiting tasks whose status names where they wait (a numbered place at the limit, or the queue for an instance)",
		bench:  bench{"./host", "^BenchmarkTenThousandTasks$", "1x"},
		value:  metric{"BenchmarkTenThousandTasks", "statuses-at-place"},
		ref:    &metric{"BenchmarkTenThousandTasks", "tasks"},
	},
}
