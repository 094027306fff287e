package schedlua

import (
	_ "embed"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

//go:embed sched.lua
var source string

// The values the scripts share with package sched. They are sched's own
// constants, placed in the scripts' text when the package loads
// ({{PublicSession}} and {{MaxPlan}} in sched.lua, {{HeadroomCap}} in
// depart.lua), so that none is written twice: a copy in Lua would drift
// (depart.lua's cap stayed at half the capacity after sched's went to
// three quarters).
const (
	// PublicSession is the session whose usage is never counted.
	PublicSession = sched.PublicSession
	// MaxPlan is how many grants ahead a projection plans.
	MaxPlan = sched.MaxPlan
	// HeadroomCap is the largest share of the declared capacity a
	// replica's headroom may take from the departure bucket.
	HeadroomCap = sched.HeadroomCap
)

// Script is the scheduler script as Redis runs it: sched.lua with
// PublicSession and MaxPlan in place.
var Script = expand("sched.lua", source, []slot{
	{"{{PublicSession}}", PublicSession, true},
	{"{{MaxPlan}}", strconv.Itoa(MaxPlan), false},
})

type slot struct {
	name, value string
	quoted      bool // the slot sits inside a single-quoted Lua string
}

// expand puts the values in place in the script file. It panics (when
// the package loads) if a constant slot is missing from the script, a
// value would break out of its Lua string, or a constant slot is left
// over.
func expand(file, src string, ps []slot) string {
	for _, p := range ps {
		if !strings.Contains(src, p.name) {
			panic("schedlua: " + file + " has no " + p.name)
		}
		if p.quoted && strings.ContainsAny(p.value, "'\\\n") {
			panic(fmt.Sprintf("schedlua: %s %q cannot stand in a Lua string", p.name, p.value))
		}
		src = strings.ReplaceAll(src, p.name, p.value)
	}
	if i := strings.Index(src, "{{"); i >= 0 {
		panic("schedlua: " + file + " has a constant slot without a value: " + src[i:min(len(src), i+40)])
	}
	return src
}

// Limit is a quota's limit in the script's units: the window in whole
// microseconds, rounded up (a longer window is a slower refill, never a
// faster one), and the platform's declared capacity K (sched's
// Options.PlatformUnits; 0: Units).
type Limit struct {
	Units float64
	Per   int64 // µs
	K     float64
}

// FromSched converts l to the script's units, with declared capacity k
// (0: l.Units).
func FromSched(l sched.Limit, k float64) Limit {
	per := (l.Per + time.Microsecond - 1) / time.Microsecond
	return Limit{Units: l.Units, Per: int64(per), K: k}
}

// Declared is K: the capacity in the weights K/(K+used) and the most a
// call is charged; never less than Units.
func (l Limit) Declared() float64 { return max(l.K, l.Units) }

// Charge is the refill time of what a call costing cost takes from the
// bucket, min(cost, K), rounded up (a charge) or down (a refund): an
// oversized call uses up the platform's whole quota and no more.
func (l Limit) Charge(cost float64, up bool) int64 {
	return l.Dur(min(cost, l.Declared()), up)
}

// Dur is the refill time of units in microseconds, computed exactly and
// rounded up (a charge) or down (a refund or a correction), as sched does
// in nanoseconds.
func (l Limit) Dur(units float64, up bool) int64 {
	if units <= 0 {
		return 0
	}
	// Whole costs on a whole limit (nearly every call) in integers: the
	// same quotient without the rationals' allocations.
	const exact = 1 << 53
	if u, n := int64(units), int64(l.Units); float64(u) == units && float64(n) == l.Units && n > 0 &&
		u < exact && l.Per > 0 && l.Per < exact && u <= math.MaxInt64/l.Per {
		q, r := u*l.Per/n, u*l.Per%n
		if up && r != 0 {
			q++
		}
		return q
	}
	return l.durRat(units, up)
}

// durRat is Dur in exact rational arithmetic, for any cost and limit.
func (l Limit) durRat(units float64, up bool) int64 {
	if units <= 0 {
		return 0
	}
	x := new(big.Rat).SetFloat64(units)
	x.Mul(x, new(big.Rat).SetInt64(l.Per))
	x.Quo(x, new(big.Rat).SetFloat64(l.Units))
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if up && r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return math.MaxInt64 / 4
	}
	return q.Int64()
}

