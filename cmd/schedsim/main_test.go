package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRunTable(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr %s\n%s", code, errb.String(), out.String())
	}
	rows := map[string]string{}
	for line := range strings.SplitSeq(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			rows[f[0]+" "+f[1]] = line
		}
	}
	for _, sc := range []string{"newcomer", "equal", "usage", "starving", "crowd", "oversized"} {
		if !strings.HasSuffix(rows[sc+" sched"], " ok") {
			t.Errorf("%s: scheduler row %q", sc, rows[sc+" sched"])
		}
		if sc != "oversized" && !strings.Contains(rows[sc+" fifo"], "FAIL") {
			t.Errorf("%s: baseline row %q", sc, rows[sc+" fifo"])
		}
	}
	if !strings.Contains(out.String(), "shares in the measured window") {
		t.Errorf("no share table:\n%s", out.String())
	}
}

func TestRunJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-json", "-run", "newcomer"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d; stderr %s", code, errb.String())
	}
	var reps []report
	if err := json.Unmarshal(out.Bytes(), &reps); err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || reps[0].Queue != "sched" || reps[1].Queue != "fifo" {
		t.Fatalf("got %+v", reps)
	}
	// The seed's target: the refill of one search (1 s) plus < 10 ms.
	if s := reps[0]; !s.Pass || s.NewcomerMax > 1.01 || s.Refused != 0 {
		t.Fatalf("scheduler: %+v", s)
	}
	if b := reps[1]; b.Pass || b.NewcomerMax < 60 {
		t.Fatalf("baseline: %+v", b)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"-nosuchflag"}, {"extra"}, {"-run", "nosuchscenario"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and a message", args, code, errb.String())
		}
	}
}
