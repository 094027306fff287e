package invoke

import (
	"strings"
	"testing"
)

// TestShowCutsOnCharacters: a refused value and an error text are cut on
// characters, never inside one, and say how long they were.
func TestShowCutsOnCharacters(t *testing.T) {
	// 300 ë's: cut to 200 characters, not 200 bytes, and never inside one.
	got := show(strings.Repeat("ë", 300))
	want := `"` + strings.Repeat("ë", 200) + `"… (300 characters in all)`
	if got != want {
		t.Errorf("show = %q", got)
	}
	if c := ClipText(strings.Repeat("ë", 1000), 101); len(c) > 101 || !strings.HasSuffix(c, "(cut; 2000 bytes in all)") {
		t.Errorf("clipText = %q (%d bytes)", c, len(c))
	}
	if n := num(1e300); n != "1e+300" {
		t.Errorf("num(1e300) = %q", n)
	}
}
