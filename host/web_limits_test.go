// It builds all seven connectors (simHost), which the race pass cannot
// spare; the pages' concurrency is raced in host/internal/serve/web.

//go:build !race

package host_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
)

// seedLimits is what the Laadstatus must say of each quota the seven
// connectors use, from the seed's table of observed limits and what each
// platform publishes (shared/platforms/upstreams.md): where the limit
// comes from, where it is published, and whether BesluitBron keeps one.
var seedLimits = map[string]struct {
	from    string
	where   string
	limited bool
	nl, en  string // the page's words for it, in the host's row
}{
	"openbesluitvorming.nl":           {"published", "openbesluitvorming.nl/docs/api", true, "gepubliceerd door het platform (openbesluitvorming.nl/docs/api)", "published by the platform (openbesluitvorming.nl/docs/api)"},
	"zoek.officielebekendmakingen.nl": {"published", "zoek.officielebekendmakingen.nl", true, "gepubliceerd door het platform (zoek.officielebekendmakingen.nl)", "published by the platform (zoek.officielebekendmakingen.nl)"},
	"openarchivaris.nl":               {"measured", "", true, "gemeten: het platform publiceert geen limiet", "measured: the platform publishes none"},
	"repository.overheid.nl":          {"polite", "", true, "eigen keuze van BesluitBron", "BesluitBron&#39;s own choice"},
	"data.rechtspraak.nl":             {"polite", "", true, "eigen keuze van BesluitBron", "BesluitBron&#39;s own choice"},
	"api.openraadsinformatie.nl":      {"unknown", "", false, "onbekend<br><small class=\"limit-from\">geen gepubliceerd en geen waargenomen", "unknown<br><small class=\"limit-from\">none published and none observed"},
	"gegevensmagazijn.tweedekamer.nl": {"unknown", "", false, "onbekend<br>", "unknown<br>"},
	"berthub.eu/search":               {"unknown", "", false, "zware zoekopdrachten", "costly searches"},
	"berthub.eu/pages":                {"unknown", "", false, "onbekend<br>", "unknown<br>"},
}

// TestLaadstatusSaysWhereEachLimitComesFrom: through the host with the
// seven real connectors' manifests, /status.json, the status page (Dutch
// and English) and besluitbron_status say for every quota whether the
// platform publishes its limit (and where), whether it was measured,
// whether it is BesluitBron's own choice, or whether none is known, and
// never call an unknown limit "no limit". It failed before: the page said
// "geen limiet" for Open Raadsinformatie, Tweede Kamer and OpenTK and
// "zoals … het opgeeft" for Rechtspraak's and the SRU's polite defaults.
func TestLaadstatusSaysWhereEachLimitComesFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all seven connectors")
	}
	_, base := simHost(t)
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		return string(b)
	}

	var snap loadstatus.Snapshot
	if err := json.Unmarshal([]byte(get("/status.json")), &snap); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, q := range snap.Quotas {
		want, ok := seedLimits[q.Quota]
		if !ok {
			t.Errorf("/status.json: quota %s is not in the seed's table", q.Quota)
			continue
		}
		seen[q.Quota] = true
		if q.LimitFrom != want.from || q.LimitWhere != want.where || q.Limited != want.limited {
			t.Errorf("/status.json %s: limit_from %q, limit_where %q, limited %v; want %q, %q, %v", q.Quota, q.LimitFrom, q.LimitWhere, q.Limited, want.from, want.where, want.limited)
		}
		if q.LimitNote == "" || q.LimitNoteNL == "" {
			t.Errorf("/status.json %s: no note on the limit in English (%q) or Dutch (%q)", q.Quota, q.LimitNote, q.LimitNoteNL)
		}
		for _, u := range q.Connectors {
			if u.LimitFrom != want.from {
				t.Errorf("/status.json %s: %s (%s) says %q, want %q", q.Quota, u.Platform, u.Service, u.LimitFrom, want.from)
			}
		}
	}
	for q := range seedLimits {
		if !seen[q] {
			t.Errorf("/status.json lacks quota %s", q)
		}
	}

	row := regexp.MustCompile(`(?s)<tr id="quota-([^"]+)"[^>]*>(.*?)</tr>`)
	for _, lang := range []string{"nl", "en"} {
		page := get("/status?lang=" + lang)
		rows := map[string]string{}
		for _, m := range row.FindAllStringSubmatch(page, -1) {
			rows[m[1]] = m[2]
		}
		for q, want := range seedLimits {
			words := want.nl
			if lang == "en" {
				words = want.en
			}
			if !strings.Contains(rows[q], words) {
				t.Errorf("/status?lang=%s, %s: lacks %q:\n%s", lang, q, words, rows[q])
			}
		}
		for _, wrong := range []string{">geen limiet<", ">no limit<", "het opgeeft", "declares it"} {
			if strings.Contains(page, wrong) {
				t.Errorf("/status?lang=%s says %q", lang, wrong)
			}
		}
	}
	page := get("/status")
	for _, want := range []string{
		`<strong>Gepubliceerd door het platform:</strong> <a href="#quota-openbesluitvorming.nl">openbesluitvorming.nl</a>, <a href="#quota-zoek.officielebekendmakingen.nl">`,
		`<strong>Gemeten:</strong> <a href="#quota-openarchivaris.nl">`,
		`<strong>Eigen keuze van BesluitBron:</strong> <a href="#quota-data.rechtspraak.nl">data.rechtspraak.nl</a>, <a href="#quota-repository.overheid.nl">`,
		`<strong>Onbekend (geen gepubliceerd, geen waargenomen; dat is niet hetzelfde als geen limiet):</strong> <a href="#quota-api.openraadsinformatie.nl">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the Dutch page's summary of origins lacks %s", want)
		}
	}

	cs := connect(t, base+"/mcp/unified/v1")
	res := callTool(t, cs, "besluitbron_status", map[string]any{})
	var ans struct {
		Summary []string
		Quotas  []loadstatus.Quota
	}
	if res.IsError || json.Unmarshal([]byte(text(res)), &ans) != nil {
		t.Fatalf("besluitbron_status: %s", shorten(text(res), 500))
	}
	summary := strings.Join(ans.Summary, "\n")
	for _, want := range []string{
		"Limit at openbesluitvorming.nl: 60 units per 1m0s, for OpenBesluitvorming; published by the platform (openbesluitvorming.nl/docs/api).",
		"Limit at openarchivaris.nl: 120 units per 1m0s, for Open Archivaris; measured: the platform publishes none.",
		"Limit at data.rechtspraak.nl: 10 units per 1s, for Rechtspraak; BesluitBron's own choice: the platform publishes no number.",
		"Limit at api.openraadsinformatie.nl unknown: no limit published and none observed, which is not the same as no limit",
		"Limit at gegevensmagazijn.tweedekamer.nl unknown",
		"Limit at berthub.eu/search unknown",
		"the administrator warns about costly searches",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("besluitbron_status' summary lacks %q:\n%s", want, summary)
		}
	}
	if len(ans.Quotas) != len(seedLimits) {
		t.Errorf("besluitbron_status: %d quotas, want %d", len(ans.Quotas), len(seedLimits))
	}
	for _, q := range ans.Quotas {
		if q.LimitFrom != seedLimits[q.Quota].from {
			t.Errorf("besluitbron_status %s: limit_from %q", q.Quota, q.LimitFrom)
		}
	}
}
