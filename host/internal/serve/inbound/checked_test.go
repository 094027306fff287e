package inbound

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestGuardMarksChecked: with MarkChecked (tracing on) a request the
// limits let through reaches the handler with when it was checked, and
// a value a client forged is replaced; without it the header is the
// client's business and the Guard adds none.
func TestGuardMarksChecked(t *testing.T) {
	for _, mark := range []bool{true, false} {
		l := mustNew(t, Options{Process: generous, Connector: generous, Session: generous, IP: generous})
		clk := newFakeNow()
		var got http.Header
		inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
		srv := httptest.NewServer(NewGuard(inner, GuardOptions{Limits: l, Now: clk.now, MarkChecked: mark}))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp/unified/v1", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set(CheckedHeader, "1,2")
		res, err := http.DefaultClient.Do(req)
		srv.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("mark %v: %v %v", mark, err, res)
		}
		start, end, ok := Checked(got)
		switch {
		case mark && (!ok || !start.Equal(clk.now()) || end.Before(start)):
			t.Errorf("marked: %q read as %v..%v (%v), want the fake clock's %v", got.Get(CheckedHeader), start, end, ok, clk.now())
		case !mark && got.Get(CheckedHeader) != "1,2":
			t.Errorf("unmarked: the Guard changed the header to %q", got.Get(CheckedHeader))
		}
	}
	for _, v := range []string{"", "5", "a,b", "9,3"} {
		if _, _, ok := Checked(http.Header{CheckedHeader: {v}}); ok {
			t.Errorf("Checked(%q) ok, want refused", v)
		}
	}
	if s, e, ok := Checked(http.Header{CheckedHeader: {"3,9"}}); !ok || s != time.Unix(0, 3) || e != time.Unix(0, 9) {
		t.Errorf("Checked(3,9) = %v %v %v", s, e, ok)
	}
}
