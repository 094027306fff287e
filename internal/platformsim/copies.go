package platformsim

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
)

// Copy is one platform's record of a document the Sim has on several
// platforms: the platform, the id its search gives and its document tool
// takes, and the title and date it shows.
type Copy struct {
	Platform, ID, Title, Date string
}

// Copies lists the documents the Sim has on more than one platform, each
// as its copies, found by the keys cross-platform grouping uses (issue
// 28): a council document's source URL (obv's downloadUrl, ORI's
// original_url, Open Archivaris' url), a TK document number (tk, opentk),
// a Kamerstuk's dossier and number (tk's Kamerstukdossier and Volgnummer,
// obk's kst-<dossier>-<number>) and a publication id (tk's
// ExterneIdentifier, obk's id: kst-…, ah-tk-…). A search that groups copies
// returns at most one result of each.
func (s *Sim) Copies() [][]Copy {
	var out [][]Copy
	for _, g := range copyGroups(copyRecords(s)) {
		var cs []Copy
		for _, r := range g {
			cs = append(cs, Copy{Platform: r.platform, ID: r.id, Title: r.title, Date: r.date})
		}
		out = append(out, cs)
	}
	return out
}

// copyRecord is one platform's record of a document, read as its
// connector reads it: the title and date its search and get_document
// show, and the keys by which the same document is known on other
// platforms (issue 28: the source document's URL for council platforms,
// the TK document number, the kamerstuk "dossier-number", an ECLI).
type copyRecord struct {
	platform, id, title, date string // title "" when the record has none to compare
	number                    string // tk's DocumentNummer (id is its GUID, as tk_search gives it)
	context                   string // tk's Titel, OpenTK's titel: the dossier the connectors show beside the title
	keys                      []string
}

func (c copyRecord) String() string { return c.platform + " " + firstNonEmptyStr(c.number, c.id) }

// tkDate is the ISO date of an OData or OpenTK date-time.
func tkDate(v any) string {
	s, _ := v.(string)
	return sdk.ISODate(s)
}

// kamerstukKey is the key of Kamerstuk dossier (with its addition) and
// number, as the obk id kst-36800-VII-14 and TK's Kamerstukdossier and
// Volgnummer both give it.
func kamerstukKey(dossier, addition, nr string) string {
	if addition != "" {
		dossier += "-" + addition
	}
	return "kst:" + strings.ToUpper(dossier) + "-" + nr
}

