package host

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// raceEnabled reports whether the race detector is on: the page, status
// and browser tests of this package skip under -race; `make test` runs
// them without it, and the pages' and the job's concurrency has its own
// race tests in host/internal/serve/web and host/internal/serve/loadstatus.
// Asking notes the test as one whose plain run checks what its race run
// does not (NoteRaceDependent).
func raceEnabled() bool {
	NoteRaceDependent()
	return RaceBuild
}

// RaceDependentEnv names the file where a test binary notes the tests that
// asked whether the race detector is on (set by scripts/gotest-shards.sh
// for make test's race step).
const RaceDependentEnv = "BESLUITBRON_RACE_DEPENDENT"

var (
	raceDepMu   sync.Mutex
	raceDepTest = regexp.MustCompile(`\.(Test[A-Za-z0-9_]*)(\.|$)`)
)

// NoteRaceDependent appends the name of the running top-level test to the
// file RaceDependentEnv names, or "*" when no test function is on the
// caller's stack (a goroutine a helper started): make test's plain step
// then runs every test of the package again, so no check is ever left to
// neither run.
//
// Why: make test runs each test of this package under the race detector,
// and again without it only when the race run may have checked less (it
// skipped, shortened, or left out a bound because the detector was on).
// Every such test asks raceEnabled or proofRace; noting who asked keeps
// that set exact without a list kept by hand.
func NoteRaceDependent() {
	path := os.Getenv(RaceDependentEnv)
	if path == "" {
		return
	}
	name := "*"
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		fn := f.Function[strings.LastIndexByte(f.Function, '/')+1:]
		if m := raceDepTest.FindStringSubmatch(fn); m != nil {
			name = m[1]
			break
		}
		if !more {
			break
		}
	}
	raceDepMu.Lock()
	defer raceDepMu.Unlock()
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		panic("noting a race-dependent test in " + path + ": " + err.Error())
	}
	defer file.Close()
	if _, err := file.WriteString(name + "\n"); err != nil {
		panic("noting a race-dependent test in " + path + ": " + err.Error())
	}
}
