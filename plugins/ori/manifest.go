package ori

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
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
const shutdownNote = "ORI Classic will be switched off in autumn 2026: prefer obv. "

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:      ID,
		Version: Version,
		Title:   "Open Raadsinformatie (Classic)",
		Description: "Council documents of Dutch municipalities, provinces and water boards through the public Elasticsearch API of Open Raadsinformatie Classic. " +
			"Announced to close in autumn 2026; OpenBesluitvorming (obv) indexes the same sources.",
		DescriptionNL: "Open Raadsinformatie: het oudere archief van raadsdocumenten, de voorganger van OpenBesluitvorming.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 50, OffsetArg: "offset",
			Organization: &connector.OrganizationArg{Arg: "organization", ListTool: "list_organizations", Value: connector.OrgByID},
			Caveat:       "closes in autumn 2026; obv has the same councils",
			Keys:         []string{connector.KeySourceURL},
			Note:         "ORI Classic was announced to close in autumn 2026; OpenBesluitvorming (obv) indexes the same councils and may list the same documents under other ids."},
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Gemeente of bron", LabelEN: "Municipality or source", ListTool: "list_organizations"},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the Popolo types ORI's index answers (@type: a
		// MediaObject is a document), and the organisations' classification.
		TypeLabels: connector.TypeLabels{
			{Type: "MediaObject", NL: "Document", EN: "Document"},
			{Type: "Document", NL: "Document", EN: "Document"},
			{Type: "Meeting", NL: "Vergadering", EN: "Meeting"},
			{Type: "AgendaItem", NL: "Agendapunt", EN: "Agenda item"},
			{Type: "Motion", NL: "Motie", EN: "Motion"},
			{Type: "Vote", NL: "Stemming", EN: "Vote"},
			{Type: "VoteEvent", NL: "Stemming", EN: "Vote"},
			{Type: "Event", NL: "Bijeenkomst", EN: "Event"},
			{Type: "Report", NL: "Rapport", EN: "Report"},
			{Type: "Organization", NL: "Organisatie", EN: "Organisation"},
			{Type: "Person", NL: "Persoon", EN: "Person"},
			{Type: "Activity", NL: "Activiteit", EN: "Activity"},
			{Type: "municipality", NL: "Gemeente", EN: "Municipality"},
			{Type: "province", NL: "Provincie", EN: "Province"},
			{Type: "water", NL: "Waterschap", EN: "Water board"},
		},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"api.openraadsinformatie.nl"},
		Services: []connector.Service{{
			Name: Service, Units: 0, Host: "api.openraadsinformatie.nl",
			Description: "no rate limit published or observed; calls are not queued",
			// The seed: "no limit observed". The published nginx config sets
			// none either; neither makes it a platform without a limit.
			LimitFrom:   connector.LimitUnknown,
			LimitNote:   "The platform's published nginx configuration sets none either.",
			LimitNoteNL: "Ook de gepubliceerde nginx-configuratie van het platform stelt er geen in.",
		}},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:        "search",
				Title:       "Search ORI council documents",
				Description: shutdownNote + "Full-text search in council documents (meetings, agenda items best effort) of municipalities, provinces and water boards. organization takes a key or a name; a name of several organisations (Bergen) is asked about, or the error lists them with their keys. Dates: when last discussed. offset + limit ≤ 10000. Ids are ORI's own, not stable.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "No limit, not queued; all ~330 indexes is slower than one. Cached 10 min.",
			},
			{
				Name:        "get_document",
				Title:       "Read an ORI document",
				Description: shutdownNote + "Text of a document by id from ori_search. Paged, 20 000 bytes a page. organization (key or name) makes the lookup touch only that organisation's index; a name of several looks in each.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page: the costliest call (whole item read once), not queued; later pages free and fast. Cached for weeks.",
			},
			{
				Name:        "list_organizations",
				Title:       "List ORI organisations",
				Description: shutdownNote + "Municipalities, provinces and water boards, with the key for ori_search's organization.",
				InputSchema: json.RawMessage(listOrganizationsSchema),
				CostNote:    "1 call, cached 30 days.",
			},
		},
		// Elicitation asks which organisation a name of several means
		// ("Bergen": Noord-Holland or Limburg). It is only asked for:
		// the admin grants it (connectors.ori.grant), and without it the
		// tool error lists the candidates.
		ClientFeatures: []string{connector.FeatureElicitation},
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
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Words ANDed, \"phrase\", a | b, -word, prefix*."},
    "organization": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Key from ori_list_organizations (den_helder) or a name (Den Helder, Bergen (NH)); omit for all."},
    "type": {"type": "string", "enum": ["document", "meeting", "agenda_item"], "description": "meeting and agenda_item are best effort."},
    "date_from": {"type": "string", "format": "date", "description": "Inclusive."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "sort": {"type": "string", "enum": ["relevance", "date_desc", "date_asc"], "description": "Default relevance with a query, else date_desc."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 9999}
  },
  "anyOf": [{"required": ["query"]}, {"required": ["organization"]}],
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "From ori_search."},
    "organization": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Key or name, to look in that organisation's index only."},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listOrganizationsSchema = `{
  "type": "object",
  "properties": {
    "classification": {"type": "string", "enum": ["municipality", "province", "water"], "description": "Omit for all."}
  },
  "additionalProperties": false
}`
