package opentk

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
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
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100, OffsetArg: "offset",
			Caveat: "at most 280 rows per search, newest indexed; dates filter within those",
			Keys:   []string{connector.KeyTKDocument}},
		// The record types people see on the search page and the Laadstatus,
		// in their words: OpenTK's categories, the Soort of a document read,
		// and the list tools' committees and members.
		TypeLabels: connector.TypeLabels{
			{Type: "Document", NL: "Document", EN: "Document"},
			{Type: "Verslag", NL: "Verslag", EN: "Record of proceedings"},
			{Type: "Activiteit", NL: "Activiteit", EN: "Activity"},
			{Type: "Toezegging", NL: "Toezegging", EN: "Commitment"},
			{Type: "PersoonGeschenk", NL: "Geschenk aan een Kamerlid", EN: "Gift to a Member of Parliament"},
			{Type: "OODocument", NL: "Openbaar gemaakt document", EN: "Disclosed document"},
			{Type: "Motie", NL: "Motie", EN: "Motion"},
			{Type: "Brief regering", NL: "Brief regering", EN: "Letter from the government"},
			{Type: "Schriftelijke vraag", NL: "Schriftelijke vraag", EN: "Written question"},
			{Type: "Commissie", NL: "Commissie", EN: "Committee"},
			{Type: "Tweede Kamerlid", NL: "Tweede Kamerlid", EN: "Member of the House of Representatives", Proper: true},
		},
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
				LimitFrom:   connector.LimitUnknown,
				LimitNote:   "No strict limit: the administrator warns about costly searches, and the server shortens searches under load.",
				LimitNoteNL: "Geen vaste limiet: de beheerder waarschuwt voor zware zoekopdrachten, en de server kort zoekopdrachten in als het druk is.",
			},
			{
				Name:        ServicePages,
				Host:        "berthub.eu",
				Quota:       "berthub.eu/pages",
				Description: "no strict limit; documents and list pages are cached for weeks; set connectors.opentk.limits.pages to impose one",
				LimitFrom:   connector.LimitUnknown,
				LimitNote:   "Documents and pages come mostly from the server's conversion cache.",
				LimitNoteNL: "Documenten en pagina's komen vooral uit de conversiecache van de server.",
			},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:        "search",
				Title:       "Search Kamer full text (OpenTK)",
				Description: "Full-text search over Tweede Kamer documents, activities, plenary reports, commitments, gifts and Woo documents. At most 280 rows (newest indexed), no paging or total upstream: offset, sort, category and dates apply within those, so narrow the query. Results may be partial under load.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "One full-text search, costly for OpenTK: prefer cheaper tools when titles suffice. Other offsets, sorts or filters of a query: cached 10 min, free.",
			},
			{
				Name:        "get_document",
				Title:       "Read a Kamer text (OpenTK)",
				Description: "Text of a document by number (2024D41173) or id; with category Verslag and a meeting id, a plenary report. Other categories have no text: cite their url. Paged, 20 000 bytes a page.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page: 2 fetches, text and metadata (seconds if OpenTK has not converted it yet); later pages free and fast.",
			},
			{
				Name:        "list_committees",
				Title:       "List committees (OpenTK)",
				Description: "Committees with abbreviation, active since 2023 or not, latest activity.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "1 fetch, cached 30 days.",
			},
			{
				Name:        "list_members",
				Title:       "List members (OpenTK)",
				Description: "Sitting members with party (fractie) and seat number.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "1 fetch, cached 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "opentk-document",
			URITemplate: "besluitbron://opentk/document/{+id}",
			Description: "A Tweede Kamer document in OpenTK by its number (first page of its text).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Words ANDed, \"phrase\", OR, NOT, NEAR(a b), prefix*."},
    "kind": {"type": "string", "enum": ["all", "motions", "questions", "activities"], "default": "all", "description": "Applied by OpenTK."},
    "last_two_months": {"type": "boolean", "default": false, "description": "Only the last 60 days."},
    "category": {"type": "string", "enum": ["Document", "Activiteit", "Verslag", "Toezegging", "PersoonGeschenk", "OODocument"], "description": "Within the 280 rows."},
    "date_from": {"type": "string", "format": "date", "description": "ISO, inclusive; within the 280 rows."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc", "relevance", "indexed"], "default": "date_desc", "description": "indexed: OpenTK's own order."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 279}
  },
  "required": ["query"],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "Number (any case, e.g. 2025D05511) or id from opentk_search; for Verslag the meeting id."},
    "nummer": {"type": "string", "description": "Old name of id."},
    "category": {"type": "string", "enum": ["Document", "Verslag"], "default": "Document"},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "additionalProperties": false
}`

const emptySchema = `{"type": "object", "properties": {}, "additionalProperties": false}`
