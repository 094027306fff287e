package rechtspraak

import (
	"encoding/json"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ID is the connector id.
const ID = "rechtspraak"

// Version is the connector's version; it is part of every cache key's stamp
// through the module hash.
const Version = "1.0.0"

// The platform's two services, as its open-data page describes them: the
// ECLI index (with the value lists beside it) and the documents.
const (
	// ServiceSearch counts index searches and value-list reads.
	ServiceSearch = "search"
	// ServiceContent counts document reads.
	ServiceContent = "content"
)

// BaseURL is the platform's default base URL.
const BaseURL = "https://data.rechtspraak.nl"

// MaxLimit is the largest page this connector asks of the index (the
// platform allows 1000; an assistant never needs that many at once).
const MaxLimit = 100

const politeNote = "Polite default of ours, not a platform limit: Rechtspraak publishes no number (\"don't hammer the server\") and none was observed; 10 requests per second is a third party's figure. The admin may change it."

// politeLimitNote and politeLimitNoteNL say on the Laadstatus why the
// limit is BesluitBron's choice.
const (
	politeLimitNote   = "Rechtspraak asks not to hammer its server but publishes no number; no limit was observed on either service (a third party names 10 requests per second)."
	politeLimitNoteNL = "Rechtspraak vraagt de server niet te overbelasten maar noemt geen getal; op geen van beide diensten is een limiet waargenomen (een derde noemt 10 verzoeken per seconde)."
)

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:            ID,
		Version:       Version,
		Title:         "Rechtspraak",
		Description:   "Dutch case law from Rechtspraak open data: the ECLI index of court decisions and Advocate-General opinions, their full texts and metadata, and the courts, areas of law and procedure types.",
		DescriptionNL: "Rechtspraak: uitspraken en conclusies van Nederlandse rechters (zoeken op instantie en metadata, niet op tekst).",
		SearchProfile: &connector.SearchProfile{Tool: "search", DateFromArg: "date_from", DateToArg: "date_to", DatesWhole: true, MaxLimit: 100, OffsetArg: "offset",
			Organization: &connector.OrganizationArg{Arg: "court", ListTool: "list_courts", Value: connector.OrgByID},
			NeedsFilter:  "Rechtspraak's index has no free-text search, and without organization (a court) or dates there is nothing to filter on; use rechtspraak_search with a court, subject or dates",
			Caveat:       "no free-text search: only when named, by court (organization) and decision dates, never by the query",
			Note:         "The query was NOT applied: Rechtspraak has no free-text search. These are the most recently modified decisions that match the filters; judge them by their summaries.",
			Keys:         []string{connector.KeyECLI}},
		SearchFilter: &connector.SearchFilter{Arg: "court", LabelNL: "Instantie", LabelEN: "Court", ListTool: "list_courts"},
		// The record types people see on the search page and the Laadstatus,
		// in their words: the two kinds of decision.
		TypeLabels: connector.TypeLabels{
			{Type: "Uitspraak", NL: "Uitspraak", EN: "Judgment"},
			{Type: "Conclusie", NL: "Conclusie", EN: "Advisory opinion"},
		},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"data.rechtspraak.nl"},
		Services: []connector.Service{
			// One host, one quota: the platform asks not to hammer its
			// server and publishes no separate limits, so the index and
			// the documents share the polite 10 per second.
			{Name: ServiceSearch, Units: 10, Per: connector.Duration(time.Second), Host: "data.rechtspraak.nl", Description: "ECLI index (/uitspraken/zoeken) and value lists (/Waardelijst). " + politeNote,
				LimitFrom: connector.LimitPolite, LimitNote: politeLimitNote, LimitNoteNL: politeLimitNoteNL},
			{Name: ServiceContent, Units: 10, Per: connector.Duration(time.Second), Host: "data.rechtspraak.nl", Description: "Documents (/uitspraken/content). " + politeNote,
				LimitFrom: connector.LimitPolite, LimitNote: politeLimitNote, LimitNoteNL: politeLimitNoteNL},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:        "search",
				Title:       "Find court decisions",
				Description: "List ECLIs of court decisions (Uitspraak) and Advocate-General opinions (Conclusie) by metadata. NO FREE-TEXT SEARCH: no words, topics or parties; no query. Ordered by record modification; sort=decision_desc: newest decisions first, found in windows of decision dates (≤8 requests; the result says how far back).",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 cheap request (decision_desc: up to 8), cached 10 min; a court or subject by name adds one value-list read, once a month.",
			},
			{
				Name:        "get_document",
				Title:       "Read a court decision",
				Description: "Text and metadata of a decision or opinion by ECLI: court, dates, case numbers, procedure, area of law, related instances, summary. Paged, 20 000 bytes a page. Many ECLIs have metadata only.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "First page: 1 request, slower than a search (whole judgement parsed once); later pages free and fast. Cached 28 days.",
			},
			{
				Name:        "list_courts",
				Title:       "List courts",
				Description: "Courts and other bodies, current and historic, with identifier and abbreviation for rechtspraak_search's court.",
				InputSchema: json.RawMessage(listCourtsSchema),
				CostNote:    "1 request, cached 30 days.",
			},
			{
				Name:        "list_subjects",
				Title:       "List areas of law",
				Description: "Areas of law (two levels, with parent), with identifier for rechtspraak_search's subject.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "1 request, cached 30 days.",
			},
			{
				Name:        "list_procedure_types",
				Title:       "List procedure types",
				Description: "Procedure types of decisions' metadata (e.g. Hoger beroep); search cannot filter on them.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "1 request, cached 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "rechtspraak-document",
			URITemplate: "besluitbron://rechtspraak/document/{+id}",
			Description: "A court decision or opinion by ECLI (first page of its text and its metadata).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const searchSchema = `{
  "type": "object",
  "properties": {
    "court": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Identifier, abbreviation (HR, RBAMS) or exact name, from rechtspraak_list_courts."},
    "subject": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Identifier, name or label as on a judgement (Civiel recht; Arbeidsrecht), from rechtspraak_list_subjects."},
    "type": {"type": "string", "enum": ["Uitspraak", "Conclusie"]},
    "date_from": {"type": "string", "format": "date", "description": "Decision date, ISO, inclusive; needs date_to."},
    "date_to": {"type": "string", "format": "date", "description": "Inclusive."},
    "modified_from": {"type": "string", "description": "Modified since: YYYY-MM-DD[Thh:mm:ss], Dutch time."},
    "modified_to": {"type": "string", "description": "Needs modified_from."},
    "with_text": {"type": "boolean", "default": true, "description": "false also lists metadata-only ECLIs."},
    "sort": {"type": "string", "enum": ["modified_desc", "modified_asc", "decision_desc"], "default": "modified_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000000}
  },
  "dependentRequired": {"date_from": ["date_to"], "date_to": ["date_from"], "modified_to": ["modified_from"]},
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "maxLength": 200, "description": "ECLI, any case, e.g. ECLI:NL:GHAMS:2020:3025"},
    "ecli": {"type": "string", "maxLength": 200, "description": "Old name of id."},
    "page": {"type": "integer", "minimum": 1, "default": 1},
    ` + sdk.FindProperty + `
  },
  "additionalProperties": false
}`

const listCourtsSchema = `{
  "type": "object",
  "properties": {
    "foreign": {"type": "boolean", "default": false, "description": "Foreign and international courts instead."}
  },
  "additionalProperties": false
}`

const emptySchema = `{"type": "object", "properties": {}, "additionalProperties": false}`
