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
// per point): units granted per step with the quota's limit as a dashed
// line, the peak of calls waiting, and the host's 429 answers. It is drawn
// on the server as inline SVG, so it needs no script and no request of its
// own, and it reads the snapshot's History, which the sampler takes from
// the counters /metrics exports. Colours come from the stylesheet (the
// page's CSP allows no inline style), the figures from the data alone.
const (
	chartSlots  = 60
	chartSlotW  = 6.0
	chartWidth  = chartSlots * chartSlotW
	chartStripH = 28.0
	chartLabelH = 16.0
	chartGap    = 6.0
	chartAxisH  = 16.0
)

// chartView is one limited quota's chart and its summary in words.
type chartView struct {
	ID      string // unique on the page
	Quota   string
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
	label string
	class string
	vals  []float64 // by slot; NaN: no point
	scale float64
	limit float64 // a dashed line at this value, when > 0
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
	var sumUnits, maxUnits, maxWait, sum429 float64
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
	}
	max429 := 0.0
	for _, v := range got {
		if !math.IsNaN(v) {
			max429 = max(max429, v)
		}
	}
	limitPerStep := 0.0
	if q.PerSeconds > 0 {
		limitPerStep = q.Units / q.PerSeconds * step.Seconds()
	}
	stepWord := p.T("chart.per.step")
	if step != time.Minute {
		stepWord = p.T("chart.per.secs", step.Seconds())
	}
	strips := []strip{
		{label: p.T("chart.units", stepWord, num(p.Lang, maxUnits), num(p.Lang, limitPerStep)), class: "c-units", vals: units, scale: max(limitPerStep, maxUnits, 1), limit: limitPerStep},
		{label: p.T("chart.waiting", num(p.Lang, maxWait)), class: "c-wait", vals: waiting, scale: max(maxWait, 1)},
		{label: p.T("chart.429", num(p.Lang, sum429)), class: "c-429", vals: got, scale: max(max429, 1)},
	}
	total := float64(len(strips))*(chartLabelH+chartStripH+chartGap) + chartAxisH
	summary := p.T("chart.summary", p.N("chart.sum.units", int(math.Round(sumUnits))), limitText(p, q), p.N("chart.sum.wait", int(maxWait)), p.N("chart.sum.429", int(sum429)))

	var b strings.Builder
	e := template.HTMLEscapeString
	fmt.Fprintf(&b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-labelledby="%s-t %s-d">`,
		f1(chartWidth), f1(total), f1(chartWidth), f1(total), id, id)
	fmt.Fprintf(&b, `<title id="%s-t">%s</title><desc id="%s-d">%s</desc>`, id, e(p.T("chart.title", q.Quota)), id, e(summary))
	y := 0.0
	for _, s := range strips {
		fmt.Fprintf(&b, `<text class="c-label" x="0" y="%s">%s</text>`, f1(y+chartLabelH-4), e(s.label))
		top := y + chartLabelH
		base := top + chartStripH
		fmt.Fprintf(&b, `<rect class="c-bg" x="0" y="%s" width="%s" height="%s"/>`, f1(top), f1(chartWidth), f1(chartStripH))
		for i, v := range s.vals {
			if math.IsNaN(v) || v <= 0 {
				continue
			}
			bh := max(v/s.scale*chartStripH, 2) // a used minute stays visible beside a high limit
			fmt.Fprintf(&b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, s.class, f1(float64(i)*chartSlotW), f1(base-bh), f1(chartSlotW-1), f1(bh))
		}
		if s.limit > 0 {
			ly := base - s.limit/s.scale*chartStripH
			fmt.Fprintf(&b, `<line class="c-limit" x1="0" x2="%s" y1="%s" y2="%s"/>`, f1(chartWidth), f1(ly), f1(ly))
		}
		fmt.Fprintf(&b, `<line class="c-axis" x1="0" x2="%s" y1="%s" y2="%s"/>`, f1(chartWidth), f1(base), f1(base))
		y = base + chartGap
	}
	ay := y + chartAxisH - 4
	fmt.Fprintf(&b, `<text class="c-tick" x="0" y="%s">%s</text>`, f1(ay), e(p.T("chart.ago", int(step.Minutes()*chartSlots))))
	fmt.Fprintf(&b, `<text class="c-tick" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(chartWidth/2), f1(ay), e(p.T("chart.ago", int(step.Minutes()*chartSlots/2))))
	fmt.Fprintf(&b, `<text class="c-tick" x="%s" y="%s" text-anchor="end">%s</text>`, f1(chartWidth), f1(ay), e(p.T("chart.now")))
	b.WriteString(`</svg>`)
	cv := chartView{ID: id, Quota: q.Quota, SVG: template.HTML(b.String()), Summary: summary}
	if first := pts[0].At; last.Sub(first) < step*(chartSlots-1) {
		cv.Since = first.In(amsterdam).Format("15:04")
	}
	return cv
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
