package connector

import (
	"strings"
	"unicode"
)

// TypeLabel names one record type a connector's results carry, for
// people: the search page shows "Vergadering" on a Dutch page and
// "Meeting" on an English one where the platform wrote "Meeting".
type TypeLabel struct {
	// Type is the type as the results carry it ("MediaObject",
	// "agenda_item", "Brief regering"). It is matched without regard to
	// case, spaces, underscores and hyphens ([TypeKey]), because
	// platforms spell one type several ways (an argument's "agenda_item"
	// is a result's "AgendaItem").
	Type string `json:"type"`
	// NL and EN are the type in people's words, as they start a phrase
	// ("Vergadering", "Agenda item").
	NL string `json:"nl"`
	EN string `json:"en"`
	// Proper marks a name ("Staatscourant", "Tweede Kamerlid"): it keeps
	// its capital inside a phrase, where other labels are lower-cased
	// ("nieuwste vergadering", but "nieuwste Staatscourant").
	Proper bool `json:"proper,omitempty"`
}

// In returns the label in lang ("nl" or "en"; anything else reads as
// Dutch, the pages' default language).
func (l TypeLabel) In(lang string) string {
	if lang == "en" {
		return l.EN
	}
	return l.NL
}

// TypeLabels are a connector's record-type labels ([Manifest.TypeLabels]).
type TypeLabels []TypeLabel

// Of returns the label of type t, matched by [TypeKey]; false when the
// connector labels no such type (a page then shows t as written).
func (ls TypeLabels) Of(t string) (TypeLabel, bool) {
	k := TypeKey(t)
	if k == "" {
		return TypeLabel{}, false
	}
	for _, l := range ls {
		if TypeKey(l.Type) == k {
			return l, true
		}
	}
	return TypeLabel{}, false
}

// TypeKey is how a type is matched: lower case, without spaces,
// underscores and hyphens ("Agenda_Item" and "agenda-item" are
// "agendaitem").
func TypeKey(t string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(t))
}

// maxTypeLabel bounds a type and its labels: a word or a short phrase.
const maxTypeLabel = 100

// validateTypeLabels checks the labels as the host receives them: every
// type named once (by its key), with both languages, each a short line.
func validateTypeLabels(ls TypeLabels, bad func(string, ...any)) {
	seen := map[string]bool{}
	for i, l := range ls {
		k := TypeKey(l.Type)
		switch {
		case k == "":
			bad("type_labels[%d].type: empty", i)
		case seen[k]:
			bad("type_labels[%d].type %q: labelled twice (types match without case, spaces, _ and -)", i, l.Type)
		case strings.TrimSpace(l.NL) == "" || strings.TrimSpace(l.EN) == "":
			bad("type_labels[%d] (%s): nl and en are required", i, l.Type)
		}
		seen[k] = true
		for _, f := range []struct{ key, v string }{{"type", l.Type}, {"nl", l.NL}, {"en", l.EN}} {
			switch {
			case len(f.v) > maxTypeLabel:
				bad("type_labels[%d].%s: %d bytes, at most %d", i, f.key, len(f.v), maxTypeLabel)
			case strings.ContainsFunc(f.v, unicode.IsControl):
				bad("type_labels[%d].%s: a control character; one line of text", i, f.key)
			}
		}
	}
}

// SearchRequest is a search in the host's common terms, as both the
// cross-platform search (besluitbron_search) and the search page ask it:
// what [SearchProfile.Arguments] maps onto one platform's search tool.
type SearchRequest struct {
	// Query is the words searched for; "" asks none.
	Query string
	// DateFrom and DateTo bound the date (ISO, inclusive); "" leaves an
	// end open.
	DateFrom, DateTo string
	// Limit is the number of results wanted; Offset how many to skip.
	Limit, Offset int
	// Today (ISO) closes a range the tool takes only whole
	// ([SearchProfile.DatesWhole]) when DateTo is not given.
	Today string
}

// Arguments maps a request onto the search tool's arguments, one rule
// for every caller so that the page and besluitbron_search ask a platform
// the same thing: the query where the tool takes one, the dates it takes
// (a range it takes only whole filled from 1800-01-01 to Today), the
// limit (at most MaxLimit) and the offset where the tool pages.
// Arguments of the caller's own (an organisation) are added by it.
func (sp *SearchProfile) Arguments(r SearchRequest) map[string]any {
	limitArg := sp.LimitArg
	if limitArg == "" {
		limitArg = "limit"
	}
	limit := r.Limit
	if sp.MaxLimit > 0 && limit > sp.MaxLimit {
		limit = sp.MaxLimit
	}
	args := map[string]any{limitArg: limit}
	if sp.QueryArg != "" && r.Query != "" {
		args[sp.QueryArg] = r.Query
	}
	from, to := r.DateFrom, r.DateTo
	if sp.DatesWhole && (from != "" || to != "") {
		if from == "" {
			from = "1800-01-01"
		}
		if to == "" {
			to = r.Today
		}
	}
	if from != "" && sp.DateFromArg != "" {
		args[sp.DateFromArg] = from
	}
	if to != "" && sp.DateToArg != "" {
		args[sp.DateToArg] = to
	}
	if r.Offset > 0 && sp.OffsetArg != "" {
		args[sp.OffsetArg] = r.Offset
	}
	return args
}
