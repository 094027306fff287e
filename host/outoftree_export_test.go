package host

import "context"

// CheckStatusNow runs one round of the Laadstatus job and returns when it
// is done, so a test reads /status.json after a round without waiting on
// the job's own timer.
func CheckStatusNow(ctx context.Context, h *Host) { h.lstatus.CheckAll(ctx) }
