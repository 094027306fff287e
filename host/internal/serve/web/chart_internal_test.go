package web

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
)

// chartSVG is a chart read back: its rects, lines and texts in order.
type chartSVG struct {
	Rects []struct {
		Class string  `xml:"class,attr"`
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
		W     float64 `xml:"width,attr"`
		H     float64 `xml:"height,attr"`
	} `xml:"rect"`
	Lines []struct {
		Class string `xml:"class,attr"`
	} `xml:"line"`
	Texts []struct {
		Class string `xml:"class,attr"`
		Text  string `xml:",chardata"`
	} `xml:"text"`
}

func drawChart(t *testing.T, lang string, q loadstatus.Quota) (chartView, chartSVG) {
	t.Helper()
	cv := quotaChart(&page{Lang: lang}, "qc-0", q)
	var d chartSVG
	if err := xml.Unmarshal([]byte(cv.SVG), &d); err != nil {
		t.Fatalf("not well-formed SVG: %v\n%s", err, cv.SVG)
	}
	return cv, d
}

// minutes is a history of one point a minute ending at 10:59, one per
// value, oldest first.
func minutes(units ...float64) *loadstatus.History {
	last := time.Date(2026, 6, 30, 10, 59, 0, 0, time.UTC)
	h := &loadstatus.History{StepSeconds: 60}
	for i, u := range units {
		h.Points = append(h.Points, loadstatus.HistoryPoint{At: last.Add(-time.Duration(len(units)-1-i) * time.Minute), Units: u})
	}
	return h
}

// TestChartAxisScaledToUse: a quota used at 2 units a minute under a
// limit of 600 a minute is drawn on an axis that runs to 2, with its
// ticks labelled, so the busiest minute fills the strip instead of being
// a 2-pixel sliver under a limit line at the top; the limit, above the
// axis, is said in the strip's label rather than drawn. It failed before
// the axis was scaled to use (the bar was 2 px of 28, the axis unlabelled).
func TestChartAxisScaledToUse(t *testing.T) {
	vals := make([]float64, 60)
	vals[58], vals[59] = 1, 2
	_, d := drawChart(t, "nl", loadstatus.Quota{Quota: "data.rechtspraak.nl", Limited: true, Units: 10, PerSeconds: 1, History: minutes(vals...)})
	var bars []float64
	var strip float64
	for _, r := range d.Rects {
		switch r.Class {
		case "c-units":
			bars = append(bars, r.H)
		case "c-bg":
			if strip == 0 {
				strip = r.H // the first strip's plot: the units
			}
		}
	}
	if len(bars) != 2 || bars[1] < 0.95*strip || bars[0] < 0.45*strip || bars[0] > 0.55*strip {
		t.Errorf("bars %v in a strip of %v px: want the peak of 2 to fill it and 1 to fill half", bars, strip)
	}
	var ticks []string
	for _, x := range d.Texts {
		if strings.Contains(x.Class, "c-y") {
			ticks = append(ticks, x.Text)
		}
	}
	if len(ticks) < 3 || ticks[0] != "0" || ticks[1] != "1" || ticks[2] != "2" {
		t.Errorf("the units axis' ticks are %q, want 0, 1, 2 first", ticks)
	}
	for _, l := range d.Lines {
		if l.Class == "c-limit" {
			t.Error("a limit of 600 a minute is drawn on an axis that runs to 2")
		}
	}
	if d.Texts[1].Class != "c-limit-t" || d.Texts[1].Text != "limiet 600, boven de schaal" {
		t.Errorf("beside the units strip's label: %+v, want the limit said to lie above the axis", d.Texts[1])
	}

	// Used to the brim, the limit is within the axis and drawn.
	vals[59] = 600
	_, d = drawChart(t, "en", loadstatus.Quota{Quota: "data.rechtspraak.nl", Limited: true, Units: 10, PerSeconds: 1, History: minutes(vals...)})
	limit := false
	for _, l := range d.Lines {
		limit = limit || l.Class == "c-limit"
	}
	if !limit || d.Texts[1].Text != "- - limit 600" {
		t.Errorf("at the limit: line drawn %v, beside the label %q", limit, d.Texts[1].Text)
	}
}

