package web

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
)

// The quota chart: three strips over one time axis (the last hour, a slot
// per point): units granted per step, the peak of calls waiting, and the
// host's 429 answers. Each strip's y axis runs from 0 to a round figure
// just above the highest value it shows, with labelled ticks, so that a
// quota used at 2 units a minute under a limit of 600 is drawn as tall as
// one used to the brim; the limit is a dashed line when it falls within
// the axis, and is said in the strip's label when it lies above it. Slots
// the sampler has not reached yet ("no data yet") are shaded and said so,
// while a measured zero is a short mark on the baseline: the two never
// look alike. It is drawn on the server as inline SVG, so it needs no
// script and no request of its own, and it reads the snapshot's History,
// which the sampler takes from the counters /metrics exports. Colours come
// from the stylesheet (the page's CSP allows no inline style), the figures
// from the data alone.
const (
	chartSlots  = 60
	chartSlotW  = 6.0
	chartLeft   = 34.0 // room for the y axis' tick labels
	chartPlotW  = chartSlots * chartSlotW
	chartWidth  = chartLeft + chartPlotW
	chartUnitsH = 56.0 // the units strip; the others are chartStripH
	chartStripH = 28.0
	chartLabelH = 16.0
	chartGap    = 6.0
	chartAxisH  = 16.0
	// chartNoDataMinW is the narrowest run of empty slots that gets the
	// words "no data yet" (the shading says it for a narrower one).
	chartNoDataMinW = 90.0
)

// chartView is one limited quota's chart and its summary in words.
type chartView struct {
	ID      string // unique on the page
	Quota   string
	Users   string // the platforms using the quota, in words
	SVG     template.HTML
	Summary string
	Since   string // the first point's time when the history is shorter than the window
}

// quotaCharts builds the charts of the snapshot's limited quotas that have
// a history.
func quotaCharts(p *page, qs []loadstatus.Quota) []chartView {
	var out []chartView
	for i, q := range qs {
		if !q.Limited || q.History == nil || len(q.History.Points) == 0 {
			continue
		}
		out = append(out, quotaChart(p, fmt.Sprintf("qc-%d", i), q))
	}
	return out
}

// strip is one row of a chart.
type strip struct {
	label  string
	right  string // said at the label's right: the limit
	class  string
	vals   []float64 // by slot; NaN: no point
	height float64
	top    float64 // the y axis' top: a round figure at or above every value
	ticks  []float64
	limit  float64 // a dashed line at this value, when > 0 and within top
}

// niceTop is the y axis' top for a highest value v: the smallest of 1, 2,
// 3, 4, 5, 6, 8 times a power of ten that is at least v, and at least
// least (so that an empty strip still has an axis).
func niceTop(v, least float64) float64 {
	v = max(v, least)
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 3, 4, 5, 6, 8, 10} {
		if t := m * mag; t >= v*(1-1e-9) {
			return t
		}
	}
	return 10 * mag
}

// axisTicks are the labelled values of an axis up to top: 0 and top, and
// the middle when it is a whole figure or the strip is tall.
func axisTicks(top float64, tall bool) []float64 {
	mid := top / 2
	if tall || mid == math.Trunc(mid) {
		return []float64{0, mid, top}
	}
	return []float64{0, top}
}

