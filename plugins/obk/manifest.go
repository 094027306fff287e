package obk

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "obk"

// Version is the connector's version; it is part of every cache key's stamp
// through the module hash.
const Version = "1.0.0"

// Services: the SRU search endpoint and the zoek host that serves the
// publication files. They are separate hosts with separate limits.
const (
	// ServiceSRU counts SRU searches on repository.overheid.nl.
	ServiceSRU = "sru"
	// ServiceZoek counts full-text fetches on zoek.officielebekendmakingen.nl.
	ServiceZoek = "zoek"
)

// Base URLs. SRUBase is the manifest's BaseURL (the admin may override it);
// ZoekBase is the second allowed host, serving the publication files.
const (
	SRUBase  = "https://repository.overheid.nl"
	ZoekBase = "https://zoek.officielebekendmakingen.nl"
)

// MaxLimit is the largest page this connector asks of SRU; the server allows
// more, but an assistant never needs more than 100 records at once.
const MaxLimit = 100

// MaxOffset is the largest 0-based offset: the SRU server answers
// startRecord >= 10000 with an HTTP 504, so only the first 9,999 hits of a
// result set are reachable (third-party measurement, October 2026).
const MaxOffset = 9998

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:            ID,
		Version:       Version,
		Title:         "Officiële Bekendmakingen",
		Description:   "The official publications of the Dutch government (KOOP): Staatscourant, Staatsblad, Tractatenblad, Gemeenteblad, Provinciaal blad, Waterschapsblad, Blad gemeenschappelijke regeling, Kamerstukken, Handelingen and Kamervragen.",
		DescriptionNL: "Officiële Bekendmakingen: Staatscourant, Staatsblad, gemeente-, provincie- en waterschapsbladen en Kamerstukken.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100, OffsetArg: "offset",
			// The platform matches the publishing body's name by its words,
			// without the kind of body.
			Organization: &connector.OrganizationArg{Arg: "organization"},
			Keys:         []string{connector.KeyPublication, connector.KeyKamerstuk}},
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Organisatie (bijvoorbeeld Utrecht)", LabelEN: "Organisation (for example Utrecht)"},
		Freshness:    &connector.Freshness{Tool: "search", Arguments: json.RawMessage(`{"limit":1,"sort":"date_desc"}`), Reads: connector.FreshnessNewest, Type: "publication"},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the journals a publication appears in
		// (Publicatienaam) and the kinds obk_list_values lists.
		TypeLabels: connector.TypeLabels{
			{Type: "Staatscourant", NL: "Staatscourant", EN: "Government Gazette", Proper: true},
			{Type: "Staatsblad", NL: "Staatsblad", EN: "Bulletin of Acts and Decrees", Proper: true},
			{Type: "Gemeenteblad", NL: "Gemeenteblad", EN: "Municipal Gazette", Proper: true},
			{Type: "Provinciaal blad", NL: "Provinciaal blad", EN: "Provincial Gazette", Proper: true},
			{Type: "Waterschapsblad", NL: "Waterschapsblad", EN: "Water Board Gazette", Proper: true},
			{Type: "Kamerstuk", NL: "Kamerstuk", EN: "Parliamentary paper"},
			{Type: "Handelingen", NL: "Handelingen", EN: "Proceedings", Proper: true},
			{Type: "publication", NL: "Publicatie", EN: "Publication"},
			{Type: "organization_type", NL: "Soort organisatie", EN: "Type of organisation"},
		},
		BaseURL:      SRUBase,
		AllowedHosts: []string{"repository.overheid.nl", "zoek.officielebekendmakingen.nl"},
		Services: []connector.Service{
			{
				Name: ServiceSRU, Units: 3, Per: connector.Duration(time.Second), Host: "repository.overheid.nl",
				Description: "SRU search on repository.overheid.nl. KOOP publishes no limit for it; 3 requests per second is a polite default of ours (a third party harvested at 3.3 req/s without 503s), which the admin may change.",
				LimitFrom:   connector.LimitPolite,
				LimitNote:   "KOOP publishes no limit for the SRU service; a third party harvested at 3.3 requests per second without refusals.",
				LimitNoteNL: "KOOP publiceert geen limiet voor de SRU-dienst; een derde haalde er 3,3 verzoeken per seconde op zonder weigeringen.",
			},
			{
				// The same host and limit as tk's obk service (the official
				// XML of Kamerstukken): the two connectors share one quota.
				Name: ServiceZoek, Units: 10, Per: connector.Duration(30 * time.Second), Host: "zoek.officielebekendmakingen.nl",
				Description: "Publication files on zoek.officielebekendmakingen.nl: 10 requests per 30 seconds. The number is a third party's report of what the zoek host states, not confirmed by KOOP; the admin may change it.",
				LimitFrom:   connector.LimitPublished,
				LimitWhere:  "zoek.officielebekendmakingen.nl",
				LimitNote:   "The search site states 10 requests per 30 seconds (as a third party reports it; KOOP's own documentation does not say).",
				LimitNoteNL: "De zoeksite noemt 10 verzoeken per 30 seconden (zoals een derde het meldt; de documentatie van KOOP zelf zegt het niet).",
			},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:        "search",
				Title:       "Search official publications",
				Description: "Full-text search in Dutch official publications: Staatscourant, Staatsblad, gemeente-, provincie- and waterschapsbladen, Kamerstukken, Handelingen, Kamervragen. organization matches contained words (Utrecht also matches Rechtbank Utrecht): add organization_type. Only the first 9,999 hits are reachable.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 SRU request (we keep to 3 per second), cached 10 min; far cheaper than reading documents.",
			},
			{
				Name:        "get_document",
				Title:       "Read an official publication",
				Description: "Text of a publication by id from obk_search, from the official XML, with date and publishing body. Paged, 20 000 bytes a page. A Handelingen or budget can exceed 50 pages: stop when answered.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page: 1 request to zoek.officielebekendmakingen.nl (10 per 30 s, shared with tk; bursts queue) and a cheap SRU lookup. Later pages free and fast. Read only relevant documents.",
			},
			{
				Name:        "list_values",
				Title:       "Filter values of obk_search",
				Description: "The values of obk_search's publication or organization_type (built in).",
				InputSchema: json.RawMessage(listValuesSchema),
				CostNote:    "Free: no platform call.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "obk-document",
			URITemplate: "besluitbron://obk/document/{+id}",
			Description: "An official publication by its id, e.g. kst-33328-AI (first page of its text).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Full text: words ANDed, \"phrase\" exact; no stemming or wildcards."},
    "publication": {"type": "array", "minItems": 1, "maxItems": 13, "uniqueItems": true, "items": {"type": "string", "enum": ["Staatscourant", "Staatsblad", "Tractatenblad", "Gemeenteblad", "Provinciaal blad", "Waterschapsblad", "Blad gemeenschappelijke regeling", "Kamerstuk", "Handelingen", "Kamervragen (Aanhangsel)", "Kamervragen zonder antwoord", "Niet-dossierstuk", "Agenda"]}, "description": "Journals (any of them); omit for all."},
    "organization": {"type": "string", "minLength": 2, "maxLength": 200, "description": "Publishing body as named there, e.g. Utrecht, Bergen (NH), Ministerie van Financiën; without \"Gemeente\"."},
    "organization_type": {"type": "string", "maxLength": 60, "description": "e.g. gemeente, provincie, waterschap, ministerie; see obk_list_values."},
    "dossier": {"type": "string", "description": "Kamerstuk dossier, e.g. 33328 or 36600-VII."},
    "title": {"type": "string", "minLength": 1, "maxLength": 300, "description": "Words in the title."},
    "document_type": {"type": "string", "minLength": 2, "maxLength": 100, "description": "dt.type, e.g. omgevingsvergunning, beleidsregel, Kamerstuk."},
    "date_from": {"type": "string", "format": "date", "description": "Document date (not publication date), ISO, inclusive."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc", "relevance"], "default": "date_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 9998, "description": "0-based; at most 9998."}
  },
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "minLength": 5, "maxLength": 100, "description": "From obk_search, or as cited: Stcrt. 2025, 18220; Kamerstukken II 2025/26, 36800-VII, nr. 14."},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listValuesSchema = `{
  "type": "object",
  "properties": {
    "list": {"type": "string", "enum": ["publication_types", "organization_types"], "default": "publication_types"}
  },
  "additionalProperties": false
}`
