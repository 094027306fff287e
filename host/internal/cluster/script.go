package cluster

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
)

//go:embed sched.lua
var schedLua string

// schedScript is the scheduler, loaded once per Redis and then called by
// its digest (go-redis falls back to EVAL when Redis has forgotten it, as
// after a restart).
var schedScript = redis.NewScript(schedLua)

// Keys. Every key carries the hash tag {besluitbron}, so all of them sit
// in one slot and the script may touch them together, also on a Redis
// Cluster.
const (
	keyRoot     = "besluitbron:{besluitbron}:"
	keyReplicas = keyRoot + "replicas"
	keyChannels = keyRoot + "grants:"
)

// quotaPrefix is the prefix of one quota's keys: an upstream host's
// ("besluitbron:{besluitbron}:quota:zoek.officielebekendmakingen.nl:"),
// a named quota's, or "<connector>/<service>" for a service naming neither.
// (Until quotas were named by host the prefix was svc:<connector>/<service>:.)
func quotaPrefix(name string) string {
	return keyRoot + "quota:" + name + ":"
}

// usLimit is a limit in the script's units: the window in whole
// microseconds, rounded up (a longer window is a slower refill, never a
// faster one), and the platform's declared capacity K (sched's
// Options.PlatformUnits; 0: units).
type usLimit struct {
	units float64
	per   int64
	k     float64
}

func toUS(l sched.Limit) usLimit {
	per := (l.Per + time.Microsecond - 1) / time.Microsecond
	return usLimit{units: l.Units, per: int64(per)}
}

// declared is K: the capacity in the weights K/(K+used) and the most a
// call is charged; never less than units.
func (l usLimit) declared() float64 { return max(l.k, l.units) }

// charge is the refill time of what a call costing cost takes from the
// bucket, min(cost, K), rounded up (a charge) or down (a refund): an
// oversized call uses up the platform's whole quota and no more.
func (l usLimit) charge(cost float64, up bool) int64 {
	return l.dur(min(cost, l.declared()), up)
}

// dur is the refill time of units in microseconds, computed exactly and
// rounded up (a charge) or down (a refund or a correction), as sched does
// in nanoseconds.
func (l usLimit) dur(units float64, up bool) int64 {
	if units <= 0 {
		return 0
	}
	// Whole costs on a whole limit (nearly every call) in integers: the
	// same quotient without the rationals' allocations.
	const exact = 1 << 53
	if u, n := int64(units), int64(l.units); float64(u) == units && float64(n) == l.units && n > 0 &&
		u < exact && l.per > 0 && l.per < exact && u <= math.MaxInt64/l.per {
		q, r := u*l.per/n, u*l.per%n
		if up && r != 0 {
			q++
		}
		return q
	}
	return l.durRat(units, up)
}

// durRat is dur in exact rational arithmetic, for any cost and limit.
func (l usLimit) durRat(units float64, up bool) int64 {
	if units <= 0 {
		return 0
	}
	x := new(big.Rat).SetFloat64(units)
	x.Mul(x, new(big.Rat).SetInt64(l.per))
	x.Quo(x, new(big.Rat).SetFloat64(l.units))
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if up && r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return math.MaxInt64 / 4
	}
	return q.Int64()
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// usOf converts an instant to the script's microseconds; the zero Time is
// 0, which tells the script to read Redis's own clock.
func usOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

func timeOf(us int64) time.Time { return time.UnixMicro(us) }

// grantRec is a grant as the script reports it.
type grantRec struct {
	id     string
	seq    uint64
	at     int64 // µs
	queued int64 // µs
}

// projRec is a waiting call's expected position and grant instant.
type projRec struct {
	id  string
	pos int
	eta int64 // µs
}

// reply is what one run of the script answers.
type reply struct {
	now, next int64 // µs; next = 0: nothing waits
	grants    []grantRec
	proj      []projRec
	cancel    string // "removed" or "refunded" (op cancel)
	lapsed    bool   // op hb: this replica's lease had lapsed
	live      int    // op hb: replicas whose lease holds
	rest      []string
}

