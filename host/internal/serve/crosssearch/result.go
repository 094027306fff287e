package crosssearch

import "github.com/besluitbron/besluitbron/host/internal/serve/cite"

// Result is the tool's answer.
type Result struct {
	Query        string `json:"query"`
	Organization string `json:"organization,omitempty"`
	DateFrom     string `json:"date_from,omitempty"`
	DateTo       string `json:"date_to,omitempty"`
	// ResultCount is the number of results the platforms returned;
	// DocumentCount the distinct documents among them (each listed once,
	// its other copies under also_on).
	ResultCount   int `json:"result_count"`
	DocumentCount int `json:"document_count"`
	// Hint, when no platform found anything, says what to try: a query
	// that reads as English gets the advice to search in Dutch.
	Hint     string    `json:"hint,omitempty"`
	Sections []Section `json:"platforms"`
	// Answered, Failed and Skipped list platform ids by outcome.
	Answered []string `json:"answered"`
	Failed   []string `json:"failed,omitempty"`
	Skipped  []string `json:"skipped,omitempty"`
}

// Section statuses.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusTimeout = "timeout"
	StatusSkipped = "skipped"
)

// Section is one platform's part of the answer.
type Section struct {
	Platform string `json:"platform"`
	Title    string `json:"title"`
	Status   string `json:"status"`
	// Error says why a platform failed, timed out or was skipped.
	Error string `json:"error,omitempty"`
	// Tool and Arguments are the call made, for paging on with it.
	Tool      string         `json:"tool,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Total     *int           `json:"total,omitempty"`
	Approx    bool           `json:"total_is_approximate,omitempty"`
	HasMore   bool           `json:"has_more,omitempty"`
	Results   []Item         `json:"results,omitempty"`
	// ListedElsewhere counts this platform's results that are copies of a
	// document shown in an earlier section: they are in that result's
	// also_on, not here.
	ListedElsewhere int      `json:"listed_elsewhere,omitempty"`
	Notes           []string `json:"notes,omitempty"`
	// Candidates are, when organization fits several of the platform's
	// organisations, the first maxListed of them (the platform was then
	// not searched); MoreCandidates counts the rest.
	Candidates     []Candidate `json:"candidates,omitempty"`
	MoreCandidates int         `json:"more_candidates,omitempty"`
	// Cache, QueuedMS and UpstreamMS are the platform call's _meta;
	// ElapsedMS is how long the platform's part took.
	Cache      string `json:"cache,omitempty"`
	QueuedMS   int64  `json:"queued_ms"`
	UpstreamMS int64  `json:"upstream_ms"`
	ElapsedMS  int64  `json:"elapsed_ms"`
	// Units are what the platform call cost its limits (0 when the
	// cache answered): the watches pace their polls by it.
	Units float64 `json:"units,omitempty"`

	// keys are the results' document keys, by result (not shown: the
	// grouping is).
	keys []map[string]string
}

// Item is one result, without the platform-specific extras (the
// platform's own search returns those).
type Item struct {
	ID           string `json:"id"`
	Type         string `json:"type,omitempty"`
	Title        string `json:"title"`
	Date         string `json:"date,omitempty"`
	Organization string `json:"organization,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	URL          string `json:"url,omitempty"`
	// Cite is the document's citation and the day it was retrieved
	// (serve/cite, from the result's keys, title, organisation, date and
	// address).
	Cite *cite.Cite `json:"cite,omitempty"`
	// AlsoOn are the other copies of this document, on this or other
	// platforms, each with its own id and link.
	AlsoOn []Copy `json:"also_on,omitempty"`
}
