// End to end: an organisation name that fits several organisations through
// besluitbron_search, with the go-sdk's MCP client over streamable HTTP,
// the real WebAssembly ori, obv and obk connectors and the platform
// simulator, which has two municipalities named Bergen on ORI and on OBV.
// The cross-search never picks one: each council platform's section lists
// both with what to pass, and obk (which filters by the name itself)
// still answers. The search page shows the same choice in Dutch. It
// builds modules, so it runs in the plain pass of make test.

//go:build !race

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// councilsOnSim serves the ori, obv and obk connectors' WebAssembly builds
// against a fresh simulator, nothing granted, and returns the host's root
// URL and the simulator.
func councilsOnSim(t *testing.T) (string, *platformsim.Sim) {
	t.Helper()
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(sim.Handler())
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n", proofCompileDir(t), t.TempDir())
	urls, rewrites := platformsim.BaseURLs(up.URL), platformsim.URLRewrites(up.URL)
	for _, id := range []string{"ori", "obv", "obk"} {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\npool_size = 1\n", id, wasmbuild.Path(t, "./plugins/"+id+"/cmd"), urls[id])
		for _, rw := range rewrites[id] {
			fmt.Fprintf(&cfg, "url_rewrites = [%q]\n", rw)
		}
	}
	c, err := host.LoadConfig(writeConfig(t, cfg.String()), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "9.9.9-sim", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, sim
}

// crossSections are besluitbron_search's sections with their candidates.
type crossSections struct {
	Platforms []struct {
		Platform, Status, Error, Tool string
		Arguments                     map[string]any
		Results                       []struct {
			ID, Title, Organization, URL string
			AlsoOn                       []struct{ Platform, ID, URL string } `json:"also_on"`
		}
		Candidates     []struct{ Label, Key, Pass string }
		MoreCandidates int `json:"more_candidates"`
		// ListedElsewhere counts the results that are copies of a
		// document an earlier section shows (in its also_on).
		ListedElsewhere int `json:"listed_elsewhere"`
	}
	Answered, Failed, Skipped []string
}

// englishOnDutchSearch are words a reader must not see on the Dutch
// search page (as the browser test of the Dutch pages checks), and the
// connectors' English for the candidates.
var englishOnDutchSearch = regexp.MustCompile(`(?i)\b(answered|the|results|sources|error|applied|connector|matches|pass organization|organisations|none was picked)\b`)

// TestCrossSearchAmbiguousOrganization: "Bergen" through besluitbron_search
// is listed, never settled, on both council platforms, also for a client
// that could be asked (the cross-search asks no one: each section says
// what to pass); obk still answers. Passing what a section says searches
// that Bergen alone on both platforms. The Dutch search page shows the
// choice in Dutch.
func TestCrossSearchAmbiguousOrganization(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ori, obv and obk connectors")
	}
	base, _ := councilsOnSim(t)
	asker := &chooser{place: "Limburg"}
	clients := map[string]*mcp.ClientSession{
		"client without elicitation": connectAsking(t, base+"/mcp/unified/v1", nil),
		"client with elicitation":    connectAsking(t, base+"/mcp/unified/v1", asker.handle),
	}
	search := func(t *testing.T, cs *mcp.ClientSession, args map[string]any) crossSections {
		t.Helper()
		res := callTool(t, cs, "besluitbron_search", args)
		var r crossSections
		if res.IsError || json.Unmarshal([]byte(text(res)), &r) != nil {
			t.Fatalf("besluitbron_search %v: %s", args, shorten(text(res), 1500))
		}
		return r
	}
	for name, cs := range clients {
		t.Run(name, func(t *testing.T) {
			r := search(t, cs, map[string]any{"query": "woningbouw", "organization": "Bergen"})
			got := map[string]string{}
			for _, p := range r.Platforms {
				got[p.Platform] = p.Status
				switch p.Platform {
				case "ori", "obv":
					if p.Status != "skipped" || p.Tool != "" || len(p.Results) != 0 {
						t.Errorf("%s was searched: %+v", p.Platform, p)
					}
					for _, want := range []string{`organization "Bergen" matches 2 organisations on `,
						`Gemeente Bergen (Limburg) — pass organization="Gemeente Bergen (Limburg)" (key "bergen")`,
						`Gemeente Bergen (Noord-Holland) — pass organization="Gemeente Bergen (Noord-Holland)" (key "bergen_nh")`, "None was picked"} {
						if !strings.Contains(p.Error, want) {
							t.Errorf("%s: %q lacks %q", p.Platform, p.Error, want)
						}
					}
					var keys []string
					for _, c := range p.Candidates {
						keys = append(keys, c.Key+"="+c.Pass)
					}
					if !slices.Equal(keys, []string{"bergen=Gemeente Bergen (Limburg)", "bergen_nh=Gemeente Bergen (Noord-Holland)"}) || p.MoreCandidates != 0 {
						t.Errorf("%s candidates %v", p.Platform, keys)
					}
				}
			}
			if got["ori"] != "skipped" || got["obv"] != "skipped" || got["obk"] != "ok" || !slices.Equal(r.Answered, []string{"obk"}) {
				t.Errorf("statuses %v, answered %v", got, r.Answered)
			}
		})
	}
	if q := asker.questions(); len(q) != 0 {
		t.Errorf("the cross-search asked the client %d question(s): %+v", len(q), q[0])
	}

	// What a section says to pass searches that Bergen alone, on both
	// platforms: the Limburg one by its name with its province, the
	// Noord-Holland one as a person writes it.
	cs := clients["client without elicitation"]
	for given, c := range map[string]struct{ key, place, notPlace string }{
		"Gemeente Bergen (Limburg)": {"bergen", "Limburg", "Noord-Holland"},
		"Bergen (NH)":               {"bergen_nh", "Noord-Holland", "Limburg"},
	} {
		r := search(t, cs, map[string]any{"query": "woningbouw", "organization": given, "platforms": []string{"ori", "obv"}})
		for _, p := range r.Platforms {
			if p.Status != "ok" || p.Arguments["organization"] != c.key || len(p.Results)+p.ListedElsewhere == 0 {
				t.Errorf("%q on %s: %s %v %s, %d results, %d listed elsewhere", given, p.Platform, p.Status, p.Arguments, p.Error, len(p.Results), p.ListedElsewhere)
				continue
			}
			for _, it := range p.Results {
				// A copy on the other platform is the same Bergen's file:
				// its link names the source key too.
				for _, cp := range it.AlsoOn {
					if cp.Platform == "obv" && !strings.Contains(cp.ID+" "+cp.URL, c.key) {
						t.Errorf("%q: a copy of another Bergen on obv: %+v", given, cp)
					}
				}
				// ORI names the municipality with its province; OBV's ids
				// and links carry the source key.
				if p.Platform == "ori" && (!strings.Contains(it.Organization, c.place) || strings.Contains(it.Organization, c.notPlace)) ||
					p.Platform == "obv" && !strings.Contains(it.ID+" "+it.URL, c.key) {
					t.Errorf("%q on %s: a result of another Bergen: %+v", given, p.Platform, it)
				}
			}
		}
	}

	// The search page: the same choice in Dutch, each candidate a link
	// that searches with its key.
	resp, err := http.Get(base + "/?q=woningbouw&p=ori&p=obv&f.ori=Bergen&f.obv=Bergen")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	visible := dutchVisible(page)
	if m := englishOnDutchSearch.FindAllString(visible, -1); len(m) > 0 {
		t.Errorf("English on the Dutch page: %q\n%s", m, visible)
	}
	for _, want := range []string{"„Bergen” past bij 2 organisaties bij Open Raadsinformatie", "„Bergen” past bij 2 organisaties bij OpenBesluitvorming",
		"Kies welke u bedoelt: Gemeente Bergen (Limburg) Gemeente Bergen (Noord-Holland)"} {
		if !strings.Contains(visible, want) {
			t.Errorf("the Dutch page lacks %q:\n%s", want, visible)
		}
	}
	for _, want := range []string{`f.ori=bergen_nh&p=ori&p=obv&q=woningbouw#r-ori">Gemeente Bergen (Noord-Holland)</a>`, `f.obv=bergen&f.ori=Bergen&p=ori&p=obv&q=woningbouw#r-obv">Gemeente Bergen (Limburg)</a>`} {
		if !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("the page lacks the link %s", want)
		}
	}
}

var (
	pageDetails = regexp.MustCompile(`(?s)<details[^>]*>\s*<summary>(.*?)</summary>.*?</details>`)
	pageTags    = regexp.MustCompile(`(?s)<[^>]*>`)
	pageHead    = regexp.MustCompile(`(?s)<head>.*?</head>|<script.*?</script>`)
)

// dutchVisible is the text a reader sees without opening anything: a
// closed disclosure shows its summary only.
func dutchVisible(page string) string {
	page = pageHead.ReplaceAllString(page, "")
	page = pageDetails.ReplaceAllString(page, " $1 ")
	page = pageTags.ReplaceAllString(page, " ")
	return strings.Join(strings.Fields(html.UnescapeString(page)), " ")
}
