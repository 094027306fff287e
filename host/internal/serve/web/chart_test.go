package web_test

import (
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// svgRect is a rect of a chart, as the test reads it back.
type svgRect struct {
	Class string  `xml:"class,attr"`
	X     float64 `xml:"x,attr"`
	Y     float64 `xml:"y,attr"`
	H     float64 `xml:"height,attr"`
}

type svgLine struct {
	Class string  `xml:"class,attr"`
	Y1    float64 `xml:"y1,attr"`
}

type svgDoc struct {
	Role  string    `xml:"role,attr"`
	Title string    `xml:"title"`
	Desc  string    `xml:"desc"`
	Rects []svgRect `xml:"rect"`
	Lines []svgLine `xml:"line"`
	Texts []string  `xml:"text"`
}

// TestStatusPageDrawsQuotaCharts: a limited quota with a history gets an
// inline SVG chart (well-formed, no script, no inline style the CSP would
// block) whose bars sit at their minute's slot with heights in proportion,
// whose dashed line is the limit per minute, and whose summary adds up the
// hour; a quota without a history or a limit gets none.
func TestStatusPageDrawsQuotaCharts(t *testing.T) {
	last := time.Date(2026, 6, 30, 10, 59, 0, 0, time.UTC)
	var pts []loadstatus.HistoryPoint
	for i := 59; i >= 0; i-- {
		pts = append(pts, loadstatus.HistoryPoint{At: last.Add(-time.Duration(i) * time.Minute)})
	}
	pts[59].Units, pts[59].Waiting = 10, 3 // the running minute
	pts[49].Units, pts[49].Got429 = 5, 2   // ten minutes before
	pts[0].Units = 30                      // an hour ago, over the limit of 20 a minute
	snap := loadstatus.Snapshot{IntervalSeconds: 300, Quotas: []loadstatus.Quota{
		{Quota: "zoek.officielebekendmakingen.nl", Limited: true, Units: 10, PerSeconds: 30, Shared: true,
			Connectors: []loadstatus.QuotaUser{{Platform: "obk", Title: "Officiële Bekendmakingen"}, {Platform: "tk", Title: "Tweede Kamer"}},
			History:    &loadstatus.History{StepSeconds: 60, Points: pts}},
		{Quota: "openbesluitvorming.nl", Limited: true, Units: 60, PerSeconds: 60, Connectors: []loadstatus.QuotaUser{{Platform: "obv", Title: "OpenBesluitvorming"}},
			History: &loadstatus.History{StepSeconds: 60, Points: []loadstatus.HistoryPoint{{At: last, Units: 1}}}},
		{Quota: "repository.overheid.nl", Limited: true, Units: 3, PerSeconds: 1, Connectors: []loadstatus.QuotaUser{{Platform: "obk", Title: "Officiële Bekendmakingen"}}},
		{Quota: "api.openraadsinformatie.nl", Connectors: []loadstatus.QuotaUser{{Platform: "ori", Title: "Open Raadsinformatie"}}},
	}}
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	srv := serve(t, f, func(o *web.Options) { o.Status = func() loadstatus.Snapshot { return snap } })
	_, body, _ := get(t, srv.URL+"/status")

	// Each chart: the host's name (and its platforms) above it, the
	// summary below.
	figs := regexp.MustCompile(`(?s)<figure class="quota-chart" id="chart-([^"]+)">\s*<figcaption>(.*?)</figcaption>\s*(<svg.*?</svg>)\s*<p class="c-summary">(.*?)</p>`).FindAllStringSubmatch(body, -1)
	if len(figs) != 2 || figs[0][1] != "zoek.officielebekendmakingen.nl" || figs[1][1] != "openbesluitvorming.nl" {
		t.Fatalf("charts for %d quotas, want the two limited ones with a history:\n%s", len(figs), body)
	}
	if head := figs[0][2]; !strings.HasPrefix(head, "<strong>zoek.officielebekendmakingen.nl</strong>") || !strings.Contains(head, "Officiële Bekendmakingen en Tweede Kamer") {
		t.Errorf("above the chart: %q, want the host's name and its platforms", head)
	}
	svg := figs[0][3]
	for i := range figs {
		figs[i][3] = figs[i][4] // the summary, where the caption was
	}
	t.Logf("a chart with 3 strips over 60 points: %d bytes of SVG", len(svg))
	if strings.Contains(svg, "<script") || strings.Contains(svg, "style=") || strings.Contains(svg, " on") {
		t.Errorf("the chart carries script or inline style: %s", svg)
	}
	var d svgDoc
	if err := xml.Unmarshal([]byte(svg), &d); err != nil {
		t.Fatalf("the chart is not well-formed SVG: %v\n%s", err, svg)
	}
	if d.Role != "img" || !strings.Contains(d.Title, "zoek.officielebekendmakingen.nl") {
		t.Errorf("role %q, title %q", d.Role, d.Title)
	}
	bars := map[string][]svgRect{}
	for _, r := range d.Rects {
		bars[r.Class] = append(bars[r.Class], r)
	}
	units, wait, got := bars["c-units"], bars["c-wait"], bars["c-429"]
	if len(units) != 3 || len(wait) != 1 || len(got) != 1 {
		t.Fatalf("bars: %d units, %d waiting, %d 429, want 3, 1, 1", len(units), len(wait), len(got))
	}
	// Slots are 6 px wide after the y axis' 34, oldest at the left: an
	// hour ago at 0, ten minutes back at 49, the running minute at 59.
	if units[0].X != 34 || units[1].X != 328 || units[2].X != 388 || got[0].X != 328 || wait[0].X != 388 {
		t.Errorf("bars at x %v %v %v, 429 at %v, waiting at %v; want 34, 328, 388, 328, 388", units[0].X, units[1].X, units[2].X, got[0].X, wait[0].X)
	}
	// Heights in proportion: the axis runs to the highest bar (30 units,
	// a round figure); 10 units are a third of 30.
	if r := units[2].H / units[0].H; r < 0.33 || r > 0.34 {
		t.Errorf("10 units drawn %.2f of 30 units' height, want a third", r)
	}
	// The dashed limit: 10 per 30 s is 20 a minute, two thirds up.
	var limitY float64
	for _, l := range d.Lines {
		if l.Class == "c-limit" {
			limitY = l.Y1
		}
	}
	base := units[0].Y + units[0].H
	if want := base - units[0].H*20/30; limitY < want-0.2 || limitY > want+0.2 {
		t.Errorf("limit line at y %v, want %v (20 of 30 units)", limitY, want)
	}
	caption := figs[0][3]
	for _, want := range []string{"Afgelopen uur: 45 eenheden gebruikt (limiet 10 per 30 seconden), hoogstens 3 verzoeken tegelijk in de wachtrij, 2 keer een 429.", "limiet 20", "60 min geleden", "nu"} {
		if !strings.Contains(caption+strings.Join(d.Texts, "|"), want) {
			t.Errorf("chart lacks %q: caption %q, texts %q", want, caption, d.Texts)
		}
	}
	if strings.Contains(caption, "Gemeten sinds") {
		t.Error("a full hour says since when it was measured")
	}
	if !strings.Contains(figs[1][3], "1 eenheid gebruikt") || !strings.Contains(figs[1][3], "niemand in de wachtrij, geen 429") || !strings.Contains(figs[1][3], "Gemeten sinds 12:59") {
		t.Errorf("a quota with one minute of history: %q", figs[1][3])
	}

	_, body, _ = get(t, srv.URL+"/status?lang=en")
	mustContain(t, body, "The last hour", "Last hour: 45 units used (limit 10 per 30 seconds), at most 3 requests queued at once, 2 answers 429.", "60 min ago")
}