func quotaChart(p *page, id string, q loadstatus.Quota) chartView {
	h := q.History
	step := time.Duration(h.StepSeconds * float64(time.Second))
	if step <= 0 {
		step = time.Minute
	}
	pts := h.Points
	if len(pts) > chartSlots {
		pts = pts[len(pts)-chartSlots:]
	}
	last := pts[len(pts)-1].At
	units, waiting, got := make([]float64, chartSlots), make([]float64, chartSlots), make([]float64, chartSlots)
	for i := range chartSlots {
		units[i], waiting[i], got[i] = math.NaN(), math.NaN(), math.NaN()
	}
	var sumUnits, maxUnits, maxWait, sum429, max429 float64
	for _, pt := range pts {
		slot := chartSlots - 1 - int(last.Sub(pt.At)/step)
		if slot < 0 || slot >= chartSlots {
			continue
		}
		units[slot], waiting[slot], got[slot] = pt.Units, float64(pt.Waiting), float64(pt.Got429)
		sumUnits += pt.Units
		maxUnits = max(maxUnits, pt.Units)
		maxWait = max(maxWait, float64(pt.Waiting))
		sum429 += float64(pt.Got429)
		max429 = max(max429, float64(pt.Got429))
	}
	limitPerStep := 0.0
	if q.PerSeconds > 0 {
		limitPerStep = q.Units / q.PerSeconds * step.Seconds()
	}
	stepWord := p.T("chart.per.step")
	if step != time.Minute {
		stepWord = p.T("chart.per.secs", step.Seconds())
	}
	unitsTop := niceTop(maxUnits, 1)
	limitWords := p.T("chart.limit", num(p.Lang, limitPerStep))
	if limitPerStep > unitsTop {
		limitWords = p.T("chart.limit.above", num(p.Lang, limitPerStep))
	}
	waitTop, topOf429 := niceTop(maxWait, 1), niceTop(max429, 1)
	strips := []strip{
		{label: p.T("chart.units", stepWord, num(p.Lang, maxUnits)), right: limitWords, class: "c-units", vals: units, height: chartUnitsH, top: unitsTop, ticks: axisTicks(unitsTop, true), limit: limitPerStep},
		{label: p.T("chart.waiting", num(p.Lang, maxWait)), class: "c-wait", vals: waiting, height: chartStripH, top: waitTop, ticks: axisTicks(waitTop, false)},
		{label: p.T("chart.429", num(p.Lang, sum429)), class: "c-429", vals: got, height: chartStripH, top: topOf429, ticks: axisTicks(topOf429, false)},
	}
	total := chartAxisH
	for _, s := range strips {
		total += chartLabelH + s.height + chartGap
	}
	summary := p.T("chart.summary", p.N("chart.sum.units", int(math.Round(sumUnits))), limitText(p, q), p.N("chart.sum.wait", int(maxWait)), p.N("chart.sum.429", int(sum429)))

	var b strings.Builder
	e := template.HTMLEscapeString
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-labelledby="%s-t %s-d">`,
		f1(chartWidth), f1(total), f1(chartWidth), f1(total), id, id)
	fmt.Fprintf(&b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, id, e(p.T("chart.title", q.Quota)), id, e(summary))
	noData := emptyRuns(units)
	y := 0.0
	for si, s := range strips {
		fmt.Fprintf(&b, `<text class="c-label" x="%s" y="%s">%s</text>`, f1(chartLeft), f1(y+chartLabelH-4), e(s.label))
		if s.right != "" {
			fmt.Fprintf(&b, `<text class="c-limit-t" x="%s" y="%s" text-anchor="end">%s</text>`, f1(chartWidth), f1(y+chartLabelH-4), e(s.right))
		}
		top := y + chartLabelH
		base := top + s.height
		yOf := func(v float64) float64 { return base - v/s.top*s.height }
		fmt.Fprintf(&b, `<rect class="c-bg" x="%s" y="%s" width="%s" height="%s"/>`, f1(chartLeft), f1(top), f1(chartPlotW), f1(s.height))
		for _, r := range noData {
			fmt.Fprintf(&b, `<rect class="c-nodata" x="%s" y="%s" width="%s" height="%s"/>`, f1(chartLeft+float64(r[0])*chartSlotW), f1(top), f1(float64(r[1]-r[0])*chartSlotW), f1(s.height))
		}
		for _, t := range s.ticks {
			ty := yOf(t)
			if t > 0 {
				fmt.Fprintf(&b, `<line class="c-grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(chartLeft), f1(chartWidth), f1(ty), f1(ty))
			}
			fmt.Fprintf(&b, `<text class="c-tick c-y" x="%s" y="%s" text-anchor="end">%s</text>`, f1(chartLeft-4), f1(ty+3.5), e(num(p.Lang, t)))
		}
		for i, v := range s.vals {
			switch {
			case math.IsNaN(v):
				continue
			case v <= 0:
				// A measured zero: a mark on the baseline, where a slot
				// without data has none.
				fmt.Fprintf(&b, `<rect class="c-zero" x="%s" y="%s" width="%s" height="1.5"/>`, f1(chartLeft+float64(i)*chartSlotW), f1(base-1.5), f1(chartSlotW-1))
				continue
			}
			bh := max(v/s.top*s.height, 2) // a used minute stays visible
			fmt.Fprintf(&b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, s.class, f1(chartLeft+float64(i)*chartSlotW), f1(base-bh), f1(chartSlotW-1), f1(bh))
		}
		if s.limit > 0 && s.limit <= s.top {
			ly := yOf(s.limit)
			fmt.Fprintf(&b, `<line class="c-limit" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(chartLeft), f1(chartWidth), f1(ly), f1(ly))
		}
		fmt.Fprintf(&b, `<line class="c-axis" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(chartLeft), f1(chartWidth), f1(base), f1(base))
		fmt.Fprintf(&b, `<line class="c-axis" x1="%s" x2="%s" y1="%s" y2="%s"/>`, f1(chartLeft), f1(chartLeft), f1(top), f1(base))
		if si == 0 {
			// The words, once, over the widest run without data.
			if r, ok := widest(noData); ok && float64(r[1]-r[0])*chartSlotW >= chartNoDataMinW {
				cx := chartLeft + float64(r[0]+r[1])/2*chartSlotW
				fmt.Fprintf(&b, `<text class="c-nodata-t" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(cx), f1(top+s.height/2+4), e(p.T("chart.nodata")))
			}
		}
		y = base + chartGap
	}
	ay := y + chartAxisH - 4
	fmt.Fprintf(&b, `<text class="c-tick" x="%s" y="%s">%s</text>`, f1(chartLeft), f1(ay), e(p.T("chart.ago", int(step.Minutes()*chartSlots))))
	fmt.Fprintf(&b, `<text class="c-tick" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(chartLeft+chartPlotW/2), f1(ay), e(p.T("chart.ago", int(step.Minutes()*chartSlots/2))))
	fmt.Fprintf(&b, `<text class="c-tick" x="%s" y="%s" text-anchor="end">%s</text>`, f1(chartWidth), f1(ay), e(p.T("chart.now")))
	b.WriteString(`</svg>`)
	cv := chartView{ID: id, Quota: q.Quota, Users: joinAnd(p, q.Titles()), SVG: template.HTML(b.String()), Summary: summary}
	if first := pts[0].At; last.Sub(first) < step*(chartSlots-1) {
		cv.Since = first.In(amsterdam).Format("15:04")
	}
	return cv
}

// emptyRuns are the runs of slots without a point, as [from, to) pairs.
func emptyRuns(vals []float64) [][2]int {
	var out [][2]int
	for i := 0; i < len(vals); {
		if !math.IsNaN(vals[i]) {
			i++
			continue
		}
		j := i
		for j < len(vals) && math.IsNaN(vals[j]) {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// widest is the longest run.
func widest(runs [][2]int) ([2]int, bool) {
	var best [2]int
	for _, r := range runs {
		if r[1]-r[0] > best[1]-best[0] {
			best = r
		}
	}
	return best, len(runs) > 0
}

// limitText words a quota's limit for the chart's summary.
func limitText(p *page, q loadstatus.Quota) string { return formatLimit(p, q.Units, q.PerSeconds) }

// f1 writes a coordinate with at most one decimal.
func f1(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// num writes a figure with at most one decimal, with a decimal comma in
// Dutch.
func num(lang string, v float64) string {
	s := strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	if lang != "en" {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}
