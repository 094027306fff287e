package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/besluitbron/besluitbron/sched/schedtest"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	only := fs.String("run", "", "run only the scenarios whose name contains `substring`")
	baseline := fs.Bool("baseline", true, "also run the no-restraint FIFO baseline")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "schedsim: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var out []report
	status := 0
	for _, sc := range schedtest.Scenarios() {
		if !strings.Contains(sc.Name, *only) {
			continue
		}
		r := newReport(sc, schedtest.Run(sc, "sched", schedtest.NewSchedFor(sc)))
		if !r.Pass {
			status = 1
		}
		out = append(out, r)
		if *baseline {
			b := newReport(sc, schedtest.Run(sc, "fifo", schedtest.NewFIFO(sc.Limit)))
			if b.Pass && sc.Claims() {
				status = 1
				b.Violations = append(b.Violations, "the baseline passed: the fairness checks cannot fail")
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		fmt.Fprintf(stderr, "schedsim: no scenario matches %q\n", *only)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "schedsim: %v\n", err)
			return 1
		}
		return status
	}
	printTable(stdout, out)
	return status
}

// report is one run, in the units people read: seconds and fractions.
type report struct {
	Scenario      string      `json:"scenario"`
	About         string      `json:"about"`
	Queue         string      `json:"queue"`
	Newcomers     int         `json:"newcomers"`
	NewcomerP50   float64     `json:"newcomer_wait_p50_s"`
	NewcomerP99   float64     `json:"newcomer_wait_p99_s"`
	NewcomerMax   float64     `json:"newcomer_wait_max_s"`
	Shares        []shareLine `json:"shares,omitempty"`
	MaxShareDev   float64     `json:"max_share_deviation"`
	ShareMargin   float64     `json:"share_margin"`
	Utilisation   float64     `json:"utilisation"`
	MaxPerWindow  float64     `json:"max_units_per_window"` // charged: an oversized call counts as the capacity
	Capacity      float64     `json:"capacity"`             // the platform's declared units per window
	BucketUnits   float64     `json:"bucket_units"`         // the scheduler's own bucket (headroom below Capacity)
	MaxGap        float64     `json:"max_gap_s"`
	MaxGapSession string      `json:"max_gap_session"`
	Refused       int         `json:"refused_by_platform"`
	Calls         int         `json:"calls"`
	Units         float64     `json:"units"`         // each call's whole cost
	Charged       float64     `json:"units_charged"` // what the platform's bucket was charged
	OpMicros      float64     `json:"wall_us_per_op"`
	Claims        bool        `json:"fairness_claim"`
	Pass          bool        `json:"pass"`
	Violations    []string    `json:"violations,omitempty"`
	group         map[string]string
}

type shareLine struct {
	Session    string  `json:"session"`
	UsedBefore float64 `json:"used_at_window_start"`
	Units      float64 `json:"units"`
	Share      float64 `json:"share"`
	Oracle     float64 `json:"oracle"`
}

func newReport(sc schedtest.Scenario, r *schedtest.Result) report {
	rep := report{
		Scenario: sc.Name, About: sc.About, Queue: r.Queue,
		Newcomers:   r.Newcomer.N,
		NewcomerP50: r.Newcomer.P50.Seconds(), NewcomerP99: r.Newcomer.P99.Seconds(), NewcomerMax: r.Newcomer.Max.Seconds(),
		MaxShareDev: r.ShareDev, ShareMargin: sc.Expect.ShareMargin,
		Utilisation: r.Utilisation, MaxPerWindow: r.MaxWindow, Capacity: sc.Limit.Units,
		BucketUnits: sc.SchedBucket().Units,
		MaxGap:      r.MaxGap.Seconds(), MaxGapSession: r.MaxGapSession,
		Refused: r.Refused, Calls: r.Calls, Units: r.Units, Charged: r.Charged,
		Claims: sc.Claims(), Pass: r.Fair(), Violations: r.Violations,
		group: map[string]string{},
	}
	if r.Ops > 0 {
		rep.OpMicros = float64(r.Wall) / float64(r.Ops) / float64(time.Microsecond)
	}
	for _, s := range r.Shares {
		rep.Shares = append(rep.Shares, shareLine{s.Session, s.Used, s.Units, s.Share, s.Oracle})
	}
	for _, rec := range r.Records {
		rep.group[rec.Session] = rec.Group
	}
	return rep
}

