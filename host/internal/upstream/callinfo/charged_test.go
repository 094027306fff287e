package callinfo

import (
	"testing"

	"github.com/besluitbron/besluitbron/sched"
)

// TestChargedTo: the public session wins over anything else a caller
// carries, a session id over an address, an address over the local
// client; nothing known is anonymous, never "" (a scheduler would count
// every such call as one nameless session without saying so).
func TestChargedTo(t *testing.T) {
	for _, c := range []struct {
		in   Caller
		want string
	}{
		{Caller{Public: true, Session: "s1", Address: "1.2.3.4"}, sched.PublicSession},
		{Caller{Session: "s1", Address: "1.2.3.4"}, "s1"},
		{Caller{Address: "1.2.3.4"}, "client:1.2.3.4"},
		{Caller{Local: true}, "stdio"},
		{Caller{}, "anonymous"},
	} {
		if got := ChargedTo(c.in); got != c.want {
			t.Errorf("ChargedTo(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
	var nilInfo *Info
	for _, c := range []struct {
		in   *Info
		want string
	}{
		{Public(), sched.PublicSession},
		{&Info{Session: "s2", Public: true}, sched.PublicSession},
		{&Info{Session: "s2"}, "s2"},
		{&Info{}, "anonymous"},
		{nilInfo, "anonymous"},
	} {
		if got := c.in.ChargedTo(); got != c.want {
			t.Errorf("%+v.ChargedTo() = %q, want %q", c.in, got, c.want)
		}
	}
}
