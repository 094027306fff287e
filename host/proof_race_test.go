package host_test

import "github.com/besluitbron/besluitbron/host"

// proofRace reports whether the race detector is on, and notes the asking
// test for make test (host.NoteRaceDependent). The race step of make test
// (go test -race ./sched/... ./host/...) is there to find data races in
// concurrent code, and the detector sees only the code of this test
// process. The rule for this package under -race:
//
// Kept: the in-process end-to-end tests whose concurrency crosses
// packages, each a few seconds once the modules come from the shared
// compilation cache (proofCompileDir): the cached call path, shared by
// sessions (TestToolResultsSayHitOrMiss, TestStaleAnswerWhenPlatformFails,
// TestHostRestartUpgradeAndClear), fifty identical calls as one request
// (TestFiftyIdenticalCallsOneRequest), one quota shared by tk and obk
// (TestQuotaSharedByTkAndObk, TestQuota429PausesBothConnectors), the
// scheduler fed by MCP sessions (TestFloodAndNewcomerThroughMCP), the
// client limits on every layer (ratelimit_*), legacy SSE sessions, the
// process runtime, a task read across two replicas through Redis
// (TestTaskCreatedOnOneReplicaIsReadOnAnother), and TestLoad, shorter
// (5 s) and without its heap bound (the detector's own bookkeeping grows
// with the run).
//
// Skipped, each covered by the plain run and its concurrency raced where
// it lives:
//
//   - a server that is a separate binary built without -race
//     (TestKillDuringCacheSave, TestBinaryRestartKeepsCache,
//     TestBinaryUpgradeAsksAgainOnce, TestThreeReplicaProcessesShareOBV,
//     TestHostileLoad): the detector would watch only the test's clients.
//     The cache's saves under traffic are raced in
//     host/internal/upstream/cache (TestSaveDuringTraffic, TestHammer),
//     replicas sharing a bucket in host/internal/upstream/cluster
//     (TestThreeReplicasOnRedis, TestReplicasNeverExceedTheLimit).
//
//   - the socket-level hostile tests and the demo walk (hostile_*_test.go,
//     TestDemoWalk): connection and session caps are
//     raced in host/internal/serve/inbound (TestHammer, TestConnsConcurrent,
//     TestFloodIsBounded) and host/internal/serve/mcpserver (TestSessionCaps,
//     TestStreamCaps, TestGoneClientCancelsCalls).
//
//   - TestFaultIsolation: TestLoad runs the same calls on all seven
//     connectors under -race; this one waits out hanging platforms.
//
//   - the flood of 100 000 distinct clients
//     (TestFloodOfDistinctClientsIsBounded): the buckets' cap under
//     concurrent requests is raced in host/internal/serve/inbound
//     (TestFloodIsBounded, TestHammer).
//
//   - long documents, the out-of-tree build and the seed shares
//     (longdoc_test.go, TestConnectorBuiltOutOfTree, seed_test.go): single
//     calls in WebAssembly for seconds, or shares measured in real time
//     that the detector's slowdown makes meaningless; instances under
//     concurrent calls are raced in host/internal/runtime/wasmrt
//     (TestHammer) and admission (TestHammer), the scheduler in sched
//     (TestHammer, TestWait*).
//
//   - the sha256 pin against a planted record or an edited manifest
//     (pin_record_test.go): each start compiles obv into a compilation
//     cache of its own (its records are the test's), 40-50 s a start
//     under the detector, to check a digest computed once at start; the
//     record's loading is raced in host/internal/runtime/wasmrt.
//
// The page, status and browser tests skip on raceEnabled
// (racedep_test.go), which asks the same way.
func proofRace() bool {
	host.NoteRaceDependent()
	return host.RaceBuild
}
