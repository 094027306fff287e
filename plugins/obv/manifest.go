package obv

import (
	"encoding/json"
	"math"
	"time"

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
		DescriptionNL: "Raadsinformatie (vergaderingen, documenten, moties met stemmingen, opnames) van ruim 330 gemeenten, provincies en waterschappen.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100,
			Organization: &connector.OrganizationArg{Arg: "organization", ListTool: "list_sources", ListArgs: json.RawMessage(`{"implemented_only":true}`), Value: connector.OrgByID}},
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Gemeente of bron", LabelEN: "Municipality or source", ListTool: "list_sources"},
		Freshness:    &connector.Freshness{Tool: "status", Arguments: json.RawMessage(`{"state":"all"}`), Reads: connector.FreshnessSources},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"openbesluitvorming.nl"},
		Services: []connector.Service{{
			Name: Service, Units: 60, Per: connector.Duration(time.Minute), Host: "openbesluitvorming.nl",
			Description: "token bucket of 60 weighted units per minute per client; search costs max(1, ceil(limit/24)), other calls 1",
		}},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
			{Name: ClassStatus, TTL: connector.Duration(5 * time.Minute)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Search council information (OpenBesluitvorming)",
				Description: "Search meetings, documents, motions and recordings of Dutch municipal councils, provinces and water boards. " +
					"Give a query, an organization (source key from obv_list_sources, e.g. \"soest\"), or both; without organization all 330 sources are searched. " +
					"Words are ANDed; there is no phrase search. Dates filter on the meeting/document date; with a query, old date ranges may be incomplete. " +
					"Totals are approximate; page with offset while has_more is true.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 unit per 24 results (limit 24 costs 1, limit 100 costs 5) of a 60-units-per-minute platform limit; searching all sources is as cheap as one source. Repeating a search within 10 minutes is free (cached).",
			},
			{
				Name:  "get_document",
				Title: "Read a document, meeting, motion or recording (OpenBesluitvorming)",
				Description: "Full text (markdown) of a document, or the agenda, motions and votes of a meeting, or a motion's votes, by entity id from obv_search. " +
					"Texts come in pages of 20 000 bytes: pass page (1-based); the result states page and pages. A council document can run to over 1 MB, 50 or more pages: read it page by page.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "1 unit for the first page, the slowest call of this platform (the whole entity, up to several MB, travels and is read once). Later pages come from the text BesluitBron keeps: they cost no unit and are fast. Cached for weeks.",
			},
			{
				Name:        "list_sources",
				Title:       "List sources (OpenBesluitvorming)",
				Description: "The municipalities, provinces and water boards OpenBesluitvorming covers, with the source key to use as organization in obv_search.",
				InputSchema: json.RawMessage(listSourcesSchema),
				CostNote:    "1 unit, cached for 30 days.",
			},
			{
				Name:  "status",
				Title: "Import freshness per source (OpenBesluitvorming)",
				Description: "How current OpenBesluitvorming's data is: per supplier (notubiz, ibabs, …) whether imports succeed, and per source (municipality, province, water board) its state " +
					"(ok, stale, failing, never_imported, not_implemented, discontinued), last successful import and newest meeting held. " +
					"Use it before telling a user that a council has nothing on a topic: a stale or failing source may simply not have the newest documents. " +
					"Give source (key or name, e.g. \"soest\" or \"Soest\") for one organisation; without it, only sources with problems are listed (state \"all\" lists every source).",
				InputSchema: json.RawMessage(statusSchema),
				CostNote:    "1 unit, cached for 5 minutes (the platform itself refreshes this every 10 minutes).",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "obv-document",
			URITemplate: "besluitbron://obv/document/{+entity_id}",
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
			Template: "Find out what the council of {{municipality}} discussed and decided about {{topic}}. First call obv_list_sources to find the source key of {{municipality}}, then obv_search with that organization and the query \"{{topic}}\" (entity_type Motion for decisions), and read the most relevant documents with obv_get_document. Cite each document by its url.",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Free text; words are ANDed, punctuation is ignored."},
    "organization": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Source key from obv_list_sources (case-sensitive), e.g. \"soest\". Omit to search all sources."},
    "entity_type": {"type": "string", "enum": ["Meeting", "Document", "Motion", "Recording"]},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc", "relevance"], "default": "date_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 24, "description": "Results per page; 24 is the cheapest page."},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 0}
  },
  "anyOf": [{"required": ["query"]}, {"required": ["organization"]}],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "entity_id": {"type": "string", "minLength": 3, "maxLength": 300, "pattern": "^[A-Za-z]+:", "description": "Entity id from obv_search, e.g. document:notubiz:gemeente:soest:12345"},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["entity_id"],
  "additionalProperties": false
}`

const statusSchema = `{
  "type": "object",
  "properties": {
    "source": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Source key from obv_list_sources (e.g. \"soest\") or the organisation's name (\"Soest\")."},
    "supplier": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,39}$", "description": "Only this supplier, e.g. notubiz, ibabs, gemeenteoplossingen, parlaeus."},
    "state": {"type": "string", "enum": ["problems", "all", "ok", "stale", "failing", "never_imported", "not_implemented", "discontinued"], "description": "Which sources to list; default problems (stale, failing, never_imported), or all when source is given."}
  },
  "additionalProperties": false
}`

const listSourcesSchema = `{
  "type": "object",
  "properties": {
    "implemented_only": {"type": "boolean", "default": true, "description": "Only sources with data (default true)."}
  },
  "additionalProperties": false
}`
