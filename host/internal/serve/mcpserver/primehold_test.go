package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// heldClock runs nothing by itself: the test fires the timers it armed.
type heldClock struct {
	mu     sync.Mutex
	timers []*heldTimer
}

type heldTimer struct {
	d       time.Duration
	f       func()
	stopped bool
}

func (t *heldTimer) Stop() bool { was := !t.stopped; t.stopped = true; return was }

func (c *heldClock) Now() time.Time { return time.Time{} }
func (c *heldClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &heldTimer{d: d, f: f}
	c.timers = append(c.timers, t)
	return t
}

// flushCounter is a response writer that counts flushes and what each
// flush sent.
type flushCounter struct {
	*httptest.ResponseRecorder
	sent []string
	at   int
}

func (f *flushCounter) Flush() {
	b := f.Body.String()
	f.sent = append(f.sent, b[f.at:])
	f.at = len(b)
}

const (
	primeEvent  = "event: prime\nid: abc_0\ndata: \n\n"
	answerEvent = "event: message\nid: abc_1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
)

// TestPrimingEventWaitsForTheAnswer: the go-sdk flushes the priming event
// and then the answer; a quick answer takes the priming event with it in
// one flush, a slow one finds it flushed when hold passed, a stream
// without a priming event (protocol versions before 2025-11-25) is
// flushed event by event, and a held flush never touches the writer once
// the handler returned. It catches the hold missing (two flushes for a
// quick call), a priming event never sent for a slow call, or a flush
// after the handler ended.
func TestPrimingEventWaitsForTheAnswer(t *testing.T) {
	newWatch := func() (*streamWatch, *flushCounter, *heldClock) {
		rec := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
		c := &heldClock{}
		return &streamWatch{ResponseWriter: rec, hold: DefaultPrimeHold, clock: c}, rec, c
	}
	event := func(w *streamWatch, e string) {
		w.Write([]byte(e))
		http.NewResponseController(w).Flush() // as the go-sdk's writeEvent
	}

	t.Run("quick answer", func(t *testing.T) {
		w, rec, c := newWatch()
		event(w, primeEvent)
		if len(rec.sent) != 0 || len(c.timers) != 1 || c.timers[0].d != DefaultPrimeHold {
			t.Fatalf("the priming event's flush should wait %v: sent %q, %d timers", DefaultPrimeHold, rec.sent, len(c.timers))
		}
		event(w, answerEvent)
		if len(rec.sent) != 1 || rec.sent[0] != primeEvent+answerEvent || !c.timers[0].stopped {
			t.Fatalf("want one flush of both events and the timer stopped: %q, stopped %v", rec.sent, c.timers[0].stopped)
		}
		if w.id() != "abc" || !w.primed() {
			t.Errorf("stream id %q, primed %v", w.id(), w.primed())
		}
		w.finish()
	})

	t.Run("slow answer", func(t *testing.T) {
		w, rec, c := newWatch()
		event(w, primeEvent)
		c.timers[0].f() // hold passed
		if len(rec.sent) != 1 || rec.sent[0] != primeEvent {
			t.Fatalf("after the hold the priming event should be sent alone: %q", rec.sent)
		}
		event(w, answerEvent)
		if len(rec.sent) != 2 || rec.sent[1] != answerEvent || len(c.timers) != 1 {
			t.Fatalf("the answer should be flushed at once: %q, %d timers", rec.sent, len(c.timers))
		}
		w.finish()
	})

	t.Run("no priming event", func(t *testing.T) {
		w, rec, c := newWatch()
		event(w, "event: message\nid: abc_0\ndata: {}\n\n")
		if len(rec.sent) != 1 || len(c.timers) != 0 {
			t.Fatalf("a stream without a priming event is flushed at once: %q, %d timers", rec.sent, len(c.timers))
		}
		w.finish()
	})

	t.Run("handler ended", func(t *testing.T) {
		w, rec, c := newWatch()
		event(w, primeEvent)
		w.finish()
		if !c.timers[0].stopped {
			t.Error("finish should stop the held flush")
		}
		c.timers[0].f() // a timer that fired as it was stopped
		w.Flush()
		if len(rec.sent) != 0 {
			t.Errorf("nothing may be flushed through a finished stream: %q", rec.sent)
		}
	})

	t.Run("hold off", func(t *testing.T) {
		w, rec, c := newWatch()
		w.hold = -1
		event(w, primeEvent)
		if len(rec.sent) != 1 || len(c.timers) != 0 {
			t.Fatalf("with a negative hold the priming event is flushed at once: %q", rec.sent)
		}
	})
}
