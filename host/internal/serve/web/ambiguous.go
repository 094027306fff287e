package web

import (
	"regexp"
	"strconv"
	"strings"
)

// An organisation filter that fits several organisations of a platform
// ("Bergen": one in Limburg, one in Noord-Holland) is never settled by the
// connector or by besluitbron_search: the answer is an error listing the
// candidates with what to pass, written in English for assistants. The
// page reads that list back and shows it in the page's language, each
// candidate a link that searches again with its key, so a person chooses
// instead of reading an English technical message.

// candidate is one organisation an ambiguous filter fits.
type candidate struct {
	// Label is how the platform names it, told apart by province:
	// "Gemeente Bergen (Limburg)" (Dutch words on either page: they are
	// names).
	Label string
	// Key is the filter value that picks it.
	Key string
}

// ambiguity is the parsed list of an ambiguous filter.
type ambiguity struct {
	Given      string
	Count      int // how many organisations fit
	Candidates []candidate
	More       int // fitting organisations not listed
}

var (
	// ambiguousHead is the connectors' and besluitbron_search's opening:
	// `organization "Bergen" matches 2 organisations[ on <platform>]: `.
	ambiguousHead = regexp.MustCompile(`\b[a-z_]+ ("(?:[^"\\]|\\.)*") (?:matches|fits the names of) (\d+) organisations(?: on [^:]{1,100})?: `)
	// ambiguousItem is one candidate: `Label — pass organization="key"`,
	// or besluitbron_search's `… pass organization="Label" (key "key")`.
	ambiguousItem = regexp.MustCompile(`^(.{1,200}?) — pass [a-z_]+=("(?:[^"\\]|\\.)*")(?: \(key ("(?:[^"\\]|\\.)*")\))?`)
	ambiguousMore = regexp.MustCompile(`^and (\d+) more`)
)

// maxCandidates bounds what the page takes from a message: the lists
// are cut at 8 where they are made; this guards against a message that
// is not one of them.
const maxCandidates = 25

// parseAmbiguity reads an ambiguous filter's error message, or returns
// nil when msg is not one.
func parseAmbiguity(msg string) *ambiguity {
	loc := ambiguousHead.FindStringSubmatchIndex(msg)
	if loc == nil {
		return nil
	}
	given, err := strconv.Unquote(msg[loc[2]:loc[3]])
	if err != nil {
		return nil
	}
	count, err := strconv.Atoi(msg[loc[4]:loc[5]])
	if err != nil || count < 2 {
		return nil
	}
	a := &ambiguity{Given: given, Count: count}
	rest := msg[loc[1]:]
	for len(a.Candidates) < maxCandidates {
		if m := ambiguousMore.FindStringSubmatch(rest); m != nil {
			a.More, _ = strconv.Atoi(m[1])
			break
		}
		m := ambiguousItem.FindStringSubmatch(rest)
		if m == nil {
			break
		}
		key, err := strconv.Unquote(m[2])
		if err != nil {
			break
		}
		if m[3] != "" {
			if key, err = strconv.Unquote(m[3]); err != nil {
				break
			}
		}
		a.Candidates = append(a.Candidates, candidate{Label: m[1], Key: key})
		rest = rest[len(m[0]):]
		next, ok := strings.CutPrefix(rest, "; ")
		if !ok {
			break
		}
		rest = next
	}
	if len(a.Candidates) == 0 {
		return nil
	}
	if a.More == 0 && count > len(a.Candidates) {
		a.More = count - len(a.Candidates)
	}
	return a
}