// TestChartNoDataToldFromZero: the minutes before the sampler's first
// point are shaded and said to have no data yet; a measured minute with
// nothing in it is a mark on the baseline. A full hour of zeros has marks
// and no shading. It failed before: both were an empty slot.
func TestChartNoDataToldFromZero(t *testing.T) {
	count := func(d chartSVG, class string) (n int, x, w float64) {
		for _, r := range d.Rects {
			if r.Class == class {
				if n == 0 {
					x, w = r.X, r.W
				}
				n++
			}
		}
		return n, x, w
	}
	said := func(d chartSVG, words string) bool {
		for _, x := range d.Texts {
			if x.Text == words {
				return true
			}
		}
		return false
	}
	// Five minutes measured: 0, 0, 3, 0, 1.
	cv, d := drawChart(t, "nl", loadstatus.Quota{Quota: "openbesluitvorming.nl", Limited: true, Units: 60, PerSeconds: 60, History: minutes(0, 0, 3, 0, 1)})
	if n, x, w := count(d, "c-nodata"); n != 3 || x != chartLeft || w != 55*chartSlotW {
		t.Errorf("no-data shading: %d rects, the first at x %v, %v wide; want one per strip over the 55 empty slots from %v", n, x, w, chartLeft)
	}
	if !said(d, "nog geen gegevens") {
		t.Errorf("the empty part does not say so: %+v", d.Texts)
	}
	// Three measured zeros per strip in units; in waiting and 429 all
	// five minutes were zero.
	if n, x, _ := count(d, "c-zero"); n != 3+5+5 || x != chartLeft+55*chartSlotW {
		t.Errorf("zero marks: %d, the first at x %v; want 13, the first at the first measured slot %v", n, x, chartLeft+55*chartSlotW)
	}
	if n, _, _ := count(d, "c-units"); n != 2 {
		t.Errorf("%d unit bars, want 2", n)
	}
	if cv.Since == "" {
		t.Error("five minutes of history do not say since when")
	}
	_, d = drawChart(t, "en", loadstatus.Quota{Quota: "openbesluitvorming.nl", Limited: true, Units: 60, PerSeconds: 60, History: minutes(0, 0, 3, 0, 1)})
	if !said(d, "no data yet") {
		t.Errorf("English: the empty part does not say so: %+v", d.Texts)
	}

	// A full hour with nothing used: all measured, all zero.
	_, d = drawChart(t, "nl", loadstatus.Quota{Quota: "openbesluitvorming.nl", Limited: true, Units: 60, PerSeconds: 60, History: minutes(make([]float64, 60)...)})
	if n, _, _ := count(d, "c-nodata"); n != 0 || said(d, "nog geen gegevens") {
		t.Errorf("a measured hour of zeros is shaded as having no data (%d rects)", n)
	}
	if n, _, _ := count(d, "c-zero"); n != 3*60 {
		t.Errorf("zero marks: %d, want 180", n)
	}
}

// TestNiceTop: an axis runs to 1, 2, 3, 4, 5, 6 or 8 times a power of ten
// at or above its highest value, and never to nothing.
func TestNiceTop(t *testing.T) {
	for _, c := range []struct{ v, least, want float64 }{
		{0, 1, 1}, {0.3, 1, 1}, {2, 1, 2}, {7, 1, 8}, {30, 1, 30}, {31, 1, 40}, {45, 1, 50}, {120, 1, 200}, {600, 1, 600}, {601, 1, 800}, {0.25, 0, 0.3}, {0, 0, 1},
	} {
		if got := niceTop(c.v, c.least); got < c.want*0.999 || got > c.want*1.001 {
			t.Errorf("niceTop(%v, %v) = %v, want %v", c.v, c.least, got, c.want)
		}
	}
}