// Float formats a number as the script reads it back exactly.
func Float(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Flag is a boolean argument: "1" or "0".
func Flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// US converts an instant to the script's microseconds; the zero Time is
// 0, which tells the script to read Redis's own clock.
func US(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// Time converts the script's microseconds to an instant.
func Time(us int64) time.Time { return time.UnixMicro(us) }

// Args are the arguments every op starts with.
type Args struct {
	Now     int64 // µs; 0 = Redis's clock
	Replica string
	Limit   Limit
	Forget  time.Duration
	Lease   time.Duration
}

// Argv is the script's ARGV for op with its arguments (sched.lua lists
// each op's). The script's KEYS are the quota's key prefix, the replicas'
// sorted set and the prefix of the replicas' grant channels, all in one
// hash slot.
func (a Args) Argv(op string, args ...any) []any {
	argv := make([]any, 0, 8+len(args))
	// K without an exponent: gopher-lua (miniredis) reads "1e+06" as nil.
	k := strconv.FormatFloat(a.Limit.Declared(), 'f', -1, 64)
	argv = append(argv, op, a.Now, a.Replica, Float(a.Limit.Units), a.Limit.Per, a.Forget.Microseconds(), a.Lease.Microseconds(), k)
	return append(argv, args...)
}

// Grant is a grant as the script reports it.
type Grant struct {
	ID     string
	Seq    uint64
	At     int64 // µs
	Queued int64 // µs
}

// Projection is a waiting call's expected position and grant instant.
type Projection struct {
	ID  string
	Pos int
	ETA int64 // µs
}

// Reply is what one run of the script answers.
type Reply struct {
	Now, Next int64 // µs; Next = 0: nothing waits
	Grants    []Grant
	Proj      []Projection
	Cancel    string // "removed" or "refunded" (op cancel)
	Lapsed    bool   // op hb: this replica's lease had lapsed
	Live      int    // op hb: replicas whose lease holds
	Rest      []string
}

// ParseGrant reads one grant record, "id|seq|at|queued", as the script
// puts it in its reply and publishes it to a replica's channel.
func ParseGrant(s string) (Grant, error) {
	f := strings.Split(s, "|")
	if len(f) != 4 {
		return Grant{}, fmt.Errorf("grant record %q", s)
	}
	seq, err1 := strconv.ParseUint(f[1], 10, 64)
	at, err2 := parseUS(f[2])
	q, err3 := parseUS(f[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return Grant{}, fmt.Errorf("grant record %q", s)
	}
	return Grant{ID: f[0], Seq: seq, At: at, Queued: q}, nil
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

// ParseReply reads a run's reply as a Redis client returns it (a slice of
// strings and integers).
func ParseReply(v any) (Reply, error) {
	arr, ok := v.([]any)
	if !ok {
		return Reply{}, fmt.Errorf("scheduler script: unexpected reply %T", v)
	}
	s := make([]string, len(arr))
	for i, x := range arr {
		switch x := x.(type) {
		case string:
			s[i] = x
		case int64:
			s[i] = strconv.FormatInt(x, 10)
		default:
			return Reply{}, fmt.Errorf("scheduler script: unexpected element %T", x)
		}
	}
	bad := func(what string) (Reply, error) {
		return Reply{}, fmt.Errorf("scheduler script: malformed reply (%s): %q", what, s)
	}
	if len(s) < 3 {
		return bad("short")
	}
	var r Reply
	var err error
	if r.Now, err = parseUS(s[0]); err != nil {
		return bad("now")
	}
	if r.Next, err = parseUS(s[1]); err != nil {
		return bad("next")
	}
	i := 2
	n, err := strconv.Atoi(s[i])
	if err != nil || n < 0 || i+1+n > len(s) {
		return bad("grants")
	}
	for _, g := range s[i+1 : i+1+n] {
		rec, err := ParseGrant(g)
		if err != nil {
			return bad(err.Error())
		}
		r.Grants = append(r.Grants, rec)
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
		r.Proj = append(r.Proj, Projection{ID: f[0], Pos: pos, ETA: eta})
	}
	i += 1 + n
	if i+3 > len(s) {
		return bad("tail")
	}
	r.Cancel, r.Lapsed = s[i], s[i+1] == "1"
	if r.Live, err = strconv.Atoi(s[i+2]); err != nil {
		return bad("live")
	}
	r.Rest = s[i+3:]
	return r, nil
}

//go:embed depart.lua
var departSource string

// DepartScript is the departure bucket shared by the replicas
// (depart.lua, with HeadroomCap in place): it counts a request when it is
// about to be written and says when it may leave. Its KEYS are the
// quota's key prefix.
var DepartScript = expand("depart.lua", departSource, []slot{
	{"{{HeadroomCap}}", Float(HeadroomCap), true},
})

// DepartArgv is DepartScript's ARGV: now (µs; 0 = Redis's clock), the
// replica, the platform's declared limit l (K units refilling in l.Per;
// l.Units is K), this replica's headroom in units, the request's cost and
// how long a replica's headroom counts without renewal.
func DepartArgv(now int64, replica string, l Limit, headroom, cost float64, ttl time.Duration) []any {
	k := strconv.FormatFloat(l.Units, 'f', -1, 64)
	return []any{now, replica, k, l.Per, strconv.FormatFloat(headroom, 'f', -1, 64), l.Dur(min(cost, l.Units), true), ttl.Microseconds()}
}

// Departure is DepartScript's reply.
type Departure struct {
	At, Now  int64   // µs: when the request may leave; the script's now
	Headroom float64 // the widest headroom of the live replicas, in force
}

// ParseDepart reads DepartScript's reply.
func ParseDepart(v any) (Departure, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) != 3 {
		return Departure{}, fmt.Errorf("departure script: unexpected reply %v", v)
	}
	s := make([]string, 3)
	for i, x := range arr {
		switch x := x.(type) {
		case string:
			s[i] = x
		case int64:
			s[i] = strconv.FormatInt(x, 10)
		default:
			return Departure{}, fmt.Errorf("departure script: unexpected element %T", x)
		}
	}
	at, err1 := parseUS(s[0])
	now, err2 := parseUS(s[1])
	h, err3 := strconv.ParseFloat(s[2], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Departure{}, fmt.Errorf("departure script: malformed reply %q", s)
	}
	return Departure{At: at, Now: now, Headroom: h}, nil
}
