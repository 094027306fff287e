package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// results maps a benchmark's full name to its figures by unit.
type results map[string]map[string]float64

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("run", "", "only the rows whose figure contains `substring`")
	out := fs.String("o", "", "also write the table, with a header saying when and where it ran, to `file`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "benchtable: unexpected arguments %q\n", fs.Args())
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(stderr, "benchtable:", err)
		return 1
	}
	var selected []row
	for _, r := range rows {
		if strings.Contains(strings.ToLower(r.figure), strings.ToLower(*only)) {
			selected = append(selected, r)
		}
	}
	if len(selected) == 0 {
		fmt.Fprintf(stderr, "benchtable: no row matches %q\n", *only)
		return 2
	}
	res := results{}
	ran := map[bench]bool{}
	var sched *schedResult
	for _, r := range selected {
		if r.sched {
			if sched == nil {
				fmt.Fprintln(stderr, "benchtable: go run ./cmd/schedsim -json -baseline=false -run newcomer")
				s, err := runSchedsim(root)
				if err != nil {
					fmt.Fprintln(stderr, "benchtable:", err)
					return 1
				}
				sched = &s
			}
			continue
		}
		if ran[r.bench] {
			continue
		}
		ran[r.bench] = true
		fmt.Fprintln(stderr, "benchtable:", r.bench.command())
		text, err := runBench(root, r.bench)
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %s: %v\n%s\n", r.bench.command(), err, text)
			return 1
		}
		parse(text, res)
	}
	table, err := render(selected, res, sched)
	if err != nil {
		fmt.Fprintln(stderr, "benchtable:", err)
		return 1
	}
	fmt.Fprint(stdout, table)
	if *out != "" {
		head := fmt.Sprintf("Measured %s on %s/%s with %d CPUs (%s), `make bench`.\n\n",
			time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
		if err := os.WriteFile(*out, []byte(head+table), 0o644); err != nil {
			fmt.Fprintln(stderr, "benchtable:", err)
			return 1
		}
	}
	return 0
}

// moduleRoot walks up from the working directory to go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func runBench(root string, b bench) (string, error) {
	cmd := exec.Command(goTool(), "test", "-run", "^$", "-bench", b.pattern, "-benchtime", b.benchtime, "-count", "1", b.pkg)
	cmd.Dir = root
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.String(), err
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+(\d+)\s+(.*)$`)

// parse reads go test's benchmark lines: name, iterations, then value and
// unit pairs.
func parse(text string, res results) {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		f := strings.Fields(m[4])
		figures := res[m[1]]
		if figures == nil {
			figures = map[string]float64{}
			res[m[1]] = figures
		}
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				figures[f[i+1]] = v
			}
		}
	}
}

func (r results) get(m metric) (float64, error) {
	v, ok := r[m.name][m.unit]
	if !ok {
		return 0, fmt.Errorf("%s reported no %s", m.name, m.unit)
	}
	return v, nil
}

// schedResult is the newcomer scenario of cmd/schedsim.
type schedResult struct {
	MaxWait  float64 `json:"newcomer_wait_max_s"`
	P50      float64 `json:"newcomer_wait_p50_s"`
	Capacity float64 `json:"capacity"`
	Calls    float64 `json:"calls"`
	Units    float64 `json:"units"`
	Pass     bool    `json:"pass"`
	Scenario string  `json:"scenario"`
}

func runSchedsim(root string) (schedResult, error) {
	cmd := exec.Command(goTool(), "run", "./cmd/schedsim", "-json", "-baseline=false", "-run", "newcomer")
	cmd.Dir = root
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return schedResult{}, fmt.Errorf("schedsim: %v\n%s", err, errb.String())
	}
	var all []schedResult
	if err := json.Unmarshal(out.Bytes(), &all); err != nil {
		return schedResult{}, fmt.Errorf("schedsim output: %v", err)
	}
	for _, s := range all {
		if s.Scenario == "newcomer" && s.Capacity > 0 && s.Calls > 0 {
			return s, nil
		}
	}
	return schedResult{}, errors.New("schedsim printed no newcomer scenario")
}

// human formats a figure with its unit.
func human(v float64, unit string) string {
	switch {
	case unit == "ns/op" || strings.HasSuffix(unit, "-ns") || strings.Contains(unit, "ns/"):
		d := time.Duration(v)
		switch {
		case d >= time.Second:
			return fmt.Sprintf("%.2f s", d.Seconds())
		case d >= time.Millisecond:
			return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
		case d >= time.Microsecond:
			return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
		}
		return fmt.Sprintf("%.0f ns", v)
	case strings.HasSuffix(unit, "ms") || strings.HasPrefix(unit, "healthy-ms"):
		return fmt.Sprintf("%.1f ms", v)
	case unit == "s":
		return fmt.Sprintf("%.2f s", v)
	case strings.HasSuffix(unit, "-MB"):
		return fmt.Sprintf("%.1f MB", v)
	case strings.HasSuffix(unit, "calls/s"):
		return fmt.Sprintf("%.0f calls/s", v)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

func render(selected []row, res results, sched *schedResult) (string, error) {
	var b strings.Builder
	b.WriteString("| Figure | Value | Reference | Ratio | Target | Reproduce |\n|---|---|---|---|---|---|\n")
	for _, r := range selected {
		if r.sched {
			// The physical bound: a newcomer cannot be served before one
			// search's worth of the limit refills (OpenBesluitvorming: 60
			// units a minute).
			bound := sched.Units / sched.Calls * 60 / sched.Capacity
			fmt.Fprintf(&b, "| %s | %s (p50 %s) | %s | %.2f | %s | `go run ./cmd/schedsim -run newcomer` |\n",
				r.figure, human(sched.MaxWait, "s"), human(sched.P50, "s"), human(bound, "s"), sched.MaxWait/bound, r.target)
			continue
		}
		v, err := res.get(r.value)
		if err != nil {
			return "", err
		}
		ref, ratio := "—", "—"
		if r.ref != nil {
			rv, err := res.get(*r.ref)
			if err != nil {
				return "", err
			}
			ref = human(rv, r.ref.unit)
			ratio = fmt.Sprintf("%.2f", v/rv)
		}
		if r.ratio != nil {
			rr, err := res.get(*r.ratio)
			if err != nil {
				return "", err
			}
			ratio = fmt.Sprintf("%.2f", rr)
		}
		target := r.target
		if target == "" {
			target = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | `%s` |\n", r.figure, human(v, r.value.unit), ref, ratio, target, r.bench.command())
	}
	return b.String(), nil
}
