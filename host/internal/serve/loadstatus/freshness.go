package loadstatus

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Freshness is what a platform says about how current its data is.
type Freshness struct {
	// Newest is the date (YYYY-MM-DD) of the newest record the platform
	// returned, where its API can sort by date; NewestOf says of what.
	Newest   string `json:"newest,omitempty"`
	NewestOf string `json:"newest_of,omitempty"`
	// ReportedAt is when the platform computed its own status report;
	// WindowHours the window its states are judged against.
	ReportedAt  time.Time `json:"reported_at,omitzero"`
	WindowHours float64   `json:"window_hours,omitempty"`
	// Counts are sources per state; Suppliers and Sources the platform's
	// import freshness (OpenBesluitvorming).
	Counts    map[string]int `json:"counts,omitempty"`
	Suppliers []Supplier     `json:"suppliers,omitempty"`
	Sources   []Source       `json:"sources,omitempty"`
}

// Supplier is one supplier's import health (ok, degraded, down, idle).
type Supplier struct {
	Key           string `json:"supplier"`
	Label         string `json:"label"`
	State         string `json:"state"`
	SourceCount   int    `json:"source_count"`
	OKSourceCount int    `json:"ok_source_count"`
	LastSuccessAt string `json:"last_success_at,omitempty"`
	LastError     string `json:"last_error,omitempty"`
}

// Source is one organisation's import freshness (ok, stale, failing,
// never_imported, not_implemented, discontinued).
type Source struct {
	Key               string `json:"key"`
	Label             string `json:"label"`
	Supplier          string `json:"supplier"`
	State             string `json:"state"`
	LastSuccessAt     string `json:"last_success_at,omitempty"`
	LatestContentDate string `json:"latest_content_date,omitempty"`
	LastError         string `json:"last_error,omitempty"`
	SucceededBy       string `json:"succeeded_by,omitempty"`
}

// Problem reports whether the source's data is behind: stale, failing or
// never imported.
func (s Source) Problem() bool {
	return s.State == "stale" || s.State == "failing" || s.State == "never_imported"
}

var sourceRank = map[string]int{"failing": 0, "stale": 1, "never_imported": 2, "ok": 3, "not_implemented": 4, "discontinued": 5}

func (f *Freshness) clone() *Freshness {
	c := *f
	if f.Counts != nil {
		c.Counts = make(map[string]int, len(f.Counts))
		for k, v := range f.Counts {
			c.Counts[k] = v
		}
	}
	c.Suppliers = append([]Supplier(nil), f.Suppliers...)
	c.Sources = append([]Source(nil), f.Sources...)
	return &c
}

// Find returns the sources whose key equals q or whose label contains q,
// ignoring case; an exact key or label match alone when there is one.
func (f *Freshness) Find(q string) []Source {
	q = strings.TrimSpace(q)
	if f == nil || q == "" {
		return nil
	}
	var exact, part []Source
	for _, s := range f.Sources {
		switch {
		case s.Key == q || strings.EqualFold(s.Label, q):
			exact = append(exact, s)
		case strings.Contains(strings.ToLower(s.Label), strings.ToLower(q)) || strings.Contains(s.Key, strings.ToLower(q)):
			part = append(part, s)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return part
}

// Problems returns the sources whose data is behind, worst first.
func (f *Freshness) Problems() []Source {
	if f == nil {
		return nil
	}
	var out []Source
	for _, s := range f.Sources {
		if s.Problem() {
			out = append(out, s)
		}
	}
	sortSources(out)
	return out
}

// FreshnessProbe is a [Target.Freshness] that asks the platform through
// one of its tools, as its manifest's freshness says: tool (full name) with
// args, through run (the MCP server's Invoke) as the shared public
// session. With of "" the answer is a per-source import status
// ([ParseSourceStatus]); otherwise a newest-first search whose first
// result's date is the newest record of kind of ([ParseNewest]). A tool
// error is the probe's error, in the words a client would read.
func FreshnessProbe(run invoke.Invoker, tool string, args json.RawMessage, of string) func(ctx context.Context) (*Freshness, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return func(ctx context.Context) (*Freshness, error) {
		a := run(ctx, callinfo.Public(), tool, args)
		if a.Err != nil {
			return nil, a.Err
		}
		if of == "" {
			return ParseSourceStatus(a.JSON())
		}
		return ParseNewest(a.JSON(), of)
	}
}

// ParseSourceStatus reads the structured JSON answer of
// OpenBesluitvorming's obv_status tool (called with state "all").
func ParseSourceStatus(raw json.RawMessage) (*Freshness, error) {
	var r struct {
		GeneratedAt string         `json:"generated_at"`
		WindowHours float64        `json:"window_hours"`
		Counts      map[string]int `json:"counts"`
		Suppliers   []struct {
			Supplier      string `json:"supplier"`
			Label         string `json:"label"`
			State         string `json:"state"`
			SourceCount   int    `json:"source_count"`
			OKSourceCount int    `json:"ok_source_count"`
			LastSuccessAt string `json:"last_success_at"`
			LastError     string `json:"last_error"`
		} `json:"suppliers"`
		Sources []Source `json:"sources"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("status answer is not the expected JSON: %v", err)
	}
	if r.Sources == nil || r.Counts == nil {
		return nil, fmt.Errorf("status answer lacks sources or counts")
	}
	f := &Freshness{WindowHours: r.WindowHours, Counts: r.Counts, Sources: r.Sources}
	if t, err := time.Parse(time.RFC3339, r.GeneratedAt); err == nil {
		f.ReportedAt = t
	}
	for _, s := range r.Suppliers {
		f.Suppliers = append(f.Suppliers, Supplier{Key: s.Supplier, Label: s.Label, State: s.State, SourceCount: s.SourceCount,
			OKSourceCount: s.OKSourceCount, LastSuccessAt: s.LastSuccessAt, LastError: s.LastError})
	}
	sortSources(f.Sources)
	return f, nil
}

// ParseNewest reads a connector's normalised search answer (its structured
// JSON, a [connector.SearchResult]; newest first, one result) and returns
// the first result's date as Freshness.Newest.
func ParseNewest(raw json.RawMessage, of string) (*Freshness, error) {
	var r connector.SearchResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("search answer is not the expected JSON: %v", err)
	}
	if r.Results == nil {
		return nil, fmt.Errorf("search answer lacks results")
	}
	if len(r.Results) == 0 || r.Results[0].Date == "" {
		return nil, fmt.Errorf("the newest-first search returned no dated record")
	}
	return &Freshness{Newest: r.Results[0].Date, NewestOf: of}, nil
}
