package connector

// The normalised results below are what every connector's search,
// get_document and list tools answer as their structured JSON
// ([CallResult.Structured]), and what the host's own features (the search
// page, the cross-platform search, the freshness checks) decode it into.
// They are part of the contract: a connector writes them (through the sdk's
// aliases), the host reads them.

// SearchResult is the normalised answer of every connector's search tool.
type SearchResult struct {
	// Platform is the connector id.
	Platform string `json:"platform"`
	// Total is the number of matches the platform reports, when it does.
	Total *int `json:"total,omitempty"`
	// TotalIsApproximate is set when the platform says Total is an estimate.
	TotalIsApproximate bool `json:"total_is_approximate,omitempty"`
	// HasMore tells whether a next page exists (offset + len(Results)).
	HasMore bool   `json:"has_more"`
	Offset  int    `json:"offset"`
	Results []Item `json:"results"`
	// Notes are caveats the model should pass on (partial results, filters
	// the platform ignores, stale data).
	Notes []string `json:"notes,omitempty"`
}

// Item is one normalised search hit or list entry.
type Item struct {
	ID    string `json:"id"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title"`
	// Date is an ISO date (YYYY-MM-DD) when known.
	Date string `json:"date,omitempty"`
	// Organization is the source: municipality, chamber, court.
	Organization string `json:"organization,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	// URL links to the original document, for citation.
	URL string `json:"url,omitempty"`
	// Keys are the document's stable keys by kind (KeySourceURL, …), as
	// the connector's search profile declares them, normalised by the
	// sdk (sdk.DocKeys): the same document on another platform has the
	// same key.
	Keys map[string]string `json:"keys,omitempty"`
	// Extra holds platform-specific fields under the connector id.
	Extra map[string]map[string]any `json:"extra,omitempty"`
}

// Document is the normalised full text of one document, one page at a time.
type Document struct {
	Platform     string `json:"platform"`
	ID           string `json:"id"`
	Type         string `json:"type,omitempty"`
	Title        string `json:"title"`
	Date         string `json:"date,omitempty"`
	Organization string `json:"organization,omitempty"`
	URL          string `json:"url,omitempty"`
	// Format is "markdown" or "text".
	Format string `json:"format"`
	// Page is 1-based; Pages is the number of pages of Text.
	Page  int                       `json:"page"`
	Pages int                       `json:"pages"`
	Text  string                    `json:"text"`
	Extra map[string]map[string]any `json:"extra,omitempty"`
}

// ListResult is a rarely changing list (sources, committees, value lists).
type ListResult struct {
	Platform string `json:"platform"`
	List     string `json:"list"`
	Count    int    `json:"count"`
	Items    []Item `json:"items"`
}
