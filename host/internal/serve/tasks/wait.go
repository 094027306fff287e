package tasks

import (
	"fmt"
	"time"
)

// Bounds of the suggested polling interval.
const (
	MinPoll = time.Second
	MaxPoll = 30 * time.Second
	// RunningPoll is the interval suggested once the call has left the
	// queue: it is being answered, which takes seconds.
	RunningPoll = 2 * time.Second
)

// Wait is where a task's call waits, as the layers it waits in report it
// (callinfo: the fair queue at a platform's limit, or the admission to
// the connector's instances).
type Wait struct {
	// Limit is the limit the call waits at, as people read it
	// ("OpenBesluitvorming's limit"); "" while it waits for an instance.
	Limit string
	// Refill is the time the limit takes to refill one unit.
	Refill time.Duration
	// Position is the call's place in the limit's fair queue (1: next),
	// 0 when not known yet.
	Position int
	// ETA is the expected wait from the report until the call is let
	// through.
	ETA time.Duration
	// Instances is, for a call waiting for an instance of its connector,
	// the number of calls that wait for one.
	Instances int
	// InstancePlace is, for such a call, its place among them in the
	// admission's fair order (1: next), 0 when not known. Limit,
	// Position and ETA are then where it is expected to wait at the
	// platform's limit once it has an instance: behind the calls waiting
	// there and those ahead of it here.
	InstancePlace int
}

// message is the status message of a working task whose call waits as w
// (reported at at), or has left the queue (started).
func (w Wait) message(at time.Time, started bool) string {
	switch {
	case started:
		return "working: the call has left the queue and is being answered"
	case w.InstancePlace > 0 && w.Limit != "" && w.Position > 0:
		start := at.Add(w.ETA).UTC().Truncate(time.Second)
		return fmt.Sprintf("waiting for an instance of the connector (place %d of %d there), then at %s: place %d in the fair queue, expected to start in about %s (at %s UTC)",
			w.InstancePlace, w.Instances, w.Limit, w.Position, round(w.ETA), start.Format(time.TimeOnly))
	case w.InstancePlace > 0:
		return fmt.Sprintf("waiting for an instance of the connector: place %d in its fair queue, of %d calls waiting for one; its place at the platform's limit follows", w.InstancePlace, w.Instances)
	case w.Limit != "" && w.Position > 0:
		start := at.Add(w.ETA).UTC().Truncate(time.Second)
		return fmt.Sprintf("waiting at %s: place %d in the fair queue, expected to start in about %s (at %s UTC)",
			w.Limit, w.Position, round(w.ETA), start.Format(time.TimeOnly))
	case w.Limit != "":
		return "waiting at " + w.Limit + " in the fair queue"
	case w.Instances > 0 && w.ETA > 0:
		return fmt.Sprintf("waiting for an instance of the connector: %d calls wait for one; expected to start within about %s, its place follows at the next tasks/get", w.Instances, round(w.ETA))
	case w.Instances > 0:
		return fmt.Sprintf("waiting for an instance of the connector: %d calls wait for one; its place at the platform's limit follows", w.Instances)
	}
	return "working"
}

// poll is the suggested polling interval: the time the limit takes to
// refill one unit for every four places ahead (a call moves up about one
// place per unit refilled, so each poll sees it about a quarter nearer),
// between MinPoll and MaxPoll.
func (w Wait) poll(started bool) time.Duration {
	if started || w.Refill <= 0 {
		return RunningPoll
	}
	places := max(1, (w.Position+3)/4)
	return min(MaxPoll, max(MinPoll, time.Duration(places)*w.Refill))
}

// round shortens a wait for people: whole seconds, tenths below ten.
func round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
