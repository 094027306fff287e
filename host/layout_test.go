package host_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// walkHostSources calls fn with every non-test Go file under dir, testdata
// folders (guest programs, not the host) and the folders skip names
// aside; an error of fn or of the walk fails the test.
func walkHostSources(t *testing.T, dir string, skip func(path string) bool, fn func(path string) error) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || skip != nil && skip(path)) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		return fn(path)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hostImportsNoPlugin reports every non-test Go file under dir (testdata
// folders aside: those are guest programs, not the host) that imports a
// connector from plugins/.
func hostImportsNoPlugin(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	walkHostSources(t, dir, nil, func(path string) error {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); strings.HasPrefix(p, "github.com/besluitbron/besluitbron/plugins/") {
				bad = append(bad, path+" imports "+p)
			}
		}
		return nil
	})
	return bad
}

// TestHostImportsNoConnector: the host knows connectors only through their
// manifests and the runtimes that load them, never by importing one. It
// catches a host package (such as the contract suite's runtime table, once
// a non-test file importing all seven connectors) that compiles a
// connector into the server; test files may import them.
func TestHostImportsNoConnector(t *testing.T) {
	for _, b := range hostImportsNoPlugin(t, ".") {
		t.Error(b)
	}
	// The check sees what it must: a file importing a plugin is named.
	dir := t.TempDir()
	src := "package x\n\nimport _ \"github.com/besluitbron/besluitbron/plugins/obv\"\n"
	if err := writeFile(filepath.Join(dir, "x.go"), src); err != nil {
		t.Fatal(err)
	}
	if got := hostImportsNoPlugin(t, dir); len(got) != 1 {
		t.Errorf("a file importing plugins/obv was not caught: %v", got)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// connectorIDs are the built-in connectors' ids.
var connectorIDs = []string{"obv", "ori", "tk", "opentk", "obk", "rechtspraak", "openarchivaris"}

// connectorNames are what the built-in connectors' manifests name: their
// titles (in English and Dutch) and the record types their results carry
// (by connector.TypeKey), each with the connector naming it.
type connectorNames struct {
	titles map[string]string
	types  map[string]string
}

// builtinNames reads the names from the connectors' manifests, so that a
// connector's new title or type is watched for without editing this test.
func builtinNames(t *testing.T) connectorNames {
	t.Helper()
	n := connectorNames{titles: map[string]string{}, types: map[string]string{}}
	for _, p := range []*sdk.Plugin{obv.Plugin(), ori.Plugin(), tk.Plugin(), opentk.Plugin(), obk.Plugin(), rechtspraak.Plugin(), openarchivaris.Plugin()} {
		m, err := p.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, title := range []string{m.Title, m.TitleNL} {
			if title != "" {
				n.titles[title] = m.ID
			}
		}
		for _, l := range m.TypeLabels {
			n.types[connector.TypeKey(l.Type)] = m.ID
		}
	}
	return n
}

// hostWords are record-type names that are also the host's own words,
// used for their own meaning and never as a platform's type: the pages'
// document view (its route, template and title), the organisation
// argument of the host's own tools, and the kinds of Dutch public body
// the cross-search takes off an organisation's name before matching it.
// They may appear anywhere in the host; a dictionary of platform types
// is still caught by the types no host word covers ("mediaobject").
var hostWords = map[string]bool{"document": true, "organization": true, "gemeente": true, "provincie": true, "waterschap": true}

// hostNamesNoConnector reports every string literal in a non-test Go file
// under dir (testdata aside) that is a built-in connector's id or one of
// its tool names ("obv", "obv_list_sources"), that holds a connector's
// title ("OpenBesluitvorming"), or that is one of the record types its
// results carry ("MediaObject", "agenda_item"; hostWords aside).
// Comments may name them.
func hostNamesNoConnector(t *testing.T, dir string, names connectorNames) []string {
	t.Helper()
	var bad []string
	walkHostSources(t, dir, nil, func(path string) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, _ := strconv.Unquote(lit.Value)
			at := fmt.Sprintf("%s: %s", fset.Position(lit.Pos()), lit.Value)
			for _, id := range connectorIDs {
				if v == id || strings.HasPrefix(v, id+"_") {
					bad = append(bad, at)
				}
			}
			for title, id := range names.titles {
				if strings.Contains(v, title) {
					bad = append(bad, fmt.Sprintf("%s names %s's title %q", at, id, title))
				}
			}
			k := connector.TypeKey(v)
			if id, ok := names.types[k]; ok && !hostWords[k] {
				bad = append(bad, fmt.Sprintf("%s is a record type of %s (its manifest's type_labels say it)", at, id))
			}
			return true
		})
		return nil
	})
	return bad
}

