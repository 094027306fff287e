package sdk

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An assistant that passes a filter value the platform does not know
// ("Civil law", "uitspraak", "date-desc") needs the values it may pass,
// and the few nearest first: a list of 40 areas of law in an error costs
// its context and hides the one it meant. So every enumerated filter
// answers an unknown value with [UnknownValue]: the argument, the value,
// and the closest accepted values by folded spelling.

// Bounds of what a suggestion holds.
const (
	// maxSuggest is how many closest values an error names.
	maxSuggest = 5
	// maxSuggestAll is the size of a list an error names whole.
	maxSuggestAll = 8
	// maxSuggestInput bounds the value compared: the edit distance is
	// quadratic, and no accepted value is this long.
	maxSuggestInput = 120
)

// Folded is s as values are compared: lower case, Dutch diacritics taken
// off, and every run of spaces, punctuation, - and _ one space
// ("Civiel-recht", "civiel_recht" and "Civiel recht" fold equal).
func Folded(s string) string {
	var b strings.Builder
	space := false
	// Fold takes off the diacritics (and ĳ, ligatures, curly quotes) as a
	// find does; what is left to do here is punctuation.
	for _, r := range Fold(s) {
		switch {
		case r == '\'':
			// 's-Hertogenbosch: the apostrophe is part of the word.
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}

// Closest returns at most n of accepted nearest to value, nearest first:
// a value folding equal, then one starting with it (or it with one), then
// one holding it as whole words, then by edit distance of the folded
// spellings; ties keep the order of accepted. A list of at most
// maxSuggestAll values comes back whole, ordered the same way.
func Closest(value string, accepted []string, n int) []string {
	if n <= 0 || len(accepted) == 0 {
		return nil
	}
	v := Folded(clipRunes(value, maxSuggestInput))
	type scored struct {
		s     string
		score int
		i     int
	}
	all := make([]scored, 0, len(accepted))
	seen := map[string]bool{}
	for i, a := range accepted {
		if seen[a] {
			continue
		}
		seen[a] = true
		all = append(all, scored{a, closeness(v, Folded(a)), i})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score < all[j].score })
	if len(all) <= maxSuggestAll && n < len(all) {
		n = len(all)
	}
	if n > len(all) {
		n = len(all)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[i].s
	}
	return out
}

// closeness scores how near accepted value a is to v, both folded: lower
// is nearer.
func closeness(v, a string) int {
	switch {
	case v == a:
		return 0
	case v == "" || a == "":
		return 1000
	case strings.HasPrefix(a, v) || strings.HasPrefix(v, a):
		return 1 + absInt(len(a)-len(v))/8
	case strings.Contains(" "+a+" ", " "+v+" ") || strings.Contains(" "+v+" ", " "+a+" "):
		return 10 + absInt(len(a)-len(v))/8
	}
	d := editDistance(v, a)
	// A value may be a misspelt part of a longer one ("Belastingrcht"
	// for "Bestuursrecht; Belastingrecht"): its distance to the words of
	// a it best lines up with counts too, a little behind the whole.
	vw, aw := strings.Fields(v), strings.Fields(a)
	for i := 0; len(vw) < len(aw) && i+len(vw) <= len(aw); i++ {
		d = min(d, 2+editDistance(v, strings.Join(aw[i:i+len(vw)], " ")))
	}
	return 20 + d
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// editDistance is the Levenshtein distance of a and b in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := prev[j-1]
			if ra[i-1] != rb[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// UnknownValue is the tool error for a filter value outside the accepted
// ones: it names the argument and the value (cut), lists the closest
// accepted values (all of a short list), and, when listTool is not "",
// where the whole list is.
func UnknownValue(arg, value string, accepted []string, listTool string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "argument %q: %s is not a value it accepts", arg, strconv.Quote(clipRunes(value, 80)))
	if c := Closest(value, accepted, maxSuggest); len(c) > 0 {
		if len(c) == len(accepted) {
			b.WriteString("; accepted: ")
		} else {
			b.WriteString("; closest accepted: ")
		}
		for i, s := range c {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(clipRunes(s, 100)))
		}
	}
	if listTool != "" {
		fmt.Fprintf(&b, "; all of them: %s", listTool)
	}
	return fmt.Errorf("%s", b.String())
}

// EnumValue checks an enumerated argument: "" and an accepted value are
// returned as they are, a value folding equal to exactly one accepted
// value ("uitspraak", "date-desc") is returned in the accepted spelling,
// and anything else is an [UnknownValue] error.
func EnumValue(arg, value string, accepted []string) (string, error) {
	if value == "" {
		return "", nil
	}
	for _, a := range accepted {
		if a == value {
			return a, nil
		}
	}
	f := Folded(value)
	found := ""
	for _, a := range accepted {
		if Folded(a) == f {
			if found != "" && found != a {
				return "", UnknownValue(arg, value, accepted, "")
			}
			found = a
		}
	}
	if found != "" {
		return found, nil
	}
	return "", UnknownValue(arg, value, accepted, "")
}

// clipRunes cuts s to at most n runes, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}
