package obv

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// ClassStatus is the cache class of /api/status: the platform itself
// recomputes the answer at most every ten minutes, so keeping it five
// minutes spares the platform without hiding much.
const ClassStatus = "status"

// Source states as the platform names them (web/status_api.ts).
const (
	StateOK             = "ok"
	StateStale          = "stale"
	StateFailing        = "failing"
	StateNeverImported  = "never_imported"
	StateNotImplemented = "not_implemented"
	StateDiscontinued   = "discontinued"
)

// StatusArgs are the arguments of obv_status.
type StatusArgs struct {
	// Source is a source key (as in obv_list_sources) or a label such as
	// "Soest"; the label matches without regard to case.
	Source string `json:"source"`
	// Supplier keeps only one supplier's sources (notubiz, ibabs, …).
	Supplier string `json:"supplier"`
	// State filters the listed sources: a source state, "problems" (stale,
	// failing or never imported) or "all". The default is "problems",
	// or "all" when Source is given.
	State string `json:"state"`
}

// StatusResult is obv_status's answer: the platform's import freshness per
// supplier and per source.
type StatusResult struct {
	Platform string `json:"platform"`
	// GeneratedAt is when the platform computed the answer (RFC 3339).
	GeneratedAt string `json:"generated_at"`
	// WindowHours is the window the states are judged against: a source
	// without a successful import within it is no longer "ok".
	WindowHours float64 `json:"window_hours"`
	// IndexActivityAvailable is false when the platform could not read its
	// search index; latest_content_date is then absent everywhere.
	IndexActivityAvailable bool `json:"index_activity_available"`
	// Counts are the numbers of sources per state, before filtering.
	Counts    map[string]int   `json:"counts"`
	Suppliers []SupplierStatus `json:"suppliers"`
	// Sources are the sources the filter kept, worst state first.
	Sources []SourceStatus `json:"sources"`
	// Notes are sentences an assistant can pass on.
	Notes []string `json:"notes,omitempty"`
}

// SupplierStatus is one supplier's import health: ok, degraded (most runs
// fail), down (every run fails) or idle.
type SupplierStatus struct {
	Supplier       string `json:"supplier"`
	Label          string `json:"label"`
	State          string `json:"state"`
	SourceCount    int    `json:"source_count"`
	OKSourceCount  int    `json:"ok_source_count"`
	RunCount       int    `json:"run_count"`
	SucceededCount int    `json:"succeeded_count"`
	FailedCount    int    `json:"failed_count"`
	LastSuccessAt  string `json:"last_success_at,omitempty"`
	LastError      string `json:"last_error,omitempty"`
}

// SourceStatus is one organisation's import freshness.
type SourceStatus struct {
	Key              string `json:"key"`
	Label            string `json:"label"`
	Supplier         string `json:"supplier"`
	OrganizationType string `json:"organization_type,omitempty"`
	State            string `json:"state"`
	// LastSuccessAt is the last successful import; LastRunAt the last
	// attempt, whatever its outcome.
	LastSuccessAt string `json:"last_success_at,omitempty"`
	LastRunAt     string `json:"last_run_at,omitempty"`
	LastRunStatus string `json:"last_run_status,omitempty"`
	LastError     string `json:"last_error,omitempty"`
	// LatestContentDate is the newest meeting date held (often in the
	// future: agendas are published ahead).
	LatestContentDate string `json:"latest_content_date,omitempty"`
	LastIndexedAt     string `json:"last_indexed_at,omitempty"`
	IndexedDocuments  *int   `json:"indexed_documents,omitempty"`
	DiscontinuedAt    string `json:"discontinued_at,omitempty"`
	SucceededBy       string `json:"succeeded_by,omitempty"`
}

// StatusURL is the platform's status request.
func StatusURL(base string) string { return strings.TrimRight(base, "/") + "/api/status" }

// statusResponse is a status answer. sources is its core; a source or
// supplier row of another shape, and an unreadable or missing suppliers
// list or windowHours, are left out with a note.
type statusResponse struct {
	GeneratedAt            string                    `json:"generatedAt"`
	WindowHours            soft[*float64]            `json:"windowHours"`
	IndexActivityAvailable soft[bool]                `json:"indexActivityAvailable"`
	Suppliers              soft[[]soft[supplierRow]] `json:"suppliers"`
	Sources                []soft[sourceRow]         `json:"sources"`
}

type supplierRow struct {
	Supplier         string `json:"supplier"`
	Label            string `json:"label"`
	State            string `json:"state"`
	SourceCount      int    `json:"sourceCount"`
	OKSourceCount    int    `json:"okSourceCount"`
	RunCount         int    `json:"runCount"`
	SucceededCount   int    `json:"succeededCount"`
	FailedCount      int    `json:"failedCount"`
	LastSuccessAt    string `json:"lastSuccessAt"`
	LastErrorMessage string `json:"lastErrorMessage"`
}

