package tk

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
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
		SearchProfile: &connector.SearchProfile{Tool: "search", FreeText: true, QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 250, OffsetArg: "offset",
			Caveat: "words match titles and subjects only",
			Keys:   []string{connector.KeyTKDocument, connector.KeyKamerstuk, connector.KeyPublication}},
		Freshness: &connector.Freshness{Tool: "search", Arguments: json.RawMessage(`{"limit":1,"sort":"date_desc"}`), Reads: connector.FreshnessNewest, Type: "document"},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the Gegevensmagazijn's Soort of documents, cases
		// and activities, and the list tools' members, committees and party
		// groups.
		TypeLabels: connector.TypeLabels{
			{Type: "Document", NL: "Document", EN: "Document"},
			{Type: "Motie", NL: "Motie", EN: "Motion"},
			{Type: "Brief regering", NL: "Brief regering", EN: "Letter from the government"},
			{Type: "Schriftelijke vraag", NL: "Schriftelijke vraag", EN: "Written question"},
			{Type: "Kamerstuk", NL: "Kamerstuk", EN: "Parliamentary paper"},
			{Type: "Handelingen", NL: "Handelingen", EN: "Proceedings", Proper: true},
			{Type: "Verslag", NL: "Verslag", EN: "Record of proceedings"},
			{Type: "Zaak", NL: "Zaak", EN: "Case"},
			{Type: "Activiteit", NL: "Activiteit", EN: "Activity"},
			{Type: "Vergadering", NL: "Vergadering", EN: "Meeting"},
			{Type: "Toezegging", NL: "Toezegging", EN: "Commitment"},
			{Type: "Persoon", NL: "Persoon", EN: "Person"},
			{Type: "Commissie", NL: "Commissie", EN: "Committee"},
			{Type: "Fractie", NL: "Fractie", EN: "Parliamentary group"},
		},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"gegevensmagazijn.tweedekamer.nl", "zoek.officielebekendmakingen.nl"},
		Services: []connector.Service{
			{
				Name: ServiceOData, Units: 0, Host: "gegevensmagazijn.tweedekamer.nl",
				Description: "no limit published and none observed; third-party download scripts did see HTTP 429 on /resource (they pause ~20 s), so a limit may appear",
				LimitFrom:   connector.LimitUnknown,
				LimitNote:   "The documentation once said \"no maximum yet\"; third-party scripts saw 429 on file downloads, so one may appear.",
				LimitNoteNL: "De documentatie zei ooit \"nog geen maximum\"; scripts van derden zagen een 429 bij het downloaden van bestanden, dus er kan er een komen.",
			},
			{
				// The same host and limit as obk's zoek service: the two
				// connectors share one quota there.
				Name: ServiceOBK, Units: 10, Per: connector.Duration(30 * time.Second), Host: "zoek.officielebekendmakingen.nl",
				Description: "[T] zoek.officielebekendmakingen.nl states 10 requests per 30 s (third-party report, not confirmed by KOOP)",
				LimitFrom:   connector.LimitPublished,
				LimitWhere:  "zoek.officielebekendmakingen.nl",
				LimitNote:   "The search site states 10 requests per 30 seconds (as a third party reports it; KOOP's own documentation does not say).",
				LimitNoteNL: "De zoeksite noemt 10 verzoeken per 30 seconden (zoals een derde het meldt; de documentatie van KOOP zelf zegt het niet).",
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
				Name:        "search",
				Title:       "Search Tweede Kamer records",
				Description: "Search Tweede Kamer documents (default), cases (entity Zaak) or debates and meetings (Activiteit). NO full-text search: each query word must occur in the title or subject, never the text. Filter by soort, dates, zaak. Newest first, exact total. Votes: tk_get_votes.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "No limit, never queued. Searches with words scan the table: seconds, up to ~20 s, HTTP 500 after ~30 s; soort or dates help. Cached 10 min.",
			},
			{
				Name:        "get_document",
				Title:       "Read a Tweede Kamer document",
				Description: "Text of a document by GUID from tk_search or number (2024D41173): Kamerstukken, Handelingen and Aanhangsels from the official XML, others from the PDF (layout lost; scans have none); DOCX and ZIP are not read (link given). Paged, 20 000 bytes a page. extra.tk.notes names fallbacks.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page: metadata, then the text: official XML counts against officielebekendmakingen.nl's 10 per 30 s (may queue); a PDF is downloaded whole (slowest call). Later pages free and fast.",
			},
			{
				Name:        "get_votes",
				Title:       "Votes on a motion",
				Description: "How the Kamer decided on a motion, amendment or bill and how each fractie voted (voor/tegen/niet deelgenomen, seats, Vergissing), with totals; each member's vote in a roll call. id: a document number from tk_search, case (2025Z01234) or kamerstuk (36800-VII-14).",
				InputSchema: json.RawMessage(getVotesSchema),
				CostNote:    "No limit. 1 request by case, 2 by document; votes cached 10 min.",
			},
			{
				Name:        "list_fracties",
				Title:       "List party groups",
				Description: "Party groups with abbreviation, seats and dates (a party sitting in separate periods appears per period).",
				InputSchema: json.RawMessage(listSchema),
				CostNote:    "1 request, cached 30 days.",
			},
			{
				Name:        "list_commissies",
				Title:       "List committees",
				Description: "Committees with abbreviation and kind.",
				InputSchema: json.RawMessage(listSchema),
				CostNote:    "1 request, cached 30 days.",
			},
			{
				Name:        "list_kamerleden",
				Title:       "List members",
				Description: "Current members with name and residence; party only where the platform gives it.",
				InputSchema: json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
				CostNote:    "1 request, cached 30 days.",
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
    "query": {"type": "string", "minLength": 1, "maxLength": 300, "description": "Words in title or subject (not text); all must match; \"quoted words\" are one phrase; up to ~6 words."},
    "entity": {"type": "string", "enum": ["Document", "Zaak", "Activiteit"], "default": "Document"},
    "soort": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Exact type, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen; Wetgeving (Zaak); Plenair debat (Activiteit)."},
    "zaak": {"type": "string", "description": "Case number, e.g. 2025Z12846 (documents only)."},
    "date_from": {"type": "string", "format": "date", "description": "ISO, inclusive (cases: GestartOp)."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "sort": {"type": "string", "enum": ["date_desc", "date_asc"], "default": "date_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 250, "default": 25},
    "offset": {"type": "integer", "minimum": 0, "maximum": 1000000}
  },
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "GUID from tk_search, number (2024D41173) or cited Kamerstuk (Kamerstukken II 2025/26, 36800-VII, nr. 14)."},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "required": ["id"],
  "additionalProperties": false
}`

const getVotesSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "maxLength": 120, "description": "2025D12345, 2025Z01234, 36800-VII-14 or an Id from tk_search."}
  },
  "required": ["id"],
  "additionalProperties": false
}`

const listSchema = `{
  "type": "object",
  "properties": {
    "include_inactive": {"type": "boolean", "default": false, "description": "Also past ones."}
  },
  "additionalProperties": false
}`
