package schedlua

import (
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sched"
)

// TestScriptTakesSchedConstants: the values the script shares with sched
// are sched's, put in place once each, and sched.lua itself holds no copy
// of them that could drift.
func TestScriptTakesSchedConstants(t *testing.T) {
	for _, v := range []string{sched.PublicSession, strconv.Itoa(sched.MaxPlan)} {
		if strings.Contains(source, v) {
			t.Errorf("sched.lua spells out %q: take it from sched through a constant slot", v)
		}
	}
	if want := "local PUBLIC = '" + sched.PublicSession + "'"; strings.Count(Script, want) != 1 {
		t.Errorf("Script does not set PUBLIC to sched.PublicSession once (%q)", want)
	}
	if want := "local MAXPLAN = tonumber('" + strconv.Itoa(sched.MaxPlan) + "')"; strings.Count(Script, want) != 1 {
		t.Errorf("Script does not set MAXPLAN to sched.MaxPlan once (%q)", want)
	}
	if strings.Contains(Script, "{{") {
		t.Error("Script keeps a constant slot")
	}
}

// TestDepartTakesSchedConstants: the departure script's headroom cap is
// sched.HeadroomCap, put in place once, and depart.lua holds no cap of
// its own.
func TestDepartTakesSchedConstants(t *testing.T) {
	if strings.Contains(departSource, Float(sched.HeadroomCap)) || strings.Contains(departSource, "K / 2") {
		t.Errorf("depart.lua spells out a headroom cap: take it from sched through a constant slot")
	}
	if want := "local HEADROOMCAP = tonumber('" + Float(sched.HeadroomCap) + "')"; strings.Count(DepartScript, want) != 1 {
		t.Errorf("DepartScript does not set HEADROOMCAP to sched.HeadroomCap once (%q)", want)
	}
	if strings.Count(DepartScript, "HEADROOMCAP") != 2 {
		t.Errorf("DepartScript should set HEADROOMCAP once and cap the headroom with it once")
	}
	if strings.Contains(DepartScript, "{{") {
		t.Error("DepartScript keeps a constant slot")
	}
}

// TestExpandRefuses: a constant slot the script lacks, a value that would
// end its Lua string, and a constant slot left without a value stop the
// package from loading.
func TestExpandRefuses(t *testing.T) {
	for name, f := range map[string]func(){
		"missing":  func() { expand("t.lua", "local X = 1", []slot{{"{{X}}", "1", false}}) },
		"quote":    func() { expand("t.lua", "local X = '{{X}}'", []slot{{"{{X}}", "a'b", true}}) },
		"leftover": func() { expand("t.lua", "local X = '{{X}}' local Y = {{Y}}", []slot{{"{{X}}", "x", true}}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("expand did not panic")
				}
			}()
			f()
		})
	}
	if got := expand("t.lua", "a '{{X}}' {{N}}", []slot{{"{{X}}", "x/y", true}, {"{{N}}", "7", false}}); got != "a 'x/y' 7" {
		t.Fatalf("expand = %q", got)
	}
}
