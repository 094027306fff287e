package callinfo

import (
	"testing"
	"time"
)

// A call that asked its client (or tried to) is never kept: its result
// depends on a person or a model, not only on the cached answers.
func TestAskClientMakesTheResultVolatile(t *testing.T) {
	until := time.Now().Add(time.Minute)
	kept := &Info{}
	kept.Until(until)
	kept.UsedClass("search")
	kept.AddFetch(Hit, 0, 0)
	if s := kept.Summary(); !s.ValidUntil.Equal(until) || len(s.Classes) != 1 {
		t.Fatalf("a plain cached call: %+v", s)
	}
	asked := &Info{}
	asked.Until(until)
	asked.AddFetch(Hit, 0, 0)
	if c := asked.AskClient(); c != nil {
		t.Errorf("a call without a client returned %v", c)
	}
	if s := asked.Summary(); !s.ValidUntil.IsZero() || len(s.Classes) != 0 || !asked.AskedClient() {
		t.Errorf("a call that asked its client may be kept: %+v", s)
	}
}
