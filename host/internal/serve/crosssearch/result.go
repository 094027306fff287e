package crosssearch

// Result is the tool's answer.
type Result struct {
	Query        string    `json:"query"`
	Organization string    `json:"organization,omitempty"`
	DateFrom     string    `json:"date_from,omitempty"`
	DateTo       string    `json:"date_to,omitempty"`
	Sections     []Section `json:"platforms"`
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
	Notes     []string       `json:"notes,omitempty"`
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
}
