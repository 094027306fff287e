package obv

import (
	"encoding/json"
	"math"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "obv"

// Version is the connector's version; it is part of every cache key's stamp
// through the module hash.
const Version = "1.0.0"

// BaseURL is the platform's default address; every request is built on it
// (the host rewrites it when the admin overrides base_url).
const BaseURL = "https://openbesluitvorming.nl"

// PageBase is the public site citations point at. It is not BaseURL on
// purpose: a mirror or simulator the admin sets as base_url serves the API,
// while a reader follows the citation to the platform itself.
const PageBase = "https://openbesluitvorming.nl"

// Service is the single upstream service: the whole /api/* rate limiter.
const Service = "api"

// SearchCost is what the platform charges for a search with the requested
// limit: max(1, ceil(limit/24)) units (web/rate_limit.ts). The platform has
// changed this formula before; keep it here only.
func SearchCost(limit int) float64 {
	if limit <= 0 {
		return 1
	}
	return math.Max(1, math.Ceil(float64(limit)/24))
}

// MaxLimit is the platform's cap on results per search page.
const MaxLimit = 100

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:            ID,
		Version:       Version,
		Title:         "OpenBesluitvorming",
		Description:   "Council information (meetings, documents, motions with votes, recordings) of 330 Dutch municipalities, provinces and water boards; the successor of Open Raadsinformatie.",
		DescriptionNL: "Raadsinformatie (vergaderingen, documenten, moties met stemmingen, opnames) van 330 gemeenten, provincies en waterschappen.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100, OffsetArg: "offset",
			Organization: &connector.OrganizationArg{Arg: "organization", ListTool: "list_sources", ListArgs: json.RawMessage(`{"implemented_only":true}`), Value: connector.OrgByID},
			// The councils' own file, which ori and openarchivaris harvest too.
			Keys: []string{connector.KeySourceURL}},
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Gemeente of bron", LabelEN: "Municipality or source", ListTool: "list_sources"},
		Freshness:    &connector.Freshness{Tool: "status", Arguments: json.RawMessage(`{"state":"all"}`), Reads: connector.FreshnessSources},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the entity types of search and documents
		// (Document, Meeting, Motion, Recording), the agenda items and votes
		// inside a meeting, and the sources' kinds of organisation.
		TypeLabels: connector.TypeLabels{
			{Type: "Document", NL: "Document", EN: "Document"},
			{Type: "Meeting", NL: "Vergadering", EN: "Meeting"},
			{Type: "Motion", NL: "Motie", EN: "Motion"},
			{Type: "Recording", NL: "Opname", EN: "Recording"},
			{Type: "AgendaItem", NL: "Agendapunt", EN: "Agenda item"},
			{Type: "Vote", NL: "Stemming", EN: "Vote"},
			{Type: "gemeente", NL: "Gemeente", EN: "Municipality"},
			{Type: "provincie", NL: "Provincie", EN: "Province"},
			{Type: "waterschap", NL: "Waterschap", EN: "Water board"},
		},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"openbesluitvorming.nl"},
		Services: []connector.Service{{
			Name: Service, Units: 60, Per: connector.Duration(time.Minute), Host: "openbesluitvorming.nl",
			Description: "token bucket of 60 weighted units per minute per client; search costs max(1, ceil(limit/24)), other calls 1",
			LimitFrom:   connector.LimitPublished,
			LimitWhere:  "openbesluitvorming.nl/docs/api",
			LimitNote:   "60 weighted units per minute per client address, enforced by the platform itself (429 with Retry-After and RateLimit-* headers).",
			LimitNoteNL: "60 gewogen eenheden per minuut per clientadres, door het platform zelf afgedwongen (429 met Retry-After en RateLimit-*-headers).",
		}},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
			{Name: ClassStatus, TTL: connector.Duration(5 * time.Minute)},
		},
		Tools: []connector.Tool{
			{
				Name:        "search",
				Title:       "Search council information",
				Description: "Search meetings, documents, motions and recordings of councils, provinces and water boards by query, organization or both (without organization: all 330 sources). organization takes a source key or a name; a name of several sources (Bergen, Groningen) is asked about, or the error lists them with their keys. Words ANDed, no phrases. With a query, old date ranges may be incomplete; totals are approximate.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "ceil(limit/24) units (at least 1) of 60 per minute; all sources cost as much as one. Cached 10 min. organization reads the source list (1 unit, cached 30 days).",
			},
			{
				Name:        "get_document",
				Title:       "Read a council document or meeting",
				Description: "Text (markdown) of a document, or the agenda, motions and votes of a meeting or motion, by entity_id from obv_search. Paged, 20 000 bytes a page.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page 1 unit, the slowest call (whole entity read once); later pages free and fast. Cached for weeks.",
			},
			{
				Name:        "list_sources",
				Title:       "List council sources",
				Description: "Municipalities, provinces and water boards covered, with the key for obv_search's organization.",
				InputSchema: json.RawMessage(listSourcesSchema),
				CostNote:    "1 unit, cached 30 days.",
			},
			{
				Name:        "status",
				Title:       "Import freshness per source",
				Description: "Import freshness per supplier and per source (state, last import, newest meeting). Check it before saying a council has nothing on a topic. Without source, only sources with problems.",
				InputSchema: json.RawMessage(statusSchema),
				CostNote:    "1 unit, cached 5 min.",
			},
		},
		// Elicitation asks which source a name of several means
		// ("Bergen": Noord-Holland or Limburg; "Groningen": municipality
		// or province). It is only asked for: the admin grants it
		// (connectors.obv.grant), and without it the tool error lists the
		// candidates.
		ClientFeatures: []string{connector.FeatureElicitation},
		Resources: []connector.ResourceTemplate{{
			Name:        "obv-document",
			URITemplate: "besluitbron://obv/document/{+id}",
			Description: "A document, meeting or motion of OpenBesluitvorming by entity id (first page of its text).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
		Prompts: []connector.Prompt{{
			Name:        "council_topic",
			Description: "Research what a municipal council decided about a topic.",
			Arguments: []connector.PromptArgument{
				{Name: "topic", Description: "the subject, e.g. woningbouw", Required: true},
				{Name: "municipality", Description: "the municipality, e.g. Soest", Required: true},
			},
			Template: "Find out what the council of {{municipality}} discussed and decided about {{topic}}. Call obv_search with organization \"{{municipality}}\" (a name works; if it fits several sources the user is asked which, or the error lists them with their keys: then ask the user and pass the key) and the query \"{{topic}}\" (entity_type Motion for decisions), and read the most relevant documents with obv_get_document. Cite each document by its url.",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Free text; words ANDed."},
    "organization": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Source key from obv_list_sources (case-sensitive; soest, bergen_nh) or a name (Soest, Bergen (NH))."},
    "entity_type": {"type": "string", "enum": ["Meeting", "Document", "Motion", "Recording"]},
    "date_from": {"type": "string", "format": "date", "description": "Inclusive."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc", "relevance"], "default": "date_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 24, "description": "24 is the cheapest page."},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000}
  },
  "anyOf": [{"required": ["query"]}, {"required": ["organization"]}],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "maxLength": 300, "description": "From obv_search, e.g. document:notubiz:gemeente:soest:12345"},
    "entity_id": {"type": "string", "maxLength": 300, "description": "Old name of id."},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "additionalProperties": false
}`

const statusSchema = `{
  "type": "object",
  "properties": {
    "source": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Source key or name, e.g. soest; a name of several sources lists each."},
    "supplier": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,39}$", "description": "e.g. notubiz, ibabs, gemeenteoplossingen, parlaeus."},
    "state": {"type": "string", "enum": ["problems", "all", "ok", "stale", "failing", "never_imported", "not_implemented", "discontinued"], "description": "Default: problems (stale, failing, never_imported), or all for one source."}
  },
  "additionalProperties": false
}`

const listSourcesSchema = `{
  "type": "object",
  "properties": {
    "implemented_only": {"type": "boolean", "default": true, "description": "Only sources with data."}
  },
  "additionalProperties": false
}`