type sourceRow struct {
	SourceKey         string `json:"sourceKey"`
	Label             string `json:"label"`
	Supplier          string `json:"supplier"`
	OrganizationType  string `json:"organizationType"`
	State             string `json:"state"`
	LastSuccessAt     string `json:"lastSuccessAt"`
	LastRunAt         string `json:"lastRunAt"`
	LastRunStatus     string `json:"lastRunStatus"`
	LastErrorMessage  string `json:"lastErrorMessage"`
	LatestContentDate string `json:"latestContentDate"`
	LastIndexedAt     string `json:"lastIndexedAt"`
	IndexedDocuments  *int   `json:"indexedDocuments"`
	DiscontinuedAt    string `json:"discontinuedAt"`
	SucceededBy       *struct {
		Label     string `json:"label"`
		SourceKey string `json:"sourceKey"`
	} `json:"succeededBy"`
}

// severity orders source states worst first.
var severity = map[string]int{StateFailing: 0, StateStale: 1, StateNeverImported: 2, StateOK: 3, StateNotImplemented: 4, StateDiscontinued: 5}

func status(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a StatusArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.State == "" {
		a.State = "problems"
		if a.Source != "" {
			a.State = "all"
		}
	}
	if _, ok := severity[a.State]; !ok && a.State != "problems" && a.State != "all" {
		states := []string{"problems", "all"}
		for s := range severity {
			states = append(states, s)
		}
		sort.Strings(states[2:]) // the map's order is random; the error's is not
		return nil, sdk.UnknownValue("state", a.State, states, "")
	}
	resp, err := sdk.Get(ctx, h, StatusURL(BaseURL), Service, 1, ClassStatus)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	var sr statusResponse
	if err := sdk.DecodeJSON(resp, "status", &sr); err != nil {
		return nil, err
	}
	return buildStatus(sr, a)
}

func buildStatus(sr statusResponse, a StatusArgs) (*StatusResult, error) {
	if sr.Sources == nil {
		return nil, fmt.Errorf("status: the platform's response lacks sources")
	}
	out := &StatusResult{Platform: ID, GeneratedAt: sr.GeneratedAt, IndexActivityAvailable: sr.IndexActivityAvailable.V,
		Counts: map[string]int{}, Suppliers: []SupplierStatus{}, Sources: []SourceStatus{}}
	var notes []string
	if sr.WindowHours.V != nil {
		out.WindowHours = *sr.WindowHours.V
	} else {
		notes = append(notes, "The platform's answer "+missing("windowHours", sr.WindowHours.Err)+": the window the states are judged against is unknown (window_hours 0).")
	}
	if sr.IndexActivityAvailable.Err != nil {
		notes = append(notes, fmt.Sprintf("The platform's indexActivityAvailable is unreadable (%v); index_activity_available is false.", sr.IndexActivityAvailable.Err))
	}
	suppliers := sr.Suppliers.V
	if suppliers == nil {
		notes = append(notes, "The platform's answer "+missing("suppliers", sr.Suppliers.Err)+": the suppliers' health is not listed.")
	}
	badSuppliers := 0
	for _, row := range suppliers {
		s := row.V
		if row.Err != nil || s.Supplier == "" {
			badSuppliers++
			continue
		}
		if a.Supplier != "" && s.Supplier != a.Supplier {
			continue
		}
		out.Suppliers = append(out.Suppliers, SupplierStatus{Supplier: s.Supplier, Label: s.Label, State: s.State, SourceCount: s.SourceCount,
			OKSourceCount: s.OKSourceCount, RunCount: s.RunCount, SucceededCount: s.SucceededCount, FailedCount: s.FailedCount,
			LastSuccessAt: s.LastSuccessAt, LastError: s.LastErrorMessage})
	}
	if badSuppliers > 0 {
		notes = append(notes, fmt.Sprintf("%d supplier row(s) of the platform are unreadable and left out.", badSuppliers))
	}
	if a.Supplier != "" && len(out.Suppliers) == 0 && suppliers != nil && badSuppliers == 0 {
		var known []string
		for _, s := range suppliers {
			known = append(known, s.V.Supplier)
		}
		return nil, sdk.UnknownValue("supplier", a.Supplier, known, "")
	}
	// source is a key or a name, read as search reads organization; a
	// name of several sources lists them all (a status is cheap to show
	// and the user sees which is which), never the first alone.
	var wanted map[string]bool
	if a.Source != "" {
		var orgs []orgname.Org
		for _, row := range sr.Sources {
			if row.Err == nil && row.V.SourceKey != "" {
				orgs = append(orgs, orgname.Org{Key: row.V.SourceKey, Name: row.V.Label, Kind: orgname.OrgKind(row.V.OrganizationType)})
			}
		}
		m := orgname.MatchOrg(orgs, a.Source)
		wanted = map[string]bool{}
		for _, o := range m.Candidates {
			wanted[o.Key] = true
		}
		switch {
		case len(m.Candidates) > 1:
			notes = append(notes, fmt.Sprintf("source %q matches %d sources, so all are listed: %s.", clip(a.Source, 100), len(m.Candidates), orgname.ListOrgs(m.Candidates, "source")))
		case len(m.Candidates) == 1 && (m.By == orgname.ByPrefix || m.By == orgname.ByWords):
			notes = append(notes, fmt.Sprintf("source %q is read as %s (source=%q), the only source whose name fits.", clip(a.Source, 100), m.Candidates[0].Label(), m.Candidates[0].Key))
		}
	}
	matched, badSources := false, 0
	for _, row := range sr.Sources {
		s := row.V
		if row.Err != nil || s.SourceKey == "" || s.State == "" {
			badSources++
			continue
		}
		out.Counts[s.State]++
		if wanted != nil && !wanted[s.SourceKey] {
			continue
		}
		matched = true
		if a.Supplier != "" && s.Supplier != a.Supplier {
			continue
		}
		switch a.State {
		case "all":
		case "problems":
			if s.State != StateStale && s.State != StateFailing && s.State != StateNeverImported {
				continue
			}
		default:
			if s.State != a.State {
				continue
			}
		}
		src := SourceStatus{Key: s.SourceKey, Label: s.Label, Supplier: s.Supplier, OrganizationType: s.OrganizationType, State: s.State,
			LastSuccessAt: s.LastSuccessAt, LastRunAt: s.LastRunAt, LastRunStatus: s.LastRunStatus, LastError: s.LastErrorMessage,
			LatestContentDate: s.LatestContentDate, LastIndexedAt: s.LastIndexedAt, IndexedDocuments: s.IndexedDocuments, DiscontinuedAt: s.DiscontinuedAt}
		if s.SucceededBy != nil {
			src.SucceededBy = s.SucceededBy.Label
			if s.SucceededBy.SourceKey != "" {
				src.SucceededBy += " (" + s.SucceededBy.SourceKey + ")"
			}
		}
		out.Sources = append(out.Sources, src)
	}
	if badSources > 0 && badSources == len(sr.Sources) {
		return nil, fmt.Errorf("status: none of the platform's %d sources is readable (each needs sourceKey and state)", badSources)
	}
	if badSources > 0 {
		notes = append(notes, fmt.Sprintf("%d source row(s) of the platform are unreadable (without sourceKey or state, or of another shape) and left out of the list and the counts.", badSources))
	}
	if a.Source != "" && !matched {
		if badSources > 0 {
			return nil, fmt.Errorf("argument \"source\": no readable source %q; %d of the platform's source rows are unreadable", a.Source, badSources)
		}
		return nil, fmt.Errorf("argument \"source\": no source %q; use a key from obv_list_sources, such as \"soest\"", a.Source)
	}
	sort.SliceStable(out.Sources, func(i, j int) bool {
		si, sj := out.Sources[i], out.Sources[j]
		if severity[si.State] != severity[sj.State] {
			return severity[si.State] < severity[sj.State]
		}
		return si.Label < sj.Label
	})
	if len(out.Sources) <= 5 {
		for _, s := range out.Sources {
			out.Notes = append(out.Notes, describeSource(s, sr.GeneratedAt, out.WindowHours))
		}
	}
	out.Notes = append(out.Notes, notes...)
	return out, nil
}

