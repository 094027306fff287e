package quota

import (
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// Why a quota keeps the headroom it keeps: the Reason of a [HeadroomState].
const (
	// ReasonStart: fewer than [MinPathSamples] answers measured yet; the
	// headroom is what a spread of [StartSpread] needs until the path is
	// known.
	ReasonStart = "start"
	// ReasonFloor: the path's spread needs no more than the floor.
	ReasonFloor = "floor"
	// ReasonSpread: ceil(rate × spread) of the measured path.
	ReasonSpread = "spread"
	// Reason429: the platform refused a request; units were added to the
	// measured headroom and decay one per [Decay429Windows] windows.
	Reason429 = "429"
	// ReasonCap: what the spread (and 429s) ask for exceeds the cap.
	ReasonCap = "cap"
)

// The headroom's constants; docs/RATIONALE.md ("How much headroom does
// the local bucket keep?") says why each is what it is.
const (
	// PathSamples is how many of the latest answers the spread is taken
	// over: enough that one window of traffic at every real rate fills it
	// only slowly, few enough that a path that calmed down is noticed
	// within a few minutes.
	PathSamples = 64
	// MinPathSamples answers are measured before the spread is trusted;
	// until then the headroom is what a spread of StartSpread needs.
	MinPathSamples = 8
	// StartSpread is the spread assumed before the path is measured: a
	// second, wider than a healthy HTTP path's (tens of milliseconds) and
	// what the one unit kept before this design covered at
	// OpenBesluitvorming.
	StartSpread = time.Second
	// Decay429Windows: a unit added after a 429 is taken off again after
	// this many of the limit's windows without another 429 (10 minutes at
	// OpenBesluitvorming): slowly, so that a path that just caused a
	// refusal is not trusted again at once.
	Decay429Windows = 10
)

// HeadroomState is a quota's headroom now and why: the units its local
// bucket keeps below the platform's declared capacity, for the status
// pages and /metrics.
type HeadroomState struct {
	Units    float64       // headroom now, in the platform's units
	Reason   string        // ReasonStart, ReasonFloor, ReasonSpread, Reason429 or ReasonCap
	Spread   time.Duration // max − min of departure-to-answer over the latest samples
	Samples  int           // answers measured (at most PathSamples are kept)
	After429 float64       // units added by 429s and not yet decayed
	Floor    float64       // sched.HeadroomFloor: min(1, capacity/10)
	Cap      float64       // sched.HeadroomCap × capacity
	Got429   uint64        // 429 answers since start
}

// String words the state for logs and the status pages: "3 units
// (spread 280ms)".
func (s HeadroomState) String() string {
	w := FormatUnits(s.Units) + " (" + s.Reason
	switch s.Reason {
	case ReasonSpread, ReasonCap, Reason429:
		if s.Samples >= MinPathSamples {
			w += ", spread " + s.Spread.Round(time.Millisecond).String()
		}
	case ReasonStart:
		w += ", " + FormatUnits(float64(s.Samples)) + " of " + FormatUnits(MinPathSamples) + " answers measured"
	}
	if s.After429 > 0 && s.Reason != Reason429 {
		w += ", +" + FormatUnits(s.After429) + " after 429"
	}
	return w + ")"
}

// FormatUnits words a number of units without trailing zeros: "3",
// "0.3".
func FormatUnits(u float64) string {
	return strconv.FormatFloat(math.Round(u*1000)/1000, 'f', -1, 64)
}

// path measures one quota's path to its platform and sizes the headroom
// from it. All methods take the instant explicitly.
type path struct {
	mu        sync.Mutex
	declared  sched.Limit
	samples   []time.Duration // ring of the latest PathSamples
	next      int
	n         int // samples measured since start
	after429  float64
	decayedAt time.Time // when after429 last lost (or gained) a unit
	got429    uint64
}

func newPath(l sched.Limit) *path { return &path{declared: l} }

func (p *path) floor() float64 { return sched.HeadroomFloor(p.declared) }
func (p *path) cap() float64   { return max(p.floor(), sched.HeadroomCap*p.declared.Units) }

// sample records one answer, d after its departure was counted.
func (p *path) sample(d time.Duration) {
	if d < 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.samples) < PathSamples {
		p.samples = append(p.samples, d)
	} else {
		p.samples[p.next] = d
		p.next = (p.next + 1) % PathSamples
	}
	p.n++
}

// refused records a 429 at t: one more unit of headroom.
func (p *path) refused(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decayLocked(t)
	p.got429++
	p.after429++
	p.decayedAt = t
}

// decayLocked takes one unit off after429 per Decay429Windows windows
// since the last change.
func (p *path) decayLocked(t time.Time) {
	every := time.Duration(Decay429Windows) * p.declared.Per
	for p.after429 > 0 && t.Sub(p.decayedAt) >= every {
		p.after429 = max(0, p.after429-1)
		p.decayedAt = p.decayedAt.Add(every)
	}
}

// state is the headroom at t and why.
func (p *path) state(t time.Time) HeadroomState {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decayLocked(t)
	st := HeadroomState{Samples: p.n, After429: p.after429, Floor: p.floor(), Cap: p.cap(), Got429: p.got429}
	if len(p.samples) > 0 {
		lo, hi := slices.Min(p.samples), slices.Max(p.samples)
		st.Spread = hi - lo
	}
	spread, why := st.Spread, ReasonSpread
	if p.n < MinPathSamples {
		spread, why = StartSpread, ReasonStart
	}
	want := math.Ceil(p.declared.Units/p.declared.Per.Seconds()*spread.Seconds() - 1e-9)
	if want <= st.Floor {
		want = st.Floor
		if why == ReasonSpread {
			why = ReasonFloor
		}
	}
	if p.after429 > 0 {
		want, why = want+p.after429, Reason429
	}
	if want > st.Cap {
		want = st.Cap
		if why != ReasonStart {
			why = ReasonCap
		}
	}
	st.Units, st.Reason = want, why
	return st
}
