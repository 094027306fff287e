package host

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoteRaceDependentNamesTheAskingTest: make test's plain step runs
// again only the tests the race run noted, so a question the note misses
// would leave a check to neither run. Asked in the test and in its
// subtest, the note names the top-level test; asked in a goroutine a
// helper started, where no test function is on the stack, it says "*"
// (run them all).
func TestNoteRaceDependentNamesTheAskingTest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dependent")
	t.Setenv(RaceDependentEnv, path)
	raceEnabled()
	t.Run("subtest", func(t *testing.T) { raceEnabled() })
	done := make(chan struct{})
	askFromAHelpersGoroutine(done)
	<-done
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "TestNoteRaceDependentNamesTheAskingTest\nTestNoteRaceDependentNamesTheAskingTest\n*\n"
	if string(got) != want {
		t.Errorf("noted %q, want %q", got, want)
	}
}

func askFromAHelpersGoroutine(done chan<- struct{}) {
	go func() {
		defer close(done)
		raceEnabled()
	}()
}
