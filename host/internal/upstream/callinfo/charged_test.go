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
		{Caller{Public: true, Session: "s1", Address: "1.2.3.4", Named: "alice"}, sched.PublicSession},
		{Caller{Named: "alice", Session: "s1", Address: "1.2.3.4"}, "key:alice"},
		{Caller{Subject: "u-42", Session: "s1"}, "oauth:u-42"},
		{Caller{Named: "alice", Subject: "u-42"}, "key:alice"},
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

// TestLabel: a metrics label is a configured name, "oauth" whatever the
// subject, or anonymous; never a session id or an address.
func TestLabel(t *testing.T) {
	for _, c := range []struct {
		in   Caller
		want string
	}{
		{Caller{Named: "alice", Session: "s1"}, "alice"},
		{Caller{Subject: "user-8812", Session: "s1"}, "oauth"},
		{Caller{Session: "s1", Address: "1.2.3.4"}, "anonymous"},
		{Caller{Local: true}, "anonymous"},
	} {
		if got := Label(c.in); got != c.want {
			t.Errorf("Label(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}
