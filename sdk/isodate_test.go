package sdk

import (
	"fmt"
	"testing"
	"time"
)

// isISODate must agree with the time.Parse it replaces.
func TestISODateAsTimeParse(t *testing.T) {
	check := func(s string) {
		_, err := time.Parse("2006-01-02", s)
		if got := isISODate(s); got != (err == nil) {
			t.Errorf("isISODate(%q) = %v, time.Parse: %v", s, got, err)
		}
	}
	for _, y := range []int{0, 1, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 9999} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				check(fmt.Sprintf("%04d-%02d-%02d", y, m, d))
			}
		}
	}
	for _, s := range []string{"2024-1a-07", "+024-11-07", "-024-11-07", "2024-+1-07", "2024-11-+7", "2024-11- 7", " 024-11-07", "2024-00-00", "2024-99-99"} {
		check(s)
	}
}

func FuzzISODate(f *testing.F) {
	f.Add("2024-02-29")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) != 10 || s[4] != '-' || s[7] != '-' {
			return
		}
		_, err := time.Parse("2006-01-02", s)
		if got := isISODate(s); got != (err == nil) {
			t.Errorf("isISODate(%q) = %v, time.Parse: %v", s, got, err)
		}
	})
}
