package openarchivaris

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "openarchivaris"

// Version is the connector's version. It stays below 1.0 while the API
// mapping is unverified.
const Version = "0.1.0"

// Service is the single upstream service.
const Service = "api"

// MaxLimit caps results per search page.
const MaxLimit = 50

// unverified is repeated in every tool description: the assistant must
// know the connector is built on an assumed API.
const unverified = "UNVERIFIED API. "

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:      ID,
		Version: Version,
		Title:   "Open Archivaris",
		Description: "Archive of published Dutch government documents (council documents of municipalities, provinces, water boards and other bodies, municipal websites and more), including documents search engines do not index. " +
			"The connector's API mapping is unverified.",
		DescriptionNL: "Open Archivaris: Woo-documenten van overheden.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 50, OffsetArg: "offset",
			// The search takes the government's name as the list gives it.
			Organization: &connector.OrganizationArg{Arg: "government", ListTool: "list_governments", Value: connector.OrgByTitle},
			Caveat:       "API unverified",
			Keys:         []string{connector.KeySourceURL}},
		SearchFilter: &connector.SearchFilter{Arg: "government", LabelNL: "Overheid", LabelEN: "Government", ListTool: "list_governments"},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the archived documents and the governments' kinds.
		TypeLabels: connector.TypeLabels{
			{Type: "document", NL: "Document", EN: "Document"},
			{Type: "gemeente", NL: "Gemeente", EN: "Municipality"},
			{Type: "provincie", NL: "Provincie", EN: "Province"},
			{Type: "waterschap", NL: "Waterschap", EN: "Water board"},
		},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"openarchivaris.nl", "www.openarchivaris.nl"},
		Services: []connector.Service{{
			Name: Service, Units: 120, Per: connector.Duration(time.Minute), Host: "openarchivaris.nl",
			Description: "120 calls per minute as stated in the project's limits table; not found in the platform's public material (unverified)",
			// The seed's table of observed limits says 120 calls per
			// minute; the platform publishes nothing about it.
			LimitFrom:   connector.LimitMeasured,
			LimitNote:   "120 calls per minute, as BesluitBron's findings observed it.",
			LimitNoteNL: "120 verzoeken per minuut, zoals BesluitBron het heeft waargenomen.",
		}},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:        "search",
				Title:       "Search archived documents",
				Description: unverified + "Search title, author and content of archived documents of Dutch governments. All words must occur (results lacking one are left out, counted); includes scans search engines skip.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 call of 120 per minute (unverified; queued when exceeded). Cached 10 min.",
			},
			{
				Name:        "get_document",
				Title:       "Read an archived document",
				Description: unverified + "Metadata and text of a document by id from openarchivaris_search (without text, a link). Paged, 20 000 bytes a page.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page 1 call (whole document read once); later pages free and fast. Cached for weeks.",
			},
			{
				Name:        "list_governments",
				Title:       "List governments",
				Description: unverified + "Governments archived, with the name for openarchivaris_search's government.",
				InputSchema: json.RawMessage(listGovernmentsSchema),
				CostNote:    "1 call, cached 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "openarchivaris-document",
			URITemplate: "besluitbron://openarchivaris/document/{+id}",
			Description: "An archived document of Open Archivaris by id (first page of its text); unverified API.",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Search words."},
    "government_type": {"type": "string", "description": "e.g. gemeente, provincie, waterschap."},
    "government": {"type": "string", "minLength": 1, "maxLength": 120, "description": "As named by openarchivaris_list_governments."},
    "date_from": {"type": "string", "format": "date", "description": "Inclusive."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "min_pages": {"type": "integer", "minimum": 1, "maximum": 100000},
    "max_pages": {"type": "integer", "minimum": 1, "maximum": 100000},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000}
  },
  "required": ["query"],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "From openarchivaris_search."},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listGovernmentsSchema = `{
  "type": "object",
  "properties": {
    "government_type": {"type": "string", "description": "e.g. waterschap."}
  },
  "additionalProperties": false
}`
