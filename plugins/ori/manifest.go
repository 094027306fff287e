package ori

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "ori"

// Version is the connector's version.
const Version = "1.0.0"

// Service is the single upstream service: the Elasticsearch proxy.
const Service = "elastic"

// BaseURL is the default upstream base: the Elasticsearch proxy's prefix.
const BaseURL = "https://api.openraadsinformatie.nl/v1/elastic"

// MaxLimit caps results per search page. Hits come without their text, but
// a page of 50 is already as much as an assistant can weigh.
const MaxLimit = 50

// MaxWindow is Elasticsearch's default max_result_window: from + size may
// not exceed it.
const MaxWindow = 10000

// shutdownNote is repeated in every tool description: an assistant must
// know before calling that the platform may be gone and where to go instead.
const shutdownNote = "NOTE: ORI Classic was announced to be switched off in autumn 2026 (1 October 2026 per OpenBesluitvorming, 1 November 2026 per the ORI API docs) and may no longer answer; the obv connector (OpenBesluitvorming, obv_search) indexes the same sources and should be preferred. "

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:      ID,
		Version: Version,
		Title:   "Open Raadsinformatie (Classic)",
		Description: "Council documents of Dutch municipalities, provinces and water boards through the public Elasticsearch API of Open Raadsinformatie Classic. " +
			"Announced to close in autumn 2026; OpenBesluitvorming (obv) indexes the same sources.",
		DescriptionNL: "Open Raadsinformatie: het oudere archief van raadsdocumenten, de voorganger van OpenBesluitvorming.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 50,
			Organization: &connector.OrganizationArg{Arg: "organization", ListTool: "list_organizations", Value: connector.OrgByID},
			Caveat:       "ORI Classic was announced to close in autumn 2026 and indexes the same councils as OpenBesluitvorming (obv)",
			Note:         "ORI Classic was announced to close in autumn 2026; OpenBesluitvorming (obv) indexes the same councils and may list the same documents under other ids."},
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Gemeente of bron", LabelEN: "Municipality or source", ListTool: "list_organizations"},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"api.openraadsinformatie.nl"},
		Services: []connector.Service{{
			Name: Service, Units: 0, Host: "api.openraadsinformatie.nl",
			Description: "no rate limit published or observed; calls are not queued",
		}},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Search council documents (Open Raadsinformatie Classic)",
				Description: shutdownNote +
					"Full-text search in the documents (and, best effort, meetings and agenda items) of Dutch municipal councils, provinces and water boards. " +
					"Without organization all organisations are searched; with organization (a key from ori_list_organizations, e.g. \"soest\") only that one. " +
					"Query syntax is Elasticsearch simple_query_string: words are ANDed, \"quotes\" for a phrase, | for OR, - to exclude, * for a prefix. " +
					"Dates filter on the date the document was last discussed. Totals above 10000 are reported as approximate, and offset + limit may not exceed 10000. " +
					"Ids are ORI's numeric ids: they are not stable across re-indexing and do not exist in OpenBesluitvorming.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "No platform limit, not queued. Searching all organisations touches every index (about 330) and is slower than searching one; hits come without their text. Repeating a search within 10 minutes is free (cached).",
			},
			{
				Name:  "get_document",
				Title: "Read a document (Open Raadsinformatie Classic)",
				Description: shutdownNote +
					"Full text of one document by its ORI id from ori_search (markdown when ORI has it, else plain text, with page markers of the original). " +
					"ORI extracted at most 100 pages of the original per file, but a council document can still run to over 1 MB of text: 50 or more pages of 20 000 bytes. " +
					"Texts come in pages: pass page (1-based); the result states page and pages; read a long one page by page. " +
					"Giving the organization key as well makes the lookup touch one index instead of all.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "The first page is the most expensive call of this platform (the whole item, up to several MB, travels and is read once), not queued. Later pages come from the text BesluitBron keeps: they cost the platform nothing and are fast. Cached for weeks.",
			},
			{
				Name:  "list_organizations",
				Title: "List organisations (Open Raadsinformatie Classic)",
				Description: shutdownNote +
					"The municipalities, provinces and water boards in ORI Classic, with the key to pass as organization to ori_search and the index it lives in.",
				InputSchema: json.RawMessage(listOrganizationsSchema),
				CostNote:    "One call, cached for 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "ori-document",
			URITemplate: "besluitbron://ori/document/{+id}",
			Description: "A document of Open Raadsinformatie Classic by its numeric id (first page of its text).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Elasticsearch simple_query_string: words ANDed, \"phrase\", a | b, -word, prefix*."},
    "organization": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_]{0,79}$", "description": "Organisation key from ori_list_organizations, e.g. \"soest\" or \"den_helder\". Omit to search all."},
    "type": {"type": "string", "enum": ["document", "meeting", "agenda_item"], "description": "Only this kind of item. Since 2023 ORI only maintains documents; meetings and agenda items are best effort."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive, on last_discussed_at."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive, on last_discussed_at."},
    "sort": {"type": "string", "enum": ["relevance", "date_desc", "date_asc"], "description": "Default relevance with a query, date_desc without."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 9999, "default": 0}
  },
  "anyOf": [{"required": ["query"]}, {"required": ["organization"]}],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "pattern": "^[0-9]{1,20}$", "description": "ORI id from ori_search, e.g. \"6074541\"."},
    "organization": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_]{0,79}$", "description": "Optional organisation key, to look in one index only."},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listOrganizationsSchema = `{
  "type": "object",
  "properties": {
    "classification": {"type": "string", "enum": ["municipality", "province", "water"], "description": "Only this kind of organisation; omit for all."}
  },
  "additionalProperties": false
}`
