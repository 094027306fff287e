package sdk_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
)

func TestPageArg(t *testing.T) {
	for in, want := range map[int]int{0: 1, 1: 1, 7: 7} {
		if got, err := sdk.PageArg(in); err != nil || got != want {
			t.Errorf("PageArg(%d) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []int{-1, -100} {
		if _, err := sdk.PageArg(in); err == nil || !strings.Contains(err.Error(), `argument "page"`) {
			t.Errorf("PageArg(%d): err %v, want one naming the argument", in, err)
		}
	}
}

// A run of continuation bytes longer than a page (invalid UTF-8, as a
// broken extraction may give) is still cut: SplitPages looped forever on
// it (found by FuzzFind).
func TestSplitPagesInvalidUTF8(t *testing.T) {
	text := strings.Repeat("\xb9", 50)
	pages := sdk.SplitPages(text, 9)
	if len(pages) != 6 || strings.Join(pages, "") != text {
		t.Errorf("%d pages %q", len(pages), pages)
	}
}
