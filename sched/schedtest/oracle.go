package schedtest

import "math"

// FairShares is the oracle for guarantee 3. Sessions that are all waiting
// throughout a window, and that had used used[i] units when it opened,
// share the total units granted in it; FairShares returns each one's part.
//
// It is the fluid limit of the rule "at every instant each waiting session
// gets a rate proportional to C / (C + what it has used so far)" (weight 1,
// usage never counted, for the public session), solved in closed form
// rather than with the scheduler's tags. In a virtual time V that advances
// by the units one weight-1 session would get, a counted session grows as
//
//	dU/dV = C / (C + U)   so   (C + U)² = (C + U₀)² + 2·C·V
//
// and the public session as U = U₀ + V. FairShares finds the V at which the
// increments add up to total, by bisection.
func FairShares(capacity float64, used []float64, public []bool, total float64) []float64 {
	grow := func(i int, v float64) float64 {
		if public != nil && public[i] {
			return v
		}
		u0 := used[i]
		return math.Sqrt((capacity+u0)*(capacity+u0)+2*capacity*v) - (capacity + u0)
	}
	sum := func(v float64) float64 {
		s := 0.0
		for i := range used {
			s += grow(i, v)
		}
		return s
	}
	lo, hi := 0.0, 1.0
	for sum(hi) < total {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if sum(mid) < total {
			lo = mid
		} else {
			hi = mid
		}
	}
	out := make([]float64, len(used))
	for i := range used {
		out[i] = grow(i, hi)
	}
	return out
}
