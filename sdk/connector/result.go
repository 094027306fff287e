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

// Document is the normalised full text of one document, one page at a
// time; or, for a call with a find argument, where words occur in it
// (Find).
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
	// Page is 1-based; Pages is the number of pages of Text. An answer to
	// a find has no page (0): its Text is a one-line summary of Find.
	Page  int    `json:"page,omitempty"`
	Pages int    `json:"pages"`
	Text  string `json:"text"`
	// Find answers a find argument: the pages of the whole text that
	// hold the words asked for, with snippets.
	Find  *Found                    `json:"find,omitempty"`
	Extra map[string]map[string]any `json:"extra,omitempty"`
}

// Found is the answer to a find in a document: words or quoted phrases
// looked for in its whole text, folded as a Dutch reader compares them
// (case and diacritics ignored, ĳ as ij, white space as one space; see
// sdk.Fold). A page matches when it holds every term; its matches are
// the occurrences of the terms on it. The answer stays small (30 KB with
// the rest of the document's result): at most three snippets a page, and
// when pages or snippets had to be left out, Truncated says so, while
// Matches and PagesMatched still count them all.
type Found struct {
	// Query is the find argument as given.
	Query string `json:"query"`
	// Terms are what was looked for, each word and each quoted phrase
	// folded, with its matches in the whole text (on any page).
	Terms []FoundTerm `json:"terms"`
	// Matches counts the terms' occurrences on the pages that match.
	Matches int `json:"matches"`
	// PagesMatched is how many pages match; Pages lists them in order,
	// or the first ones when Truncated.
	PagesMatched int         `json:"pages_matched"`
	Pages        []FoundPage `json:"pages"`
	// Truncated: pages or snippets were left out to keep the answer small.
	Truncated bool `json:"truncated,omitempty"`
}

// FoundTerm is one word or phrase of a find.
type FoundTerm struct {
	Term    string `json:"term"`
	Matches int    `json:"matches"`
}

// FoundPage is a page of the text that matches a find: the page argument
// that reads it, its matches, and snippets of its text around them.
type FoundPage struct {
	Page    int `json:"page"`
	Matches int `json:"matches"`
	// SourcePage is the page of the original (a PDF's page) where the
	// page's first match is, when the text marks the original's pages;
	// Link opens the original there (a PDF's URL with #page=N), when
	// the platform has a file to open.
	SourcePage int       `json:"source_page,omitempty"`
	Link       string    `json:"link,omitempty"`
	Snippets   []Snippet `json:"snippets,omitempty"`
}

// Snippet is a short stretch of a document's text, about 120 characters
// either side of a match (a few matches close together share one), cut
// at word boundaries and its white space collapsed; "…" marks a cut.
type Snippet struct {
	Text string `json:"text"`
	// SourcePage and Link are the snippet's own, as in FoundPage.
	SourcePage int    `json:"source_page,omitempty"`
	Link       string `json:"link,omitempty"`
}

// ListResult is a rarely changing list (sources, committees, value lists).
type ListResult struct {
	Platform string `json:"platform"`
	List     string `json:"list"`
	Count    int    `json:"count"`
	Items    []Item `json:"items"`
}