// TestHostNamesNoConnector: what the host needs to know about a platform
// (its search filter, Dutch description, freshness check, cross-search
// mapping, the names of its record types) comes from the connector's
// manifest, so a connector written outside this repository gets all of
// it. It catches a table keyed by a connector id, such as the ones
// host/web.go, host/status_tool.go and crosssearch's translate.go had, a
// text naming a platform by its title, and a dictionary of platform
// record types, such as the pages' words.go had.
func TestHostNamesNoConnector(t *testing.T) {
	names := builtinNames(t)
	for _, b := range hostNamesNoConnector(t, ".", names) {
		t.Error(b)
	}
	dir := t.TempDir()
	src := `package x

// obv in a comment is fine, and so are OpenBesluitvorming and MediaObject.
var filters = map[string]string{"obv": "organization"}
var list = "rechtspraak_list_courts"
var hint = "only OpenBesluitvorming reports it"
var typeWords = map[string][2]string{"mediaobject": {"Stuk", "Record"}, "Agenda_Item": {"Agendapunt", "Agendum"}}
var page = "document"
`
	if err := writeFile(filepath.Join(dir, "x.go"), src); err != nil {
		t.Fatal(err)
	}
	got := hostNamesNoConnector(t, dir, names)
	want := []string{`"obv"`, `"rechtspraak_list_courts"`, `"only OpenBesluitvorming reports it" names obv's title`,
		`"mediaobject" is a record type of ori`, `"Agenda_Item" is a record type of`}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(b string) bool { return strings.Contains(b, w) }) {
			t.Errorf("not caught: %s", w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("caught %d, want %d (a host word such as organization or document is the host's own):\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
}

// mcpResultReaders reports every place in a non-test Go file under dir
// (testdata aside, and the MCP edge itself, internal/serve/mcpserver, skipped)
// that reads a connector's answer out of an MCP tool result: a type
// assertion or type-switch case to one of go-sdk's content types
// (*mcp.TextContent and the like, how resultText pulled the text out of
// Content), or a read of StructuredContent.
func mcpResultReaders(t *testing.T, dir string) []string {
	t.Helper()
	const mcpPath = "github.com/modelcontextprotocol/go-sdk/mcp"
	contentTypes := map[string]bool{"TextContent": true, "ImageContent": true, "AudioContent": true, "EmbeddedResource": true, "ResourceLink": true}
	var bad []string
	edge := filepath.ToSlash(filepath.Join(dir, "internal", "serve", "mcpserver"))
	walkHostSources(t, dir, func(path string) bool { return filepath.ToSlash(path) == edge }, func(path string) error {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		mcpName := ""
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == mcpPath {
				mcpName = "mcp"
				if im.Name != nil {
					mcpName = im.Name.Name
				}
			}
		}
		// isContent reports whether e is *mcp.<a content type>.
		isContent := func(e ast.Expr) bool {
			star, ok := e.(*ast.StarExpr)
			if !ok || mcpName == "" {
				return false
			}
			sel, ok := star.X.(*ast.SelectorExpr)
			if !ok {
				return false
			}
			pkg, ok := sel.X.(*ast.Ident)
			return ok && pkg.Name == mcpName && contentTypes[sel.Sel.Name]
		}
		written := map[ast.Expr]bool{} // StructuredContent as an assignment's target
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					written[l] = true
				}
			case *ast.TypeAssertExpr:
				if isContent(n.Type) {
					bad = append(bad, fmt.Sprintf("%s: asserts a result's content to an MCP content type", fset.Position(n.Pos())))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isContent(e) {
						bad = append(bad, fmt.Sprintf("%s: switches on a result's content type", fset.Position(e.Pos())))
					}
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "StructuredContent" && !written[n] {
					bad = append(bad, fmt.Sprintf("%s: reads an MCP result's StructuredContent", fset.Position(n.Pos())))
				}
			}
			return true
		})
		return nil
	})
	return bad
}

// TestNoFeatureDecodesAnMCPResult: the host's own features (the search
// page, besluitbron_search, the Laadstatus checks) get a connector's
// answer from the invoke path (invoke.Engine.Invoke), as the connector gave it, and MCP results
// exist only at the MCP edge (internal/serve/mcpserver). It catches a feature
// that calls the MCP path and pulls the answer back out of the
// *mcp.CallToolResult (a resultText over Content with *mcp.TextContent,
// stripping the "Note:" lines the edge appends, or reading
// StructuredContent); building a result for a host tool of its own is
// allowed.
func TestNoFeatureDecodesAnMCPResult(t *testing.T) {
	for _, b := range mcpResultReaders(t, ".") {
		t.Error(b)
	}
	// The check sees what it must: each way of reading a result is named,
	// a result built for a host tool is not.
	dir := t.TempDir()
	src := `package x

import (
	"encoding/json"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

func text(r *sdkmcp.CallToolResult) (s string) {
	for _, c := range r.Content {
		if t, ok := c.(*sdkmcp.TextContent); ok {
			s += t.Text
		}
		switch c.(type) {
		case *sdkmcp.ImageContent:
		}
	}
	_ = r.StructuredContent
	r.StructuredContent = json.RawMessage("{}")
	return s
}

func build(b []byte) *sdkmcp.CallToolResult {
	return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}
`
	if err := writeFile(filepath.Join(dir, "x.go"), src); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "internal", "serve", "mcpserver"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, "internal", "serve", "mcpserver", "edge.go"), src); err != nil {
		t.Fatal(err)
	}
	got := mcpResultReaders(t, dir)
	if len(got) != 3 {
		t.Errorf("want the assertion, the type switch and the StructuredContent read in x.go named (and nothing in internal/serve/mcpserver), got %d:\n%s", len(got), strings.Join(got, "\n"))
	}
}