// copyRecords lists every document record of the Sim that can have a copy
// elsewhere (council documents, TK documents, Kamerstukken).
func copyRecords(s *Sim) []copyRecord {
	var out []copyRecord
	obv := s.backends["obv"].(*obvSim)
	obv.mu.RLock()
	entities := obv.entities
	obv.mu.RUnlock()
	for _, e := range entities {
		if e.typ != "Document" || e.download == "" {
			continue
		}
		out = append(out, copyRecord{platform: "obv", id: e.id, title: e.title, date: sdk.ISODate(e.sortDate), keys: []string{"url:" + e.download}})
	}
	for _, h := range s.backends["ori"].(*oriSim).hits {
		u, _ := h.Source["original_url"].(string)
		if h.Source["@type"] != "MediaObject" || u == "" {
			continue
		}
		name, _ := h.Source["name"].(string)
		date := ""
		for _, k := range []string{"last_discussed_at", "start_date", "date_modified"} { // the connector's order
			if d := tkDate(h.Source[k]); d != "" {
				date = d
				break
			}
		}
		out = append(out, copyRecord{platform: "ori", id: h.ID, title: name, date: date, keys: []string{"url:" + u}})
	}
	for _, d := range s.backends["openarchivaris"].(*openArchivarisSim).docs {
		if d.URL == "" {
			continue
		}
		out = append(out, copyRecord{platform: "openarchivaris", id: d.ID, title: d.Title, date: sdk.ISODate(d.Date), keys: []string{"url:" + d.URL}})
	}
	for _, e := range s.backends["tk"].(*tkSim).sets["Document"] {
		nr, _ := e["DocumentNummer"].(string)
		if e["Verwijderd"] == true || nr == "" {
			continue
		}
		onderwerp, _ := e["Onderwerp"].(string)
		titel, _ := e["Titel"].(string)
		guid, _ := e["Id"].(string)
		c := copyRecord{platform: "tk", id: guid, number: nr, title: onderwerp, context: titel, date: tkDate(e["Datum"]), keys: []string{"tknr:" + nr}}
		// The current version's ExterneIdentifier names the document's
		// publication on officielebekendmakingen.nl (obk's id).
		if v, ok := e["HuidigeDocumentVersie"].(map[string]any); ok {
			if ext, _ := v["ExterneIdentifier"].(string); ext != "" {
				c.keys = append(c.keys, "pub:"+strings.ToLower(ext))
			}
		}
		if ks, ok := e["Kamerstukdossier"].([]any); ok && len(ks) == 1 && e["Volgnummer"] != nil {
			k, _ := ks[0].(map[string]any)
			addition, _ := k["Toevoeging"].(string)
			c.keys = append(c.keys, kamerstukKey(fmt.Sprint(k["Nummer"]), addition, fmt.Sprint(e["Volgnummer"])))
		}
		out = append(out, c)
	}
	for _, r := range s.backends["opentk"].(*openTKSim).rows {
		if r.cat != "Document" {
			continue
		}
		onderwerp, _ := r.raw["onderwerp"].(string)
		titel, _ := r.raw["titel"].(string)
		out = append(out, copyRecord{platform: "opentk", id: r.nr, title: onderwerp, context: titel, date: sdk.ISODate(r.date), keys: []string{"tknr:" + r.nr}})
	}
	for _, r := range s.backends["obk"].(*obkSim).records {
		pub := strings.HasPrefix(r.Identifier, "ah-") || strings.HasPrefix(r.Identifier, "h-")
		kst := strings.HasPrefix(r.Identifier, "kst-") && r.Dossiernummer != "" && r.Ondernummer != ""
		if !pub && !kst {
			continue
		}
		// A Kamerstuk's title reads "dossier; soort; stuk": the stuk is
		// what TK calls its Onderwerp, the dossier its Titel. A title of
		// dossier and soort alone ("…; Verslag van een schriftelijk
		// overleg", as the recorded kst-33328-AI) has no stuk to compare.
		c := copyRecord{platform: "obk", id: r.Identifier, title: r.Title, date: sdk.ISODate(r.Date), keys: []string{"pub:" + strings.ToLower(r.Identifier)}}
		if kst {
			parts := strings.Split(r.Title, "; ")
			dossier, addition, _ := strings.Cut(r.Dossiernummer, "-")
			c.title, c.context = "", parts[0]
			if len(parts) >= 3 {
				c.title = parts[len(parts)-1]
			}
			c.keys = append(c.keys, kamerstukKey(dossier, addition, r.Ondernummer))
		}
		out = append(out, c)
	}
	return out
}

// copyGroups joins records that share a key, transitively (a TK document
// meets its OpenTK copy by number and its Kamerstuk by kamerstuk), and
// returns the groups of more than one record.
func copyGroups(recs []copyRecord) [][]copyRecord {
	parent := make([]int, len(recs))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	byKey := map[string]int{}
	for i, r := range recs {
		for _, k := range r.keys {
			if j, ok := byKey[k]; ok {
				parent[find(i)] = find(j)
			} else {
				byKey[k] = i
			}
		}
	}
	groups := map[int][]copyRecord{}
	for i := range recs {
		groups[find(i)] = append(groups[find(i)], recs[i])
	}
	var out [][]copyRecord
	for _, g := range groups {
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].String() < out[j][0].String() })
	return out
}

func platformsOf(g []copyRecord) []string {
	var ps []string
	for _, r := range g {
		if !slices.Contains(ps, r.platform) {
			ps = append(ps, r.platform)
		}
	}
	sort.Strings(ps)
	return ps
}
