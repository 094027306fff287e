//go:build race

package host

// raceEnabled: the page, status and browser tests of this package skip
// under -race; `make test` runs them without it, and the pages' and the
// job's concurrency has its own race tests in host/internal/serve/web and
// host/internal/serve/loadstatus.
const RaceBuild = true
