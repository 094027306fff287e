package openarchivaris

import (
	"encoding/json"
	"time"

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
const unverified = "UNVERIFIED: Open Archivaris publishes no API documentation; this tool follows an assumed JSON API and reports an error, never a guess, when the platform answers differently. "

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:      ID,
		Version: Version,
		Title:   "Open Archivaris",
		Description: "Archive of published Dutch government documents (council documents of municipalities, provinces, water boards and other bodies, municipal websites and more), including documents search engines do not index. " +
			"The connector's API mapping is unverified.",
		DescriptionNL: "Open Archivaris: Woo-documenten van overheden.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 50,
			// The search takes the government's name as the list gives it.
			Organization: &connector.OrganizationArg{Arg: "government", ListTool: "list_governments", Value: connector.OrgByTitle},
			Caveat:       "Open Archivaris's API is unverified"},
		SearchFilter: &connector.SearchFilter{Arg: "government", LabelNL: "Overheid", LabelEN: "Government", ListTool: "list_governments"},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"openarchivaris.nl", "www.openarchivaris.nl"},
		Services: []connector.Service{{
			Name: Service, Units: 120, Per: connector.Duration(time.Minute), Host: "openarchivaris.nl",
			Description: "120 calls per minute as stated in the project's limits table; not found in the platform's public material (unverified)",
		}},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Search archived government documents (Open Archivaris)",
				Description: unverified +
					"Searches the title, author and content of archived documents of all Dutch governments at once, or filtered by type of government, one government (a name from openarchivaris_list_governments), document date and size in pages. " +
					"The platform ranks documents with all words first, then those with fewer; its web search also treats a government's name in the words as a filter. " +
					"Its documents include scans and pages search engines skip, so it may find what other connectors cannot; cite the url.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "One call of a 120-per-minute limit (queued when exceeded; the limit itself is unverified). Repeating a search within 10 minutes is free (cached).",
			},
			{
				Name:  "get_document",
				Title: "Read an archived document (Open Archivaris)",
				Description: unverified +
					"Metadata and text of one archived document by its id from openarchivaris_search. Whether the platform serves full text through its API is unknown; when it gives none, the result says so and links the document. " +
					"Texts come in pages of 20 000 bytes: pass page (1-based); the result states page and pages. A council document can run to over 1 MB, 50 or more pages: read it page by page.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "One call of the 120-per-minute limit for the first page (the whole document travels and is read once). Later pages come from the text BesluitBron keeps: they cost no call and are fast. Cached for weeks.",
			},
			{
				Name:        "list_governments",
				Title:       "List governments (Open Archivaris)",
				Description: unverified + "The governments whose documents Open Archivaris archives, with the name to pass as government to openarchivaris_search.",
				InputSchema: json.RawMessage(listGovernmentsSchema),
				CostNote:    "One call, cached for 30 days.",
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
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Search words; documents with all words rank first."},
    "government_type": {"type": "string", "pattern": "^[a-z][a-z_ -]{1,39}$", "description": "Type of government, e.g. gemeente, provincie, waterschap (values unverified)."},
    "government": {"type": "string", "minLength": 1, "maxLength": 120, "description": "One government, as named by openarchivaris_list_governments."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Document date, ISO, inclusive."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "Document date, ISO, inclusive."},
    "min_pages": {"type": "integer", "minimum": 1, "maximum": 100000, "description": "Only documents of at least this many pages."},
    "max_pages": {"type": "integer", "minimum": 1, "maximum": 100000, "description": "Only documents of at most this many pages."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 0}
  },
  "required": ["query"],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$", "description": "Document id from openarchivaris_search."},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listGovernmentsSchema = `{
  "type": "object",
  "properties": {
    "government_type": {"type": "string", "pattern": "^[a-z][a-z_ -]{1,39}$", "description": "Only this type, e.g. waterschap (values unverified)."}
  },
  "additionalProperties": false
}`
