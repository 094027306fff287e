package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkCallRatio/small-2         	     300	     41000 ns/op	  9000 inprocess-ns/call	  30000 wasm-ns/call	 3.33 wasm/inprocess
BenchmarkFaultIsolation-2   	       1	         0.85 faults/free	        51.0 healthy-ms-faults	        60.5 healthy-ms-free
BenchmarkAllowAtSession 	 1000000	        95.5 ns/op	       0 B/op
PASS
`

func TestParse(t *testing.T) {
	res := results{}
	parse(sample, res)
	for _, c := range []struct {
		m    metric
		want float64
	}{
		{metric{"BenchmarkCallRatio/small", "wasm/inprocess"}, 3.33},
		{metric{"BenchmarkCallRatio/small", "ns/op"}, 41000},
		{metric{"BenchmarkFaultIsolation", "healthy-ms-free"}, 60.5},
		{metric{"BenchmarkAllowAtSession", "ns/op"}, 95.5},
	} {
		if got, err := res.get(c.m); err != nil || got != c.want {
			t.Errorf("%v: %v %v, want %v", c.m, got, err, c.want)
		}
	}
	if _, err := res.get(metric{"BenchmarkAllowAtSession", "x/y"}); err == nil || !strings.Contains(err.Error(), "reported no x/y") {
		t.Errorf("missing metric: %v", err)
	}
}

func TestRender(t *testing.T) {
	res := results{}
	parse(sample, res)
	rs := []row{
		{figure: "fault", bench: bench{"./host", "^BenchmarkFaultIsolation$", "1x"}, value: metric{"BenchmarkFaultIsolation", "healthy-ms-faults"},
			ref: &metric{"BenchmarkFaultIsolation", "healthy-ms-free"}, ratio: &metric{"BenchmarkFaultIsolation", "faults/free"}, target: "≤ 1.2"},
		{figure: "limit", bench: bench{"./r", "^BenchmarkAllowAtSession$", "10x"}, value: metric{"BenchmarkAllowAtSession", "ns/op"}},
		{figure: "sched", sched: true, target: "≤ 1"},
		{figure: "wasm", bench: bench{"./c", "^BenchmarkCallRatio$", "1x"}, value: metric{"BenchmarkCallRatio/small", "wasm-ns/call"},
			ref: &metric{"BenchmarkCallRatio/small", "inprocess-ns/call"}, ratio: &metric{"BenchmarkCallRatio/small", "wasm/inprocess"}},
	}
	got, err := render(rs, res, &schedResult{MaxWait: 1, P50: 0.5, Capacity: 60, Calls: 10, Units: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| fault | 51.0 ms | 60.5 ms | 0.85 | ≤ 1.2 | `go test -run '^$' -bench '^BenchmarkFaultIsolation$' -benchtime=1x ./host` |",
		"| limit | 96 ns | — | — | — |",
		"| wasm | 30.0 µs | 9.0 µs | 3.33 |",
		"| sched | 1.00 s (p50 0.50 s) | 1.00 s | 1.00 | ≤ 1 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if _, err := render(rs[:1], results{}, nil); err == nil {
		t.Error("a missing figure must fail the table")
	}
}

// TestRowsAreConsistent: every figure names a benchmark its command runs,
// and no command carries a | (it would split the Markdown cell).
func TestRowsAreConsistent(t *testing.T) {
	for _, r := range rows {
		if r.sched {
			continue
		}
		if strings.Contains(r.bench.command(), "|") {
			t.Errorf("%s: command has a |", r.figure)
		}
		levels := strings.Split(r.bench.pattern, "/")
		for _, m := range []*metric{&r.value, r.ref, r.ratio} {
			if m == nil {
				continue
			}
			parts := strings.Split(m.name, "/")
			for i, l := range levels {
				if i < len(parts) && !regexp.MustCompile(l).MatchString(parts[i]) {
					t.Errorf("%s: %s is not run by -bench %s", r.figure, m.name, r.bench.pattern)
				}
			}
		}
	}
}

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-run", "no such figure"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no row matches") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if code := run([]string{"extra"}, &out, &errb); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}