func secs(f float64) string {
	return time.Duration(f * float64(time.Second)).Round(time.Millisecond).String()
}

func printTable(w io.Writer, out []report) {
	if r := out[0]; r.BucketUnits != r.Capacity {
		fmt.Fprintf(w, "the scheduler runs as the host does: a bucket of %g units (headroom below the platform's %g), weights K/(K+used) with K = %g;\n", r.BucketUnits, r.Capacity, r.Capacity)
	}
	fmt.Fprintf(w, "utilisation and max units/W count what the platform's bucket is charged: an oversized call uses up the whole quota, %g\n\n", out[0].Capacity)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tqueue\tnewcomer wait p50/p99/max\tshare dev (margin)\tutilisation\tmax units/W\tmax gap\tµs/op\tresult")
	for _, r := range out {
		nc := "-"
		if r.Newcomers > 0 {
			nc = fmt.Sprintf("%s / %s / %s", secs(r.NewcomerP50), secs(r.NewcomerP99), secs(r.NewcomerMax))
		}
		dev := "-"
		if len(r.Shares) > 0 {
			dev = fmt.Sprintf("%.4f (%.3f)", r.MaxShareDev, r.ShareMargin)
		}
		result := "ok"
		if r.Queue != "sched" && !r.Claims {
			result = "ok (no fairness claim)"
		}
		if !r.Pass {
			result = "FAIL: " + r.Violations[0]
			if len(r.Violations) > 1 {
				result += fmt.Sprintf(" (+%d more)", len(r.Violations)-1)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f%%\t%g of %g\t%s\t%.1f\t%s\n",
			r.Scenario, r.Queue, nc, dev, 100*r.Utilisation, r.MaxPerWindow, 2*r.Capacity, secs(r.MaxGap), r.OpMicros, result)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nshares in the measured window, scheduler vs oracle (weight K/(K+used)):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\tsessions\tused at start\tunits\tshare\toracle")
	for _, r := range out {
		if r.Queue != "sched" || len(r.Shares) == 0 {
			continue
		}
		for _, l := range groupShares(r) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Scenario, l[0], l[1], l[2], l[3], l[4])
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nscenarios:")
	seen := map[string]bool{}
	for _, r := range out {
		if !seen[r.Scenario] {
			seen[r.Scenario] = true
			fmt.Fprintf(w, "  %-10s %s\n", r.Scenario, r.About)
		}
	}
}

// groupShares prints one line per session, or per group with a range when
// a group has more than one session.
func groupShares(r report) [][5]string {
	byGroup := map[string][]shareLine{}
	var order []string
	for _, s := range r.Shares {
		g := r.group[s.Session]
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], s)
	}
	span := func(ls []shareLine, f func(shareLine) float64, format string) string {
		lo, hi := f(ls[0]), f(ls[0])
		for _, l := range ls {
			lo, hi = min(lo, f(l)), max(hi, f(l))
		}
		if fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
			return fmt.Sprintf(format, lo)
		}
		return fmt.Sprintf(format+"–"+format, lo, hi)
	}
	var out [][5]string
	for _, g := range order {
		ls := byGroup[g]
		name := ls[0].Session
		if len(ls) > 1 {
			name = fmt.Sprintf("%s (%d)", g, len(ls))
		}
		out = append(out, [5]string{
			name,
			span(ls, func(l shareLine) float64 { return l.UsedBefore }, "%.0f"),
			span(ls, func(l shareLine) float64 { return l.Units }, "%.0f"),
			span(ls, func(l shareLine) float64 { return l.Share }, "%.3f"),
			span(ls, func(l shareLine) float64 { return l.Oracle }, "%.3f"),
		})
	}
	return out
}
