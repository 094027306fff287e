package inbound

import (
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
)

// Many goroutines on their own sessions and addresses, at one frozen
// instant: exactly the process burst is admitted, every other request is
// refused and counted, while sessions start and end concurrently.
func TestHammer(t *testing.T) {
	const (
		P, N  = 8, 2000
		burst = 5000
	)
	l := mustNew(t, Options{
		Process: Limit{RPS: 1, Burst: burst}, Connector: Limit{RPS: 1e9, Burst: 1e9},
		Session: Limit{RPS: 1e9, Burst: 1e9}, IP: Limit{RPS: 1e9, Burst: 1e9},
		Connectors: []string{"a", "b"}, MaxSessions: 64, MaxIPs: 64,
	})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for p := range P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sid := fmt.Sprintf("s%d", p)
			for i := range N {
				switch i % 100 {
				case 0:
					l.SessionStarted(t0, "/a", sid)
				case 50:
					l.SessionEnded("/a", sid)
				case 75:
					l.Stats()
				}
				r := Request{Address: []string{"/a", "/b", "/x"}[i%3], Session: sid, IP: netip.AddrFrom4([4]byte{10, 0, byte(p), byte(i)})}
				if l.AllowAt(t0, r).OK {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	st := l.Stats()
	if admitted.Load() != burst {
		t.Errorf("admitted %d, want exactly the process burst %d", admitted.Load(), burst)
	}
	var refused uint64
	for _, n := range st.Refused {
		refused += n
	}
	if refused != P*N-burst || st.Refused[Process] != refused {
		t.Errorf("refused %v, want %d on the process layer", st.Refused, P*N-burst)
	}
	if st.PeakIPs > 64 || st.PeakSessions > 64 {
		t.Errorf("peaks %d IPs %d sessions, cap 64", st.PeakIPs, st.PeakSessions)
	}
}