// missing says how a part of the answer is absent: not sent, or
// unreadable.
func missing(field string, err error) string {
	if err != nil {
		return fmt.Sprintf("has an unreadable %s (%v)", field, err)
	}
	return "lacks " + field
}

// describeSource says in one sentence how current a source is, measuring
// ages from the platform's own clock (the connector has none).
func describeSource(s SourceStatus, generated string, window float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, via %s): ", s.Label, s.Key, s.Supplier)
	switch s.State {
	case StateOK:
		b.WriteString("current: imported successfully " + within(window))
	case StateStale:
		b.WriteString("stale: no successful import " + within(window))
	case StateFailing:
		b.WriteString("failing: the last import failed and none succeeded " + within(window))
	case StateNeverImported:
		b.WriteString("never imported yet")
	case StateNotImplemented:
		b.WriteString("not imported by OpenBesluitvorming")
	case StateDiscontinued:
		b.WriteString("discontinued (the organisation no longer exists)")
		if s.SucceededBy != "" {
			b.WriteString("; succeeded by " + s.SucceededBy)
		}
	default:
		b.WriteString(s.State)
	}
	if s.LastSuccessAt != "" {
		b.WriteString("; last successful import " + s.LastSuccessAt)
		if age := ageOf(s.LastSuccessAt, generated); age != "" {
			b.WriteString(" (" + age + " before the platform's report)")
		}
	}
	if s.LatestContentDate != "" {
		b.WriteString("; newest meeting held " + s.LatestContentDate)
	}
	if s.LastError != "" {
		b.WriteString("; last error: " + s.LastError)
	}
	return b.String() + "."
}

// within is the window the states are judged against, in words.
func within(h float64) string {
	if h <= 0 {
		return "within the platform's window (its length unknown)"
	}
	return fmt.Sprintf("within the last %g hours", h)
}

func ageOf(ts, ref string) string {
	t, err1 := time.Parse(time.RFC3339, ts)
	r, err2 := time.Parse(time.RFC3339, ref)
	if err1 != nil || err2 != nil || r.Before(t) {
		return ""
	}
	d := r.Sub(t)
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}
