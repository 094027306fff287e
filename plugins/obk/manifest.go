package obk

import (
	"encoding/json"
	"time"

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
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100,
			// The platform matches the publishing body's name by its words,
			// without the kind of body.
			Organization: &connector.OrganizationArg{Arg: "organization"}},
		SearchFilter: &connector.SearchFilter{Arg: "organization", LabelNL: "Organisatie (bijvoorbeeld Utrecht)", LabelEN: "Organisation (for example Utrecht)"},
		Freshness:    &connector.Freshness{Tool: "search", Arguments: json.RawMessage(`{"limit":1,"sort":"date_desc"}`), Reads: connector.FreshnessNewest, Type: "publication"},
		BaseURL:      SRUBase,
		AllowedHosts: []string{"repository.overheid.nl", "zoek.officielebekendmakingen.nl"},
		Services: []connector.Service{
			{
				Name: ServiceSRU, Units: 3, Per: connector.Duration(time.Second), Host: "repository.overheid.nl",
				Description: "SRU search on repository.overheid.nl. KOOP publishes no limit for it; 3 requests per second is a polite default of ours (a third party harvested at 3.3 req/s without 503s), which the admin may change.",
			},
			{
				// The same host and limit as tk's obk service (the official
				// XML of Kamerstukken): the two connectors share one quota.
				Name: ServiceZoek, Units: 10, Per: connector.Duration(30 * time.Second), Host: "zoek.officielebekendmakingen.nl",
				Description: "Publication files on zoek.officielebekendmakingen.nl: 10 requests per 30 seconds. The number is a third party's report of what the zoek host states, not confirmed by KOOP; the admin may change it.",
			},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Search official publications (Officiële Bekendmakingen)",
				Description: "Search the official publications of the Dutch government: Staatscourant, Staatsblad, Tractatenblad, Gemeenteblad, Provinciaal blad, Waterschapsblad, Blad gemeenschappelijke regeling, Kamerstukken, Handelingen, Kamervragen. " +
					"query searches the full text: words are ANDed, a \"double-quoted phrase\" must occur as written; there is no stemming and no wildcard. " +
					"Filter by publication (the journal), organization (the publishing body, e.g. \"Utrecht\"; matched as contained words, so add organization_type to tell gemeente Utrecht from provincie Utrecht), dossier (Kamerstuk dossier number), title words, document_type and the document's date. " +
					"Without filters all publications are searched. Only the first 9,999 hits of a result set can be paged to: narrow the filters for more. " +
					"Results give the publication id to pass to obk_get_document.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 request to the SRU service, which has no published limit (we keep to 3 per second); repeating a search within 10 minutes is free (cached). Searching is much cheaper than reading documents.",
			},
			{
				Name:  "get_document",
				Title: "Read an official publication (Officiële Bekendmakingen)",
				Description: "Full text of one publication, by its id from obk_search (e.g. \"stcrt-2015-47076\", \"kst-33328-AI\", \"gmb-2023-174296\", \"h-tk-20232024-12-3\"), extracted from the official XML. " +
					"Texts can be long: the Handelingen of a long debate or a large Kamerstuk (a budget, an explanatory memorandum) can run to a megabyte of text or more, over 50 pages of 20 000 bytes; read it page by page (pass page, 1-based; the result states page and pages) and stop when the question is answered. " +
					"When the platform has no XML for an id, the tool says so and links the publication page instead.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "The first page is 1 request to zoek.officielebekendmakingen.nl, which allows only about 10 requests per 30 seconds (third-party figure), so a burst of document reads queues. The text is extracted once and kept by the host (up to 28 days): later pages cost the platform nothing, do not queue and are fast. Read only the documents whose search result looks relevant.",
			},
			{
				Name:        "list_values",
				Title:       "List filter values (Officiële Bekendmakingen)",
				Description: "The values obk_search accepts for publication (the journals) or organization_type. The platform has no value-list service: these lists are built into the connector from the values the index is known to use, so a journal added later by KOOP may be missing.",
				InputSchema: json.RawMessage(listValuesSchema),
				CostNote:    "Free: answered by the connector without contacting the platform.",
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
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "Full-text words, ANDed; a \"double-quoted phrase\" must occur as written. No stemming, no wildcards."},
    "publication": {"type": "array", "minItems": 1, "maxItems": 13, "uniqueItems": true, "items": {"type": "string", "enum": ["Staatscourant", "Staatsblad", "Tractatenblad", "Gemeenteblad", "Provinciaal blad", "Waterschapsblad", "Blad gemeenschappelijke regeling", "Kamerstuk", "Handelingen", "Kamervragen (Aanhangsel)", "Kamervragen zonder antwoord", "Niet-dossierstuk", "Agenda"]}, "description": "Journals to search (any of them); omit for all."},
    "organization": {"type": "string", "minLength": 2, "maxLength": 200, "description": "Publishing body as the platform names it, e.g. \"Utrecht\", \"Bergen (NH)\", \"Ministerie van Financiën\". Matched as contained words: \"Utrecht\" also matches \"Rechtbank Utrecht\"; do not add \"Gemeente\"."},
    "organization_type": {"type": "string", "enum": ["gemeente", "provincie", "waterschap", "ministerie", "staten generaal", "zelfstandig bestuursorgaan", "regionaal samenwerkingsorgaan", "rechterlijke macht", "dienst en agentschap", "openbaar lichaam voor bedrijf en beroep", "adviescollege", "hoog college van staat", "politiekorps", "ggd", "deelgemeente"]},
    "dossier": {"type": "string", "pattern": "^[0-9]{1,6}(-[A-Za-z0-9]{1,12}){0,3}$", "description": "Kamerstuk dossier number, e.g. \"33328\" or \"36600-VII\"."},
    "title": {"type": "string", "minLength": 1, "maxLength": 300, "description": "Words that must occur in the title."},
    "document_type": {"type": "string", "minLength": 2, "maxLength": 100, "description": "The platform's document type (dt.type), e.g. \"omgevingsvergunning\", \"beleidsregel\", \"Kamerstuk\"."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive; the document's own date (dagtekening), not its publication date."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc", "relevance"], "default": "date_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 9998, "default": 0, "description": "0-based; at most 9998 (the platform serves only the first 9,999 hits)."}
  },
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "minLength": 5, "maxLength": 100, "pattern": "^[a-z]{1,6}(-[a-z]{2})?-[0-9A-Za-z][0-9A-Za-z.-]*$", "description": "Publication id from obk_search, e.g. \"kst-33328-AI\" or \"stcrt-2015-47076\"."},
    "page": {"type": "integer", "minimum": 1, "default": 1}
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
