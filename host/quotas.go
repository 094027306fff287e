package host

import (
	"slices"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/cluster"
	"github.com/besluitbron/besluitbron/host/internal/loadstatus"
)

// quotaStatus describes every quota for the status pages and
// besluitbron_status: the limited ones with their state now, then the
// hosts the connectors reach without a limit. Quotas come by name.
func (h *Host) quotaStatus() []loadstatus.Quota {
	var modes map[string]cluster.LimiterStatus
	if h.cl.c != nil {
		modes = map[string]cluster.LimiterStatus{}
		for _, st := range h.cl.c.Status().Quotas {
			modes[st.Quota] = st
		}
	}
	var out []loadstatus.Quota
	now := h.now()
	limited := map[string]bool{}
	for _, q := range h.quotas {
		limited[q.Name] = true
		st := q.Scheduler().Stats()
		tokens := st.Tokens
		lq := loadstatus.Quota{Quota: q.Name, Limited: true, Units: q.Limit.Units, PerSeconds: q.Limit.Per.Seconds(), Source: q.Source,
			Shared: q.Shared(), WaitingSessions: st.WaitingSessions, Tokens: &tokens}
		// The claim whose limit won, so pages can word where it comes
		// from in their own language.
		for _, c := range h.claims {
			if c.Quota == q.Name && c.Source() == q.Source {
				lq.SourceAdmin, lq.SourcePlatform, lq.SourceService = c.Admin, c.Platform, c.Service
				break
			}
		}
		if st.PausedUntil.After(now) {
			lq.PausedUntil = st.PausedUntil
		}
		for _, u := range q.Uses() {
			us := u.Stats()
			lq.Connectors = append(lq.Connectors, loadstatus.QuotaUser{Platform: u.Platform, Title: u.Title, Service: u.Service,
				Waiting: us.Waiting, Calls: us.Calls, Units: us.Units, Got429: us.Got429})
			lq.Waiting += us.Waiting
		}
		if m, ok := modes[q.Name]; ok {
			lq.Cluster = m.Mode
			// In Redis the local bucket is not the one that decides.
			lq.Tokens, lq.WaitingSessions, lq.PausedUntil = nil, 0, time.Time{}
		}
		out = append(out, lq)
	}
	free := map[string]*loadstatus.Quota{}
	var names []string
	for _, c := range h.claims {
		if limited[c.Quota] {
			continue
		}
		q := free[c.Quota]
		if q == nil {
			q = &loadstatus.Quota{Quota: c.Quota}
			free[c.Quota] = q
			names = append(names, c.Quota)
		}
		q.Connectors = append(q.Connectors, loadstatus.QuotaUser{Platform: c.Platform, Title: c.Title, Service: c.Service})
	}
	slices.Sort(names)
	for _, n := range names {
		q := free[n]
		titles := map[string]bool{}
		for _, u := range q.Connectors {
			titles[u.Title] = true
		}
		q.Shared = len(titles) > 1
		out = append(out, *q)
	}
	return out
}