func parseGrant(s string) (grantRec, error) {
	f := strings.Split(s, "|")
	if len(f) != 4 {
		return grantRec{}, fmt.Errorf("grant record %q", s)
	}
	seq, err1 := strconv.ParseUint(f[1], 10, 64)
	at, err2 := parseUS(f[2])
	q, err3 := parseUS(f[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return grantRec{}, fmt.Errorf("grant record %q", s)
	}
	return grantRec{id: f[0], seq: seq, at: at, queued: q}, nil
}

// parseUS reads an integer the script may have printed as a float.
func parseUS(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("number %q", s)
	}
	return int64(f), nil
}

func parseReply(v any) (reply, error) {
	arr, ok := v.([]any)
	if !ok {
		return reply{}, fmt.Errorf("scheduler script: unexpected reply %T", v)
	}
	s := make([]string, len(arr))
	for i, x := range arr {
		switch x := x.(type) {
		case string:
			s[i] = x
		case int64:
			s[i] = strconv.FormatInt(x, 10)
		default:
			return reply{}, fmt.Errorf("scheduler script: unexpected element %T", x)
		}
	}
	bad := func(what string) (reply, error) {
		return reply{}, fmt.Errorf("scheduler script: malformed reply (%s): %q", what, s)
	}
	if len(s) < 3 {
		return bad("short")
	}
	var r reply
	var err error
	if r.now, err = parseUS(s[0]); err != nil {
		return bad("now")
	}
	if r.next, err = parseUS(s[1]); err != nil {
		return bad("next")
	}
	i := 2
	n, err := strconv.Atoi(s[i])
	if err != nil || n < 0 || i+1+n > len(s) {
		return bad("grants")
	}
	for _, g := range s[i+1 : i+1+n] {
		rec, err := parseGrant(g)
		if err != nil {
			return bad(err.Error())
		}
		r.grants = append(r.grants, rec)
	}
	i += 1 + n
	if i >= len(s) {
		return bad("projections")
	}
	n, err = strconv.Atoi(s[i])
	if err != nil || n < 0 || i+1+n > len(s) {
		return bad("projections")
	}
	for _, p := range s[i+1 : i+1+n] {
		f := strings.Split(p, "|")
		if len(f) != 3 {
			return bad("projection")
		}
		pos, err1 := strconv.Atoi(f[1])
		eta, err2 := parseUS(f[2])
		if err1 != nil || err2 != nil {
			return bad("projection")
		}
		r.proj = append(r.proj, projRec{id: f[0], pos: pos, eta: eta})
	}
	i += 1 + n
	if i+3 > len(s) {
		return bad("tail")
	}
	r.cancel, r.lapsed = s[i], s[i+1] == "1"
	if r.live, err = strconv.Atoi(s[i+2]); err != nil {
		return bad("live")
	}
	r.rest = s[i+3:]
	return r, nil
}

// scriptArgs are the arguments every op starts with.
type scriptArgs struct {
	now     int64 // µs; 0 = Redis's clock
	replica string
	limit   usLimit
	forget  time.Duration
	lease   time.Duration
}

// run calls the scheduler script for one op on the service at prefix.
func run(ctx context.Context, rdb redis.Scripter, prefix string, a scriptArgs, op string, args ...any) (reply, error) {
	v, err := runRaw(ctx, schedScript, rdb, prefix, a, op, args...)
	if err != nil {
		return reply{}, err
	}
	return parseReply(v)
}

// runRaw runs one op of script (the scheduler, or a variant of it in
// tests) and returns its unparsed reply.
func runRaw(ctx context.Context, script *redis.Script, rdb redis.Scripter, prefix string, a scriptArgs, op string, args ...any) (any, error) {
	argv := make([]any, 0, 8+len(args))
	// K without an exponent: gopher-lua (miniredis) reads "1e+06" as nil.
	k := strconv.FormatFloat(a.limit.declared(), 'f', -1, 64)
	argv = append(argv, op, a.now, a.replica, fmtFloat(a.limit.units), a.limit.per, a.forget.Microseconds(), a.lease.Microseconds(), k)
	argv = append(argv, args...)
	return script.Run(ctx, rdb, []string{prefix, keyReplicas, keyChannels}, argv...).Result()
}
