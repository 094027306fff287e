//go:build race

package host

// raceEnabled: the browser tests skip under -race; `make test` runs them
// without it, and the pages' concurrency has its own race tests in
// host/internal/web.
const raceEnabled = true
