package inbound

import "testing"

// TestPrincipalCountsAcrossSessions: an authenticated client's requests
// count against one session-limit bucket and one client-limit bucket of
// its own, whatever session they carry: alice's three sessions share
// burst 2 of the session limit, a fourth session does not refill it, the
// session ending does not either; an anonymous client on alice's very
// address keeps its own buckets; bob is not charged for alice.
func TestPrincipalCountsAcrossSessions(t *testing.T) {
	l := mustNew(t, Options{
		Process: Limit{RPS: 100, Burst: 100}, Connector: Limit{RPS: 100, Burst: 100},
		Session: Limit{RPS: 1, Burst: 2}, IP: Limit{RPS: 1, Burst: 2}, Client: Limit{RPS: 1, Burst: 3},
	})
	for _, s := range []string{"s1", "s2", "s3", "s4", "b1"} {
		l.SessionStarted(at(0), "/mcp/unified/v1", s)
	}
	proxy := ip("10.0.0.1")
	alice := func(sess string) Request {
		return Request{Address: "/mcp/unified/v1", Session: sess, IP: proxy, Principal: "key:alice"}
	}
	runSteps(t, l, []step{
		{ms: 0, req: alice("s1"), ok: true},
		{ms: 0, req: alice("s2"), ok: true},
		// Charged per session, s3 would have a full bucket of its own.
		{ms: 0, req: alice("s3"), ok: false, layer: Session, retryMS: 1000},
		{ms: 0, req: alice(""), ok: false, layer: Session, retryMS: 1000},
		// Someone else behind the same proxy: its address's buckets are untouched.
		{ms: 0, req: Request{Address: "/mcp/unified/v1", Session: "s4", IP: proxy}, ok: true},
		{ms: 0, req: Request{Address: "/mcp/unified/v1", Session: "b1", IP: proxy, Principal: "key:bob"}, ok: true},
		{ms: 0, req: Request{Address: "/mcp/unified/v1", Session: "b1", IP: proxy, Principal: "key:bob"}, ok: true},
	})
	// alice's sessions end; a new one starts with her old bucket.
	l.SessionEnded("/mcp/unified/v1", "s1")
	l.SessionEnded("/mcp/unified/v1", "s2")
	l.SessionStarted(at(500), "/mcp/unified/v1", "s5")
	runSteps(t, l, []step{
		{ms: 500, req: alice("s5"), ok: false, layer: Session, retryMS: 500},
		{ms: 1000, req: alice("s5"), ok: true},
		// One more a second, however many sessions she holds.
		{ms: 2000, req: alice("s5"), ok: true},
		{ms: 2000, req: alice("s5"), ok: false, layer: Session, retryMS: 1000},
	})
	st := l.Stats()
	// bob's bucket, full again after 2 s, is dropped: it would change no
	// answer.
	if st.Refused[Session] != 4 || st.Named != 1 || st.PeakNamed != 2 {
		t.Errorf("session refusals %d, want 4; named buckets %d (peak %d), want 1 (alice) and 2", st.Refused[Session], st.Named, st.PeakNamed)
	}
}
