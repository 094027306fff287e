package connectortest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// Case is one recorded exchange: a tool call, the upstream answers its
// fetches get, and the outcome every runtime must produce.
//
// On disk a case is a txtar file in testdata/<connector>/:
//
//	What the case guards, in prose.
//	-- call --
//	search {"query":"begroting","organization":"soest"}
//	-- routes --
//	https://openbesluitvorming.nl/api/search?* 200 @obv/obv-search.json
//	https://openbesluitvorming.nl/api/sources* 404 {"error":"Not found"}
//	https://openbesluitvorming.nl/api/stats fetcherror unavailable connection reset
//	-- want --
//	{ the normalised Outcome as JSON; written by -update }
//
// A route is a URL (a prefix when it ends in "*"), then a status and a body:
// "@file" names a file under the repository's testdata/, anything else is
// the body itself. "fetcherror <kind> <message>" makes the fetch fail with a
// connector.FetchError instead. A fetch no route matches fails the test.
type Case struct {
	// Name is the file name without .txtar.
	Name string
	// Comment is the prose header.
	Comment string
	// Tool and Args are the call.
	Tool string
	Args json.RawMessage
	// Routes answer the call's fetches.
	Routes []Route
	// Want is the recorded outcome, nil when the file has none yet.
	Want []byte

	path string
}

// Route is one recorded upstream answer of a [Case].
type Route struct {
	Match  string
	Status int
	Body   []byte
	Err    *connector.FetchError
}

// LoadCases reads every .txtar case in dir, sorted by name.
func LoadCases(tb testing.TB, dir string) []Case {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths)
	var cases []Case
	for _, p := range paths {
		c, err := ParseCase(p)
		if err != nil {
			tb.Fatalf("connectortest: %v", err)
		}
		cases = append(cases, c)
	}
	return cases
}

// ParseCase reads one case file; its errors name the file and section.
func ParseCase(path string) (Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Case{}, err
	}
	ar := txtar.Parse(data)
	c := Case{Name: strings.TrimSuffix(filepath.Base(path), ".txtar"), Comment: strings.TrimSpace(string(ar.Comment)), path: path}
	bad := func(format string, args ...any) (Case, error) {
		return Case{}, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	if c.Comment == "" {
		return bad("no prose header saying what the case guards")
	}
	seen := map[string]bool{}
	for _, f := range ar.Files {
		if seen[f.Name] {
			return bad("section %q twice", f.Name)
		}
		seen[f.Name] = true
		switch f.Name {
		case "call":
			line := strings.TrimSpace(string(f.Data))
			tool, args, _ := strings.Cut(line, " ")
			if tool == "" || strings.Contains(line, "\n") {
				return bad("call: want one line, the tool and its JSON arguments")
			}
			if args = strings.TrimSpace(args); args == "" {
				args = "{}"
			}
			if !json.Valid([]byte(args)) {
				return bad("call: arguments %s are not JSON", args)
			}
			c.Tool, c.Args = tool, json.RawMessage(args)
		case "routes":
			for i, line := range strings.Split(string(f.Data), "\n") {
				if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				r, err := parseRoute(line)
				if err != nil {
					return bad("routes line %d: %v", i+1, err)
				}
				c.Routes = append(c.Routes, r)
			}
		case "want":
			c.Want = bytes.TrimSpace(f.Data)
		default:
			return bad("unknown section %q (want call, routes, want)", f.Name)
		}
	}
	if c.Tool == "" {
		return bad("no call section")
	}
	return c, nil
}

func parseRoute(line string) (Route, error) {
	f := strings.SplitN(line, " ", 3)
	if len(f) < 2 {
		return Route{}, fmt.Errorf("want \"<url> <status> <body>\" or \"<url> fetcherror <kind> <message>\"")
	}
	r := Route{Match: f[0]}
	rest := ""
	if len(f) == 3 {
		rest = f[2]
	}
	if f[1] == "fetcherror" {
		kind, msg, _ := strings.Cut(rest, " ")
		switch kind {
		case connector.FetchRefused, connector.FetchQueueTimeout, connector.FetchUnavailable, connector.FetchCanceled:
		default:
			return Route{}, fmt.Errorf("fetch error kind %q is not one of connector's", kind)
		}
		r.Err = &connector.FetchError{Kind: kind, Message: msg}
		return r, nil
	}
	status, err := strconv.Atoi(f[1])
	if err != nil || status < 100 || status > 599 {
		return Route{}, fmt.Errorf("status %q: want an HTTP status or fetcherror", f[1])
	}
	r.Status = status
	if file, ok := strings.CutPrefix(rest, "@"); ok {
		b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", filepath.FromSlash(file)))
		if err != nil {
			return Route{}, err
		}
		r.Body = b
	} else {
		r.Body = []byte(rest)
	}
	return r, nil
}

// Host returns a fake host answering the case's routes.
func (c Case) Host(tb testing.TB) *sdktest.Host {
	h := sdktest.NewHost(tb)
	for _, r := range c.Routes {
		if r.Err != nil {
			h.HandleErr(r.Match, r.Err)
		} else {
			h.HandleBody(r.Match, r.Status, r.Body)
		}
	}
	return h
}

// writeWant rewrites the case file with want as its want section.
func (c Case) writeWant(want []byte) error {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return err
	}
	ar := txtar.Parse(data)
	var files []txtar.File
	for _, f := range ar.Files {
		if f.Name != "want" {
			files = append(files, f)
		}
	}
	ar.Files = append(files, txtar.File{Name: "want", Data: append(bytes.TrimSpace(want), '\n')})
	return os.WriteFile(c.path, txtar.Format(ar), 0o644)
}
