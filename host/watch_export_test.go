package host

// WatchesIdle is, for the tests in virtual time, whether no watch poll
// runs: after moving the clock they wait for it instead of sleeping.
func WatchesIdle(h *Host) bool { return h.watches == nil || h.watches.Idle() }

// WatchPolls counts, for the tests, the watch polls started since New.
func WatchPolls(h *Host) int {
	if h.watches == nil {
		return 0
	}
	return h.watches.Polls()
}
