package tk

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "tk"

// Version is the connector's version; it is part of every cache key's stamp
// through the module hash.
const Version = "1.0.0"

// Services the connector's requests count against.
const (
	// ServiceOData is the Gegevensmagazijn OData API, files included.
	ServiceOData = "odata"
	// ServiceOBK is zoek.officielebekendmakingen.nl, where the official XML
	// of Kamerstukken and Handelingen lives.
	ServiceOBK = "obk"
)

// ClassMetadata is the cache class of one document's metadata: kept a day,
// so that reading further pages costs nothing, yet a new version or a
// newly published official XML is seen the next day (the text itself is
// cached as a document for weeks).
const ClassMetadata = "metadata"

// BaseURL is the OData service root; the admin may override it.
const BaseURL = "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0"

// OBKBaseURL is the host of the official publications' files.
const OBKBaseURL = "https://zoek.officielebekendmakingen.nl"

// MaxLimit is the platform's server page: 250 entities per response.
const MaxLimit = 250

// Organization names the chamber on results that carry no organisation.
const Organization = "Tweede Kamer der Staten-Generaal"

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:            ID,
		Version:       Version,
		Title:         "Tweede Kamer (Gegevensmagazijn)",
		Description:   "Open data of the Dutch House of Representatives (Tweede Kamer): parliamentary documents (Kamerstukken, motions, amendments, letters, written questions) since 2008, cases (Zaak), activities (debates, committee meetings), party groups, committees and members. CC0.",
		DescriptionNL: "Tweede Kamer: Kamerstukken, moties, zaken en activiteiten uit het Gegevensmagazijn.",
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 250,
			Caveat: "the Tweede Kamer API has no full-text search: words are matched in document titles and subjects only"},
		Freshness:    &connector.Freshness{Tool: "search", Arguments: json.RawMessage(`{"limit":1,"sort":"date_desc"}`), Reads: connector.FreshnessNewest, Type: "document"},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"gegevensmagazijn.tweedekamer.nl", "zoek.officielebekendmakingen.nl"},
		Services: []connector.Service{
			{
				Name: ServiceOData, Units: 0, Host: "gegevensmagazijn.tweedekamer.nl",
				Description: "no limit published and none observed; third-party download scripts did see HTTP 429 on /resource (they pause ~20 s), so a limit may appear",
			},
			{
				// The same host and limit as obk's zoek service: the two
				// connectors share one quota there.
				Name: ServiceOBK, Units: 10, Per: connector.Duration(30 * time.Second), Host: "zoek.officielebekendmakingen.nl",
				Description: "[T] zoek.officielebekendmakingen.nl states 10 requests per 30 s (third-party report, not confirmed by KOOP)",
			},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
			{Name: ClassMetadata, TTL: connector.Duration(24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Search Tweede Kamer documents, cases and activities",
				Description: "Search the records of the Dutch House of Representatives: documents (Kamerstukken, moties, amendementen, brieven, Kamervragen and answers, verslagen; the default), or with entity \"Zaak\" parliamentary cases, or with entity \"Activiteit\" debates and committee meetings. " +
					"The platform has NO full-text search: each query word is matched as a substring of the title or subject (Titel/Onderwerp; for Activiteit only Onderwerp), never the document text; all words must match; \"quoted words\" stay together as one phrase; at most about 6 words. " +
					"Filter by soort (the exact type, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen, Antwoord schriftelijke vragen, Verslag), by date (documents and activities: Datum; cases: GestartOp) and, for documents, by zaak number (e.g. 2025Z12846). " +
					"Results are newest first with an exact total; page with offset while has_more is true. Read a document's text with tk_get_document.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "No platform limit (none published or observed), so calls never queue. A search with words scans the whole table: a few seconds, sometimes ~20 s, and the platform gives up with HTTP 500 after about 30 s (third-party measurements); adding soort or a date range helps. Searches without words are fast. Repeating a search within 10 minutes is free (cached).",
			},
			{
				Name:  "get_document",
				Title: "Read a Tweede Kamer document",
				Description: "Full text of a Tweede Kamer document by its id (the GUID from tk_search) or its document number (e.g. 2024D41173). " +
					"Kamerstukken, Handelingen and Aanhangsels (answers to written questions) are read from their official XML on officielebekendmakingen.nl; other documents from the Kamer's own file, with the text extracted from the PDF (layout and tables are lost; scanned PDFs have no text). " +
					"Word (DOCX, DOC) and ZIP files cannot be read here: the result says so and gives the format, size and download link. " +
					"Texts can be long: a Kamerstuk, a Handelingen report or an attached report can be a PDF of several MB and hundreds of printed pages, which is dozens of text pages of 20 000 bytes here; read it page by page (pass page, 1-based; the result states page and pages) and stop when the question is answered. " +
					"url is the citable source of the text read; extra.tk.notes says when a fallback was taken (no official XML, metadata the platform refused).",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "The first page takes two requests: the document's metadata (cached a day), then its text. The official-XML route counts against officielebekendmakingen.nl's limit of 10 requests per 30 s and may queue; the PDF route downloads the whole file (often hundreds of KB, sometimes several MB) and extracts it, the slowest call of this connector. The text is extracted once: later pages come from the text the host keeps (as long as the cached metadata, up to a day; the file itself is cached 28 days), so they cost the platform nothing and are fast.",
			},
			{
				Name:        "list_fracties",
				Title:       "List party groups (Tweede Kamer)",
				Description: "The party groups (fracties) in the Tweede Kamer with abbreviation, seats and active dates; by default only the current ones. A party that sat in separate periods appears once per period.",
				InputSchema: json.RawMessage(listSchema),
				CostNote:    "One request, cached for 30 days.",
			},
			{
				Name:        "list_commissies",
				Title:       "List committees (Tweede Kamer)",
				Description: "The committees (commissies) of the Tweede Kamer with abbreviation and kind; by default only the current ones.",
				InputSchema: json.RawMessage(listSchema),
				CostNote:    "One request, cached for 30 days.",
			},
			{
				Name:        "list_kamerleden",
				Title:       "List current members (Tweede Kamer)",
				Description: "The current members of the Tweede Kamer (Persoon with Functie \"Tweede Kamerlid\") with name, initials and place of residence. Their party is given only where the platform fills Fractielabel, which it often leaves empty.",
				InputSchema: json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
				CostNote:    "One request, cached for 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "tk-document",
			URITemplate: "besluitbron://tk/document/{+id}",
			Description: "A Tweede Kamer document by Id (GUID) or document number (first page of its text).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 300, "description": "Words matched as substrings of title or subject (not the text); all must match; \"quoted words\" form one phrase; at most about 6 words."},
    "entity": {"type": "string", "enum": ["Document", "Zaak", "Activiteit"], "default": "Document", "description": "What to search: documents (default), cases or activities."},
    "soort": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Exact type, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen (documents); Wetgeving (cases); Plenair debat, Wetgevingsoverleg (activities)."},
    "zaak": {"type": "string", "pattern": "^[0-9]{4}[Zz][0-9]{3,6}$", "description": "Only documents of this case number, e.g. 2025Z12846 (entity Document only)."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive (Dutch local date)."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive (Dutch local date)."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc"], "default": "date_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 250, "default": 25},
    "offset": {"type": "integer", "minimum": 0, "maximum": 1000000, "default": 0}
  },
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "pattern": "^([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9]{4}[Dd][0-9]{3,6})$", "description": "Document Id (GUID) from tk_search, or document number such as 2024D41173."},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listSchema = `{
  "type": "object",
  "properties": {
    "include_inactive": {"type": "boolean", "default": false, "description": "Also list groups that no longer exist."}
  },
  "additionalProperties": false
}`
