package example

import (
	"encoding/json"
	"math"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

const (
	// ID is the connector id; the host prefixes every tool with it
	// ("example_search").
	ID = "example"
	// BaseURL is the platform's default address. Every request is built
	// on it: when the admin overrides base_url (a mirror, the simulator),
	// the host rewrites this prefix, so the connector never needs to know.
	BaseURL = "https://openbesluitvorming.nl"
	// Service is the one upstream service every request counts against.
	Service = "api"
	// MaxLimit is the platform's cap on results per search page.
	MaxLimit = 100
)

// searchCost is what the platform charges for a search of limit results:
// max(1, ceil(limit/24)) units. Declaring the true cost lets the host's
// scheduler keep us under the platform's limit instead of meeting a 429.
func searchCost(limit int) float64 {
	return math.Max(1, math.Ceil(float64(limit)/24))
}

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:            ID,
		Version:       "1.0.0",
		Title:         "OpenBesluitvorming (example connector)",
		TitleNL:       "OpenBesluitvorming (voorbeeldconnector)",
		Description:   "Template connector: searches the council information of Dutch municipalities, provinces and water boards on OpenBesluitvorming, reads documents and lists the sources. A small copy of the obv connector, for connector authors.",
		DescriptionNL: "Voorbeeldconnector: zoeken in de raadsinformatie van gemeenten, provincies en waterschappen op OpenBesluitvorming.",
		// The organisation choice on the search page: the search argument
		// that takes it, and the list tool whose items offer the values.
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Gemeente of bron", LabelEN: "Municipality or source", ListTool: "list_sources"},
		// besluitbron_search: the platform searches words (free_text), and
		// an organisation name ("Gemeente Soest") is looked up in
		// list_sources, whose item id (the source key) the search takes.
		SearchProfile: &connector.SearchProfile{
			Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: MaxLimit, OffsetArg: "offset",
			Organization: &connector.OrganizationArg{Arg: "organization", ListTool: "list_sources", Value: connector.OrgByID},
		},
		// The Laadstatus reads the date of the newest result of a
		// newest-first search (the platform's default order). The
		// platform searches only with a query or an organisation, so it
		// asks for one busy council's newest record; obv reads the
		// platform's per-source /api/status instead.
		Freshness: &connector.Freshness{Tool: "search", Arguments: json.RawMessage(`{"organization":"amsterdam","limit":1}`),
			Reads: connector.FreshnessNewest, Type: "record (Amsterdam)"},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the entity types of search and documents, and the
		// sources' kinds of organisation.
		TypeLabels: connector.TypeLabels{
			{Type: "Document", NL: "Document", EN: "Document"},
			{Type: "Meeting", NL: "Vergadering", EN: "Meeting"},
			{Type: "Motion", NL: "Motie", EN: "Motion"},
			{Type: "Recording", NL: "Opname", EN: "Recording"},
			{Type: "AgendaItem", NL: "Agendapunt", EN: "Agenda item"},
			{Type: "gemeente", NL: "Gemeente", EN: "Municipality"},
			{Type: "provincie", NL: "Provincie", EN: "Province"},
			{Type: "waterschap", NL: "Waterschap", EN: "Water board"},
		},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"openbesluitvorming.nl"},
		// The limit belongs to the platform's host: every connector naming
		// openbesluitvorming.nl (this one and obv) shares one quota.
		Services: []connector.Service{{
			Name: Service, Units: 60, Per: connector.Duration(time.Minute), Host: "openbesluitvorming.nl",
			Description: "60 weighted units per minute per client; a search costs max(1, ceil(limit/24)), other calls 1",
			// Where the limit comes from, for the Laadstatus: this one the
			// platform publishes, and says where.
			LimitFrom:   connector.LimitPublished,
			LimitWhere:  "openbesluitvorming.nl/docs/api",
			LimitNote:   "60 weighted units per minute per client address, enforced by the platform itself.",
			LimitNoteNL: "60 gewogen eenheden per minuut per clientadres, door het platform zelf afgedwongen.",
		}},
		// How long the host keeps each kind of answer: sources change
		// monthly, searches should repeat for free briefly, documents do
		// not change, and the platform itself caches statistics an hour.
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
			{Name: "stats", TTL: connector.Duration(time.Hour)},
		},
		// The host checks arguments against each schema before a call;
		// the cost note lets an assistant pick the cheaper call.
		Tools: []connector.Tool{
			{
				Name:        "search",
				Description: "Search meetings, documents, motions and recordings of Dutch councils on OpenBesluitvorming. Give query, organization (a source key from example_list_sources) or both. Newest first; page with offset while has_more is true.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 unit per 24 results (limit 100 costs 5) of a 60-per-minute limit; repeated within 10 minutes it is free (cached).",
			},
			{
				Name:        "get_document",
				Description: "The text (markdown) of a document, meeting or motion by entity id from example_search, in pages of 20 000 bytes: pass page, the result says how many there are.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "1 unit for the first page; later pages come from the text BesluitBron keeps and cost nothing. Cached for weeks.",
			},
			{
				Name:        "list_sources",
				Description: "The municipalities, provinces and water boards with data on OpenBesluitvorming, with the source key example_search takes as organization.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
				CostNote:    "1 unit, cached for 30 days.",
			},
			{
				Name:        "stats",
				Description: "How many documents and organisations OpenBesluitvorming holds.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
				CostNote:    "1 unit of a 60-per-minute limit; cached for an hour.",
			},
		},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Free text; all words must occur (no phrase search)."},
    "organization": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Source key from example_list_sources, e.g. \"soest\"."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 24, "description": "Results per page; 24 is the cheapest page."},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 0}
  },
  "anyOf": [{"required": ["query"]}, {"required": ["organization"]}],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "entity_id": {"type": "string", "minLength": 3, "maxLength": 300, "pattern": "^[A-Za-z]+:", "description": "Entity id from example_search, e.g. document:notubiz:gemeente:soest:12345"},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "required": ["entity_id"],
  "additionalProperties": false
}`
