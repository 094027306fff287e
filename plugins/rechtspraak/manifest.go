package rechtspraak

import (
	"encoding/json"
	"time"

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

func manifest() connector.Manifest {
	return connector.Manifest{
		ID:            ID,
		Version:       Version,
		Title:         "Rechtspraak",
		Description:   "Dutch case law from Rechtspraak open data: the ECLI index of court decisions and Advocate-General opinions, their full texts and metadata, and the courts, areas of law and procedure types.",
		DescriptionNL: "Rechtspraak: uitspraken en conclusies van Nederlandse rechters (zoeken op instantie en metadata, niet op tekst).",
		SearchProfile: &connector.SearchProfile{Tool: "search", DateFromArg: "date_from", DateToArg: "date_to", DatesWhole: true, MaxLimit: 100,
			Organization: &connector.OrganizationArg{Arg: "court", ListTool: "list_courts", Value: connector.OrgByID},
			NeedsFilter:  "Rechtspraak's index has no free-text search, and without organization (a court) or dates there is nothing to filter on; use rechtspraak_search with a court, subject or dates",
			Caveat:       "Rechtspraak's index has no free-text search: when named, it is searched by its filters only (organization as the court, the dates as the decision date), never by the query",
			Note:         "The query was NOT applied: Rechtspraak has no free-text search. These are the most recently modified decisions that match the filters; judge them by their summaries."},
		SearchFilter: &connector.SearchFilter{Arg: "court", LabelNL: "Instantie", LabelEN: "Court", ListTool: "list_courts"},
		BaseURL:      BaseURL,
		AllowedHosts: []string{"data.rechtspraak.nl"},
		Services: []connector.Service{
			// One host, one quota: the platform asks not to hammer its
			// server and publishes no separate limits, so the index and
			// the documents share the polite 10 per second.
			{Name: ServiceSearch, Units: 10, Per: connector.Duration(time.Second), Host: "data.rechtspraak.nl", Description: "ECLI index (/uitspraken/zoeken) and value lists (/Waardelijst). " + politeNote},
			{Name: ServiceContent, Units: 10, Per: connector.Duration(time.Second), Host: "data.rechtspraak.nl", Description: "Documents (/uitspraken/content). " + politeNote},
		},
		CacheClasses: []connector.CacheClass{
			{Name: connector.ClassList, TTL: connector.Duration(30 * 24 * time.Hour)},
			{Name: connector.ClassSearch, TTL: connector.Duration(10 * time.Minute)},
			{Name: connector.ClassDocument, TTL: connector.Duration(28 * 24 * time.Hour)},
		},
		Tools: []connector.Tool{
			{
				Name:  "search",
				Title: "Find court decisions by metadata (Rechtspraak)",
				Description: "List ECLIs of Dutch court decisions (Uitspraak) and Advocate-General opinions (Conclusie) by metadata. " +
					"THIS INDEX HAS NO FREE-TEXT SEARCH: it cannot find decisions by words, topic or party name, and this tool takes no query. " +
					"Filters: court (identifier or abbreviation such as \"HR\", \"RBAMS\" from rechtspraak_list_courts), subject (area of law, identifier or name from rechtspraak_list_subjects), type, decision date range, modified since. " +
					"It cannot filter on procedure type either; a decision's procedure is in rechtspraak_get_document. " +
					"Results are ordered by when Rechtspraak last modified the record (newest first by default), not by relevance or decision date; each has the ECLI, court, decision date and the summary (inhoudsindicatie) when there is one. " +
					"Narrow with filters and judge relevance from the summaries, then read the text with rechtspraak_get_document. Page with offset while has_more is true.",
				InputSchema: json.RawMessage(searchSchema),
				CostNote:    "1 request to the index (cheap); repeating a search within 10 minutes is free (cached). A court or subject given by name or abbreviation costs one value-list read the first time, then it is cached for 30 days.",
			},
			{
				Name:  "get_document",
				Title: "Read a court decision (Rechtspraak)",
				Description: "Full text and metadata of one decision or opinion by ECLI (e.g. ECLI:NL:HR:2023:1049): court, decision and publication dates, case numbers, procedure, area of law, related decisions (earlier and later instances), where it was published (vindplaatsen), the summary and the text. " +
					"Texts come in pages of 20 000 bytes: pass page (1-based); the result states page and pages. A judgement can run to several MB, hundreds of pages: read it page by page. " +
					"For many ECLIs Rechtspraak publishes metadata but no text; the result then says so.",
				InputSchema: json.RawMessage(getDocumentSchema),
				CostNote:    "1 request to the document service for the first page, slower than a search (the whole judgement, up to several MB, travels and is parsed once). Later pages come from the text BesluitBron keeps: they cost the platform nothing and are fast. Cached for 28 days.",
			},
			{
				Name:        "list_courts",
				Title:       "List courts (Rechtspraak)",
				Description: "The courts and other bodies (instanties) of the index, current and historic, with the identifier and abbreviation to use as court in rechtspraak_search. foreign=true lists the foreign and international courts instead.",
				InputSchema: json.RawMessage(listCourtsSchema),
				CostNote:    "1 request, cached for 30 days.",
			},
			{
				Name:        "list_subjects",
				Title:       "List areas of law (Rechtspraak)",
				Description: "The areas of law (rechtsgebieden), a two-level tree flattened with each entry's parent, with the identifier to use as subject in rechtspraak_search.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "1 request, cached for 30 days.",
			},
			{
				Name:        "list_procedure_types",
				Title:       "List procedure types (Rechtspraak)",
				Description: "The procedure types (proceduresoorten) that appear in decisions' metadata, e.g. Hoger beroep, Cassatie. For interpreting documents only: the index cannot filter on them.",
				InputSchema: json.RawMessage(emptySchema),
				CostNote:    "1 request, cached for 30 days.",
			},
		},
		Resources: []connector.ResourceTemplate{{
			Name:        "rechtspraak-document",
			URITemplate: "besluitbron://rechtspraak/document/{+ecli}",
			Description: "A court decision or opinion by ECLI (first page of its text and its metadata).",
			MIMEType:    "application/json",
			Tool:        "get_document",
		}},
	}
}

const datePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`

const searchSchema = `{
  "type": "object",
  "properties": {
    "court": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Court identifier (e.g. http://standaarden.overheid.nl/owms/terms/Hoge_Raad_der_Nederlanden), abbreviation (HR, RBAMS) or exact name, from rechtspraak_list_courts."},
    "subject": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Area of law: identifier (e.g. http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht_belastingrecht) or exact name (Belastingrecht), from rechtspraak_list_subjects."},
    "type": {"type": "string", "enum": ["Uitspraak", "Conclusie"], "description": "Uitspraak (decision) or Conclusie (Advocate-General's opinion)."},
    "date_from": {"type": "string", "format": "date", "pattern": "` + datePattern + `", "description": "Decision date from (ISO, inclusive); give date_to too. For one day give the same date twice."},
    "date_to": {"type": "string", "format": "date", "pattern": "` + datePattern + `", "description": "Decision date to (ISO, inclusive)."},
    "modified_from": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2})?$", "description": "Only records modified since (Dutch local time): YYYY-MM-DD or YYYY-MM-DDThh:mm:ss."},
    "modified_to": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2})?$", "description": "End of the modification range; needs modified_from."},
    "with_text": {"type": "boolean", "default": true, "description": "Only ECLIs with a published text (default). false also lists metadata-only ECLIs."},
    "sort": {"type": "string", "enum": ["modified_desc", "modified_asc"], "default": "modified_desc"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "offset": {"type": "integer", "minimum": 0, "maximum": 10000000, "default": 0}
  },
  "dependentRequired": {"date_from": ["date_to"], "date_to": ["date_from"], "modified_to": ["modified_from"]},
  "additionalProperties": false
}`

const getDocumentSchema = `{
  "type": "object",
  "properties": {
    "ecli": {"type": "string", "minLength": 10, "maxLength": 60, "pattern": "^[Ee][Cc][Ll][Ii]:[A-Za-z]{2}:[A-Za-z0-9]{1,7}:[0-9]{4}:[A-Za-z0-9.]{1,25}$", "description": "The ECLI, e.g. ECLI:NL:GHAMS:2020:3025."},
    "page": {"type": "integer", "minimum": 1, "default": 1}
  },
  "required": ["ecli"],
  "additionalProperties": false
}`

const listCourtsSchema = `{
  "type": "object",
  "properties": {
    "foreign": {"type": "boolean", "default": false, "description": "List foreign and international courts instead of Dutch ones."}
  },
  "additionalProperties": false
}`

const emptySchema = `{"type": "object", "properties": {}, "additionalProperties": false}`
