package tk

// VotesRefValue exposes what ParseVotesID read, for the tests.
func VotesRefValue(r votesRef) string { return r.value }
