package opentk

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "opentk"

// Version is the connector's version.
const Version = "1.0.0"

// BaseURL is the public tkconv instance.
const BaseURL = "https://berthub.eu/tkconv"

// Services: the full-text search is what costs OpenTK; documents and list
// pages are mostly served from its conversion cache.
const (
	// ServiceSearch counts POST /search.
	ServiceSearch = "search"
	// ServicePages counts document renditions and HTML list pages.
	ServicePages = "pages"
)

// MaxRows is the most rows one OpenTK search returns (LIMIT 280 in its SQL).
const MaxRows = 280

// MaxLimit caps results per page of this connector's slicing.
const MaxLimit = 100

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:      ID,
		Version: Version,
		Title:   "OpenTK",
		Description: "Bert Hubert's OpenTK (tkconv): a full-text searchable mirror of the Tweede Kamer's documents, activities, plenary reports, commitments and gifts, " +
			"plus Woo documents from open.overheid.nl.",
		DescriptionNL: "OpenTK: volledige tekst van documenten en verslagen van de Tweede Kamer.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100,
			Caveat: "OpenTK returns at most 280 rows per search, newest indexed first; dates are filtered within those"},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"berthub.eu"},
		Services: []connector.Service{
			{
				// The seed's table: "no strict limit; the administrator will
				// warn users about costly searches". BesluitBron tracks no
				// limit here; the cache and the tool descriptions keep the
				// load down. An admin can set one in plugins.toml.
				//
				// Both services are on berthub.eu, but what costs OpenTK is
				// its full-text search, not the documents it mostly serves
				// from its conversion cache: a limit an admin sets on one
				// must not hold up the other, so each names its own quota.
				Name:        ServiceSearch,
				Host:        "berthub.eu",
				Quota:       "berthub.eu/search",
				Description: "no strict limit (OpenTK has no rate limiter but shortens searches under load, and its administrator warns about costly searches); set connectors.opentk.limits.search to impose one",
			},
			{
				Name:        ServicePages,
				Host:        "berthub.eu",
				Quota:       "berthub.eu/pages",
				Description: "no strict limit; documents and list pages are cached for weeks; set connectors.opentk.limits.pages to impose one",
			},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Search Tweede Kamer documents (OpenTK)",
				Description: "Full-text search over Tweede Kamer documents (motions, letters, bills, written questions and answers), activities, plenary reports, commitments, gifts to members, and open.overheid.nl Woo documents. " +
					"Syntax: words are ANDed; \"quoted phrase\"; OR, NOT, NEAR(a b); prefix*; words with - or . are quoted automatically. " +
					"LIMITS: OpenTK has no paging and returns at most 280 rows per search (the most recently indexed); offset, limit, sort, category and date filters are applied by this connector to those rows only, so narrow the query (phrase, more words, last_two_months, kind) rather than paging deep. " +
					"There is no total count. Under load OpenTK cuts searches short, so results may be partial; the notes say when that may have happened. " +
					"Use opentk_get_document with a result's id for the text of a Document or Verslag.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "One full-text search on OpenTK's server per call: a costly operation for the platform, so search only when titles from a cheaper tool do not answer; the same query with another offset, sort or filter is served from the cache for 10 minutes, so paging is free.",
			},
			{
				Name:  "get_document",
				Title: "Read a Tweede Kamer document or plenary report (OpenTK)",
				Description: "Plain text of a Tweede Kamer document by its number (e.g. 2024D41173) or id, converted from OpenTK's HTML rendition of the original PDF/DOCX, " +
					"or, with category Verslag and the meeting id from opentk_search, the report of that plenary sitting. Activities, commitments, gifts and Woo documents have no full text here: cite their url. " +
					"Tables and layout are lost in conversion. " +
					"Texts can be long: a converted Kamerstuk or report, or the report of a full plenary sitting, can run to a megabyte of text or more, over 50 pages of 20 000 bytes; read it page by page (pass page, 1-based; the result states page and pages) and stop when the question is answered.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "The first page is one page fetch; a document OpenTK has not converted before can take seconds. The text is extracted once and kept by the host (up to 28 days): later pages cost OpenTK nothing and are fast.",
			},
			{
				Name:        "list_committees",
				Title:       "List Tweede Kamer committees (OpenTK)",
				Description: "The committees of the Tweede Kamer with their abbreviation, whether they were active since 2023, and the date of their latest activity. Read from OpenTK's committees page.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "One page fetch, cached for 30 days.",
			},
			{
				Name:        "list_members",
				Title:       "List current Tweede Kamer members (OpenTK)",
				Description: "The sitting members of the Tweede Kamer with their party (fractie) and seat number; vacancies are left out. Read from OpenTK's members page.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "One page fetch, cached for 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "opentk-document",
			URITemplate: "besluitbron://opentk/document/{+nummer}",
			Description: "A Tweede Kamer document in OpenTK by its number (first page of its text).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "FTS query: words ANDed, \"phrase\", OR, NOT, NEAR(a b), prefix*."},
    "kind": {"type": "string", "enum": ["all", "motions", "questions", "activities"], "default": "all", "description": "Searched by OpenTK: all, only motions, only written questions and answers, or only activities."},
    "last_two_months": {"type": "boolean", "default": false, "description": "Searched by OpenTK: only the last 60 days."},
    "category": {"type": "string", "enum": ["Document", "Activiteit", "Verslag", "Toezegging", "PersoonGeschenk", "OODocument"], "description": "Filtered by this connector within the at most 280 rows."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Filtered by this connector within the at most 280 rows; ISO date, inclusive."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Filtered by this connector within the at most 280 rows; ISO date, inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc", "relevance", "indexed"], "default": "date_desc", "description": "Sorted by this connector; indexed is OpenTK's own order (newest indexed first)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 279, "default": 0}
  },
  "required": ["query"],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "nummer": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9-]{3,63}$", "description": "Document number (2024D41173) or id from opentk_search; for a Verslag the meeting id."},
    "category": {"type": "string", "enum": ["Document", "Verslag"], "default": "Document"},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["nummer"],
  "additionalProperties": false
}`

const emptySchema = `{"type": "object", "properties": {}, "additionalProperties": false}`
