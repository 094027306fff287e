package connectortest

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Options configure [Run]; a nil *Options means the defaults.
type Options struct {
	// Dir holds the connector's cases (default: this package's
	// testdata/<id>).
	Dir string
	// Runtimes are compared with the first, the reference (default
	// [Runtimes]: in-process, WebAssembly, native process).
	Runtimes []Runtime
	// Update rewrites each case's want section from the reference
	// runtime's outcome instead of comparing with it.
	Update bool
}

// Dir is the default directory of connector id's cases.
func Dir(id string) string {
	return filepath.Join(wasmbuild.Root(), "host", "internal", "testsupport", "connectortest", "testdata", id)
}

// callTimeout bounds one case's call in any runtime.
const callTimeout = time.Minute

// Run runs every case of connector id through every runtime and requires
// the same manifest and, for each case, identical normalised outcomes
// (see [Outcome]) equal to the case's want section. Every tool the
// connector declares must have a case.
func Run(t *testing.T, id string, o *Options) {
	t.Helper()
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Dir == "" {
		opts.Dir = Dir(id)
	}
	if len(opts.Runtimes) == 0 {
		opts.Runtimes = Runtimes()
	}
	cases := LoadCases(t, opts.Dir)
	if len(cases) == 0 {
		t.Fatalf("connectortest: no cases in %s", opts.Dir)
	}
	// Each runtime is opened once per grant the cases give (a grant is
	// the admin's, fixed when the host loads a connector); most cases
	// grant nothing and share the first.
	opened := map[string][]connector.Connector{}
	connsFor := func(grant []string) []connector.Connector {
		k := strings.Join(grant, ",")
		if cs, ok := opened[k]; ok {
			return cs
		}
		cs := make([]connector.Connector, len(opts.Runtimes))
		for i, rt := range opts.Runtimes {
			cs[i] = rt.Open(t, id, grant...)
		}
		opened[k] = cs
		return cs
	}
	conns := connsFor(nil)
	ref := opts.Runtimes[0].Name
	manifest, err := conns[0].Describe(context.Background())
	if err != nil {
		t.Fatalf("%s: describe: %v", ref, err)
	}
	for i, c := range conns[1:] {
		m, err := c.Describe(context.Background())
		if err != nil {
			t.Fatalf("%s: describe: %v", opts.Runtimes[i+1].Name, err)
		}
		if d := cmp.Diff(manifest, m); d != "" {
			t.Errorf("manifest (-%s +%s):\n%s", ref, opts.Runtimes[i+1].Name, d)
		}
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.Tool] = true
	}
	var missing []string
	for _, tool := range manifest.Tools {
		if !covered[tool.Name] {
			missing = append(missing, tool.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tools of %s without a case in %s: %s", id, opts.Dir, strings.Join(missing, ", "))
	}
	names := make([]string, len(opts.Runtimes))
	for i, rt := range opts.Runtimes {
		names[i] = rt.Name
	}
	for _, c := range cases {
		for _, f := range c.Grant {
			if !slices.Contains(manifest.ClientFeatures, f) {
				t.Errorf("%s grants %q, which %s's manifest does not ask for (client_features %v): the host refuses such a grant", c.path, f, id, manifest.ClientFeatures)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { check(t, c, connsFor(c.Grant), names, opts.Update) })
	}
}

// check runs one case on every connector and reports through tb any
// runtime that differs from the first, and a first that differs from the
// case's want section (or rewrites it, with update).
func check(tb testing.TB, c Case, conns []connector.Connector, names []string, update bool) {
	tb.Helper()
	outs := make([]Outcome, len(conns))
	for i, conn := range conns {
		outs[i] = call(tb, conn, c)
	}
	for i := range outs[1:] {
		if d := cmp.Diff(outs[0], outs[i+1]); d != "" {
			tb.Errorf("%s %s (-%s +%s):\n%s", c.Tool, c.Args, names[0], names[i+1], d)
		}
	}
	got := outs[0].golden()
	switch {
	case update:
		if err := c.writeWant(got); err != nil {
			tb.Fatal(err)
		}
	case c.Want == nil:
		tb.Errorf("%s has no want section; run go test ./host/internal/testsupport/connectortest -update and review the diff", c.path)
	case !bytes.Equal(got, c.Want):
		tb.Errorf("%s: outcome differs from the want section (-want +got); if the change is intended, run go test ./host/internal/testsupport/connectortest -update:\n%s",
			c.path, cmp.Diff(strings.Split(string(c.Want), "\n"), strings.Split(string(got), "\n")))
	}
}

// call runs c against conn with a fresh fake host and normalises the
// outcome.
func call(tb testing.TB, conn connector.Connector, c Case) Outcome {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	h := c.Host(tb)
	res, err := conn.Call(ctx, connector.CallRequest{Tool: c.Tool, Arguments: c.Args}, h)
	o := Normalise(res, err, h.Requests())
	for _, e := range h.Elicitations() {
		var schema any
		_ = json.Unmarshal(e.RequestedSchema, &schema) // validated by the host
		o.Elicitations = append(o.Elicitations, Asked{Message: e.Message, Schema: schema})
	}
	return o
}
