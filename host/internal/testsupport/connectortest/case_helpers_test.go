package connectortest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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
//	-- grant --
//	elicitation
//	-- elicit --
//	{"action":"accept","content":{"choice":"bergen_nh"}}
//	-- want --
//	{ the normalised Outcome as JSON; written by -update }
//
// A route is a URL (a prefix when it ends in "*"), then a status and a body:
// "@file" names a file under the repository's testdata/, anything else is
// the body itself. "fetcherror <kind> <message>" makes the fetch fail with a
// connector.FetchError instead. A fetch no route matches fails the test.
//
// The optional grant section lists the client features the admin granted
// the connector (connectors.<id>.grant; default none), each of which the
// manifest must ask for. Every runtime runs behind the host's own gate
// (host/internal/runtime/clientcall), so a feature not granted is refused
// in the real host's words in all three. The optional elicit section is
// the client's answers to the connector's elicitations, one JSON
// connector.ElicitResult each, in the order asked; without it a granted
// elicitation meets a client that lacks the capability. What the
// connector asked is part of the outcome.
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
	// Grant are the client features granted to the connector.
	Grant []string
	// Elicit are the client's answers to elicitations, in order; nil is
	// a client without elicitation.
	Elicit []connector.ElicitResult
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
		case "grant":
			g, err := parseGrant(string(f.Data))
			if err != nil {
				return bad("grant: %v", err)
			}
			c.Grant = g
		case "elicit":
			e, err := parseElicit(f.Data)
			if err != nil {
				return bad("elicit: %v", err)
			}
			c.Elicit = e
		case "want":
			c.Want = bytes.TrimSpace(f.Data)
		default:
			return bad("unknown section %q (want call, routes, grant, elicit, want)", f.Name)
		}
	}
	if c.Tool == "" {
		return bad("no call section")
	}
	if c.Elicit != nil && !slices.Contains(c.Grant, connector.FeatureElicitation) {
		return bad("elicit: answers for a connector not granted %q (add it to the grant section): the host would never ask the client", connector.FeatureElicitation)
	}
	return c, nil
}

// maxAnswers bounds a case's scripted answers.
const maxAnswers = 10

// parseGrant reads the features of a grant section: names separated by
// spaces, commas or lines, as in connectors.<id>.grant.
func parseGrant(s string) ([]string, error) {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '"' || r == '[' || r == ']'
	}) {
		if !slices.Contains(connector.ClientFeatureNames(), f) {
			return nil, fmt.Errorf("%q is not a client feature (want %s)", clipString(f), strings.Join(connector.ClientFeatureNames(), ", "))
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("%q granted twice", f)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty; name the features granted (%s) or leave the section out", strings.Join(connector.ClientFeatureNames(), ", "))
	}
	sort.Strings(out)
	return out, nil
}

// parseElicit reads an elicit section: JSON connector.ElicitResult values,
// one per elicitation, each with an action the protocol knows.
func parseElicit(data []byte) ([]connector.ElicitResult, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	out := []connector.ElicitResult{}
	for dec.More() {
		var r connector.ElicitResult
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("answer %d: %v (want {\"action\":\"accept\",\"content\":{...}})", len(out)+1, err)
		}
		switch r.Action {
		case connector.ElicitAccept, connector.ElicitDecline, connector.ElicitCancel:
		default:
			return nil, fmt.Errorf("answer %d: action %q: want accept, decline or cancel", len(out)+1, clipString(r.Action))
		}
		if r.Action != connector.ElicitAccept && len(r.Content) > 0 {
			return nil, fmt.Errorf("answer %d: content with action %q (only accept carries content)", len(out)+1, r.Action)
		}
		if len(out) == maxAnswers {
			return nil, fmt.Errorf("more than %d answers", maxAnswers)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no answer; give one JSON answer per elicitation, or leave the section out for a client without elicitation")
	}
	return out, nil
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

// Host returns a fake host answering the case's routes. It is also the
// call's MCP client: it answers elicitations with the case's answers in
// order, and lacks elicitation when the case has none. The runtimes put
// the host's gate in front of it (see [Runtime]), which refuses what the
// case did not grant before the client is reached.
func (c Case) Host(tb testing.TB) *sdktest.Host {
	h := sdktest.NewHost(tb)
	if c.Elicit != nil {
		var mu sync.Mutex
		next := 0
		h.OnElicit(func(connector.ElicitRequest) (connector.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if next == len(c.Elicit) {
				tb.Errorf("%s: the connector asked %d elicitations; the elicit section answers %d", c.path, next+1, len(c.Elicit))
				return connector.ElicitResult{Action: connector.ElicitCancel}, nil
			}
			next++
			return c.Elicit[next-1], nil
		})
	}
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
