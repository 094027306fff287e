package invoke

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool argument errors are read by an assistant, which pays for every byte
// of them in its context and has to act on them. So they say the rule in
// words ("must be at least 1", not "minimum: 0/1 is less than 1.000000"),
// show the value they refuse cut to a couple of hundred characters with its
// length (a 900 KB query must not come back whole), and list the tool's
// arguments when one is unknown or missing.
//
// jsonschema-go stays the judge of whether arguments fit (the connector
// sees only what it accepts); [explainArgs] walks the same schema once it
// has refused, to say why in words. For a keyword the walk does not know
// (if/then/else, dynamic references), the library's own message is used,
// cleaned and cut.

// Bounds of what an argument error may echo.
const (
	// maxEcho is how many characters of a refused value are shown.
	maxEcho = 200
	// maxNameEcho bounds an unknown argument's name.
	maxNameEcho = 60
	// maxProblems is how many problems one error lists.
	maxProblems = 5
	// maxEnumShown is how many allowed values are listed.
	maxEnumShown = 20
	// MaxErrorText caps any tool error's text (a connector's too): past
	// it, the text is cut and says how long it was. With the result's
	// JSON envelope a tool error stays under 2 KB.
	MaxErrorText = 1600
)

// ArgSchema is a tool's input schema, resolved for checking and kept as
// the explanation of a refusal needs it.
type ArgSchema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
	// order is the order the schema's author listed the top-level
	// properties in (the map in jsonschema.Schema loses it).
	order []string
	// formats are the top-level arguments with a format the host checks
	// (date, date-time), which jsonschema-go does not, by name: their
	// values are parsed even when the library accepts the arguments (a
	// map lookup per such argument on the hot path, not a walk).
	formats map[string]string
}

// NewArgSchema parses and resolves a tool's input schema (raw JSON, a
// *jsonschema.Schema, or anything that marshals to a schema).
func NewArgSchema(in any) (*ArgSchema, error) {
	var raw []byte
	switch s := in.(type) {
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	default:
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		return nil, err
	}
	a := &ArgSchema{root: &schema, resolved: rs, order: propertyOrder(raw)}
	for name, p := range schema.Properties {
		if layout, ok := formatLayouts[p.Format]; ok {
			if a.formats == nil {
				a.formats = map[string]string{}
			}
			a.formats[name] = layout
		}
	}
	for _, n := range sortedKeys(schema.Properties) {
		if !contains(a.order, n) {
			a.order = append(a.order, n)
		}
	}
	return a, nil
}

// Resolved is the schema as jsonschema-go resolved it, the judge of
// whether arguments fit.
func (a *ArgSchema) Resolved() *jsonschema.Resolved { return a.resolved }

// propertyOrder returns the keys of the top-level "properties" object in
// the order they are written.
func propertyOrder(raw []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	props, ok := top["properties"]
	if !ok {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(props))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		out = append(out, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return out
		}
	}
	return out
}

// validate checks v and returns nil or the explanation. Formats are
// checked by the host: a connector's schema can then say "format": "date"
// once instead of repeating a pattern in every tool (which weighs on every
// assistant's tools/list), and "1 mei 2024" is still refused before the
// connector runs, in words.
func (a *ArgSchema) validate(v any) error {
	err := a.resolved.Validate(v)
	if err == nil {
		obj, _ := v.(map[string]any)
		for name, layout := range a.formats {
			if s, ok := obj[name].(string); ok && s != "" {
				if _, perr := time.Parse(layout, s); perr != nil {
					// The walk words it (and any other format problem).
					return fmt.Errorf("%s", explainArgs(a, v))
				}
			}
		}
		return nil
	}
	if msg := explainArgs(a, v); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return fmt.Errorf("%s", ClipText(cleanSchemaError(err.Error()), 400))
}

// explainArgs says in words why v does not fit the schema, or "" when the
// walk finds nothing (a keyword it does not know).
func explainArgs(a *ArgSchema, v any) string {
	w := &walker{root: a.root}
	w.check(a.root, v, nil)
	if len(w.problems) == 0 {
		return ""
	}
	probs := w.problems
	more := 0
	if len(probs) > maxProblems {
		more = len(probs) - maxProblems
		probs = probs[:maxProblems]
	}
	msg := strings.Join(probs, "; ")
	if more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	if w.listArgs {
		msg += " (" + a.takes() + ")"
	}
	return msg
}

// takes lists the tool's arguments, required ones marked.
func (a *ArgSchema) takes() string {
	if len(a.order) == 0 {
		return "this tool takes no arguments"
	}
	var parts []string
	for _, n := range a.order {
		if contains(a.root.Required, n) {
			n += " (required)"
		}
		parts = append(parts, n)
	}
	return "this tool takes: " + strings.Join(parts, ", ")
}

// walker collects the problems of one argument object.
type walker struct {
	root     *jsonschema.Schema
	problems []string
	// listArgs is set when a problem is about which arguments are given
	// (unknown, missing): the message then lists the tool's arguments.
	listArgs bool
	depth    int
}

func (w *walker) add(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// path is where a value sits: nil for the arguments object, then property
// names (strings) and item indices (ints).
type path []any

func (p path) with(e any) path {
	out := make(path, len(p), len(p)+1)
	copy(out, p)
	return append(out, e)
}

// label names the value at p for a message: argument "limit",
// argument "platforms" (item 2), argument "address" (field "city").
func (p path) label() string {
	if len(p) == 0 {
		return "the arguments"
	}
	var inner []string
	for _, e := range p[1:] {
		switch e := e.(type) {
		case string:
			inner = append(inner, "field "+QuoteName(e))
		case int:
			inner = append(inner, fmt.Sprintf("item %d", e+1))
		}
	}
	first, _ := p[0].(string)
	s := "argument " + QuoteName(first)
	if len(inner) > 0 {
		s += " (" + strings.Join(inner, ", ") + ")"
	}
	return s
}

// check walks v against s; it returns whether v fits as far as it could
// tell. Problems are added to w.
func (w *walker) check(s *jsonschema.Schema, v any, p path) bool {
	if s == nil {
		return true
	}
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 32 {
		return true // a reference cycle; the library has the last word
	}
	if isFalseSchema(s) {
		w.add("%s is not allowed", p.label())
		return false
	}
	if s.Ref != "" {
		if target := w.ref(s.Ref); target != nil {
			if !w.check(target, v, p) {
				return false
			}
		}
	}
	if !w.checkType(s, v, p) {
		return false
	}
	ok := true
	if len(s.Enum) > 0 && !inEnum(s.Enum, v) {
		w.add("%s must be %s (got %s)", p.label(), enumWords(s.Enum), show(v))
		return false
	}
	if s.Const != nil && !sameJSON(*s.Const, v) {
		w.add("%s must be %s (got %s)", p.label(), show(*s.Const), show(v))
		return false
	}
	switch v := v.(type) {
	case float64:
		ok = w.checkNumber(s, v, p) && ok
	case string:
		ok = w.checkString(s, v, p) && ok
	case []any:
		ok = w.checkArray(s, v, p) && ok
	case map[string]any:
		ok = w.checkObject(s, v, p) && ok
	}
	for _, sub := range s.AllOf {
		ok = w.check(sub, v, p) && ok
	}
	if len(s.AnyOf) > 0 {
		ok = w.checkAlternatives(s.AnyOf, v, p, false) && ok
	}
	if len(s.OneOf) > 0 {
		ok = w.checkAlternatives(s.OneOf, v, p, true) && ok
	}
	if s.Not != nil && w.fits(s.Not, v) {
		w.add("%s has a form this tool does not accept", p.label())
		ok = false
	}
	return ok
}

// fits reports whether v fits s, without recording problems.
func (w *walker) fits(s *jsonschema.Schema, v any) bool {
	sub := &walker{root: w.root, depth: w.depth}
	return sub.check(s, v, nil) && len(sub.problems) == 0
}

// ref resolves a reference within the tool's schema ("#/$defs/x",
// "#/definitions/x"), or returns nil.
func (w *walker) ref(ref string) *jsonschema.Schema {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if ok {
		return w.root.Defs[name]
	}
	if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
		return w.root.Definitions[name]
	}
	if ref == "#" {
		return w.root
	}
	return nil
}

func isFalseSchema(s *jsonschema.Schema) bool {
	return s.Not != nil && reflect.DeepEqual(*s.Not, jsonschema.Schema{})
}

func (w *walker) checkType(s *jsonschema.Schema, v any, p path) bool {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) == 0 {
		return true
	}
	for _, t := range types {
		if hasType(v, t) {
			return true
		}
	}
	want := make([]string, len(types))
	for i, t := range types {
		want[i] = typeWords(t)
	}
	expect := strings.Join(want, " or ")
	if len(s.Enum) > 0 {
		expect = enumWords(s.Enum)
	}
	if len(p) == 0 {
		w.add("the arguments must be %s (got %s)", expect, showKind(v))
	} else {
		w.add("%s must be %s (got %s)", p.label(), expect, showKind(v))
	}
	return false
}

func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}

func typeWords(t string) string {
	switch t {
	case "null":
		return "null"
	case "boolean":
		return "true or false"
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "integer":
		return "a whole number"
	case "array":
		return "a list (JSON array)"
	case "object":
		return "an object"
	}
	return t
}

func (w *walker) checkNumber(s *jsonschema.Schema, v float64, p path) bool {
	ok := true
	if s.Minimum != nil && v < *s.Minimum {
		w.add("%s must be at least %s (got %s)", p.label(), num(*s.Minimum), num(v))
		ok = false
	}
	if s.Maximum != nil && v > *s.Maximum {
		w.add("%s must be at most %s (got %s)", p.label(), num(*s.Maximum), num(v))
		ok = false
	}
	if s.ExclusiveMinimum != nil && v <= *s.ExclusiveMinimum {
		w.add("%s must be more than %s (got %s)", p.label(), num(*s.ExclusiveMinimum), num(v))
		ok = false
	}
	if s.ExclusiveMaximum != nil && v >= *s.ExclusiveMaximum {
		w.add("%s must be less than %s (got %s)", p.label(), num(*s.ExclusiveMaximum), num(v))
		ok = false
	}
	if s.MultipleOf != nil && *s.MultipleOf > 0 {
		if q := v / *s.MultipleOf; q != math.Trunc(q) {
			w.add("%s must be a multiple of %s (got %s)", p.label(), num(*s.MultipleOf), num(v))
			ok = false
		}
	}
	return ok
}

// formatLayouts are the formats the host checks, as time layouts.
var formatLayouts = map[string]string{"date": "2006-01-02", "date-time": time.RFC3339}

// formatWords says what a string of a known format looks like.
var formatWords = map[string]string{
	"date":      "a date written YYYY-MM-DD",
	"date-time": "a date and time written YYYY-MM-DDThh:mm:ssZ",
	"time":      "a time written hh:mm:ss",
	"uri":       "an absolute URI",
	"email":     "an e-mail address",
}

func (w *walker) checkString(s *jsonschema.Schema, v string, p path) bool {
	ok := true
	n := utf8.RuneCountInString(v)
	if s.MinLength != nil && n < *s.MinLength {
		if n == 0 {
			w.add("%s must not be empty", p.label())
		} else {
			w.add("%s must be at least %d characters long (got %s)", p.label(), *s.MinLength, show(v))
		}
		ok = false
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		// The length is stated, so the value is only cut, not counted again.
		w.add("%s must be at most %d characters long (got %d characters: %s…)", p.label(), *s.MaxLength, n, jsonString(cutRunes(v, maxEcho)))
		ok = false
	}
	if ok && v != "" {
		if layout, checked := formatLayouts[s.Format]; checked {
			if _, err := time.Parse(layout, v); err != nil {
				w.add("%s must be %s (got %s)", p.label(), formatWords[s.Format], show(v))
				return false
			}
		}
	}
	if s.Pattern != "" && ok {
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(v) {
			if words, known := formatWords[s.Format]; known {
				w.add("%s must be %s (got %s)", p.label(), words, show(v))
			} else {
				w.add("%s must match the pattern %s (got %s)", p.label(), ClipText(s.Pattern, 120), show(v))
			}
			ok = false
		}
	}
	return ok
}

func (w *walker) checkArray(s *jsonschema.Schema, v []any, p path) bool {
	ok := true
	if s.MinItems != nil && len(v) < *s.MinItems {
		if len(v) == 0 {
			w.add("%s must not be an empty list", p.label())
		} else {
			w.add("%s must have at least %d items (got %d)", p.label(), *s.MinItems, len(v))
		}
		ok = false
	}
	if s.MaxItems != nil && len(v) > *s.MaxItems {
		w.add("%s must have at most %d items (got %d)", p.label(), *s.MaxItems, len(v))
		ok = false
	}
	if s.UniqueItems {
	dup:
		for i := range v {
			for j := i + 1; j < len(v); j++ {
				if sameJSON(v[i], v[j]) {
					w.add("%s lists %s twice (items %d and %d)", p.label(), show(v[i]), i+1, j+1)
					ok = false
					break dup
				}
			}
		}
	}
	for i, it := range v {
		var is *jsonschema.Schema
		switch {
		case i < len(s.PrefixItems):
			is = s.PrefixItems[i]
		case s.Items != nil:
			is = s.Items
		case i < len(s.ItemsArray):
			is = s.ItemsArray[i]
		case s.AdditionalItems != nil:
			is = s.AdditionalItems
		}
		if is != nil && !w.check(is, it, p.with(i)) {
			ok = false
			if len(w.problems) >= maxProblems {
				break
			}
		}
	}
	return ok
}

func (w *walker) checkObject(s *jsonschema.Schema, v map[string]any, p path) bool {
	ok := true
	var missing []string
	for _, r := range s.Required {
		if _, has := v[r]; !has {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		w.listArgs = w.listArgs || len(p) == 0
		what := "argument"
		if len(p) > 0 {
			what = p.label() + " needs the field"
		}
		if len(missing) == 1 {
			if len(p) == 0 {
				w.add("argument %s is required", QuoteName(missing[0]))
			} else {
				w.add("%s %s", what, QuoteName(missing[0]))
			}
		} else {
			if len(p) == 0 {
				w.add("arguments %s are required", quoteNames(missing))
			} else {
				w.add("%s %s", what+"s", quoteNames(missing))
			}
		}
		ok = false
	}
	var unknown []string
	for _, k := range sortedKeys(v) {
		val := v[k]
		if ps, has := s.Properties[k]; has {
			if !w.check(ps, val, p.with(k)) {
				ok = false
			}
			continue
		}
		matched := false
		for pat, ps := range s.PatternProperties {
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(k) {
				matched = true
				if !w.check(ps, val, p.with(k)) {
					ok = false
				}
			}
		}
		if matched || s.AdditionalProperties == nil {
			continue
		}
		if isFalseSchema(s.AdditionalProperties) {
			unknown = append(unknown, k)
			continue
		}
		if !w.check(s.AdditionalProperties, val, p.with(k)) {
			ok = false
		}
	}
	if len(unknown) > 0 {
		w.listArgs = w.listArgs || len(p) == 0
		noun := "argument"
		if len(p) > 0 {
			noun = p.label() + " has no field"
		}
		if len(unknown) == 1 {
			w.add("unknown %s %s", noun, QuoteName(unknown[0]))
		} else {
			w.add("unknown %ss %s", noun, quoteNames(unknown))
		}
		ok = false
	}
	for _, k := range sortedKeys(s.DependentRequired) {
		if _, has := v[k]; !has {
			continue
		}
		var lack []string
		for _, d := range s.DependentRequired[k] {
			if _, has := v[d]; !has {
				lack = append(lack, d)
			}
		}
		if len(lack) > 0 {
			w.add("%s needs %s as well", p.with(k).label(), quoteNames(lack))
			ok = false
		}
	}
	if s.MinProperties != nil && len(v) < *s.MinProperties {
		w.add("%s must have at least %d entries (got %d)", p.label(), *s.MinProperties, len(v))
		ok = false
	}
	if s.MaxProperties != nil && len(v) > *s.MaxProperties {
		w.add("%s must have at most %d entries (got %d)", p.label(), *s.MaxProperties, len(v))
		ok = false
	}
	return ok
}

// checkAlternatives explains anyOf (one=false) and oneOf (one=true). The
// common case, alternatives that each require some arguments ("query or
// organization"), reads "give at least one of …".
func (w *walker) checkAlternatives(alts []*jsonschema.Schema, v any, p path, one bool) bool {
	fit := 0
	for _, a := range alts {
		if w.fits(a, v) {
			fit++
		}
	}
	if fit == 1 || (!one && fit > 1) {
		return true
	}
	if fit > 1 {
		w.add("%s fit more than one of the accepted forms; give fewer arguments", p.label())
		return false
	}
	var names []string
	onlyRequired := true
	for _, a := range alts {
		if len(a.Required) == 0 || !reflect.DeepEqual(*a, jsonschema.Schema{Required: a.Required}) {
			onlyRequired = false
			break
		}
		names = append(names, a.Required...)
	}
	if onlyRequired {
		if len(p) == 0 {
			w.listArgs = true
			w.add("give at least one of the arguments %s", quoteNamesOr(names))
		} else {
			w.add("%s needs at least one of the fields %s", p.label(), quoteNamesOr(names))
		}
		return false
	}
	// Say what each alternative would need, briefly.
	var why []string
	for i, a := range alts {
		sub := &walker{root: w.root, depth: w.depth}
		sub.check(a, v, p)
		if len(sub.problems) > 0 {
			why = append(why, fmt.Sprintf("form %d: %s", i+1, sub.problems[0]))
		}
		if i >= 3 {
			break
		}
	}
	w.add("%s fit none of the accepted forms (%s)", p.label(), strings.Join(why, "; "))
	return false
}

// show is a refused value as a message quotes it: strings and JSON cut to
// maxEcho characters, with the length stated when cut.
func show(v any) string {
	switch v := v.(type) {
	case string:
		n := utf8.RuneCountInString(v)
		if n <= maxEcho {
			return jsonString(v)
		}
		return jsonString(cutRunes(v, maxEcho)) + fmt.Sprintf("… (%d characters in all)", n)
	case float64:
		return num(v)
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	if utf8.RuneCount(b) <= maxEcho {
		return string(b)
	}
	return cutRunes(string(b), maxEcho) + fmt.Sprintf("… (%d bytes of JSON in all)", len(b))
}

// showKind is show with the value's JSON type in front, for type errors:
// the string "banana", the number 1.5, a list [...].
func showKind(v any) string {
	switch v := v.(type) {
	case string:
		return "the string " + show(v)
	case float64:
		return "the number " + show(v)
	case bool:
		return show(v)
	case nil:
		return "null"
	case []any:
		return fmt.Sprintf("a list of %d items %s", len(v), show(v))
	case map[string]any:
		return "an object " + show(v)
	}
	return show(v)
}

// enumWords lists allowed values: "one of "a", "b", "c"" (or the single one).
func enumWords(enum []any) string {
	shown := enum
	more := 0
	if len(shown) > maxEnumShown {
		more = len(shown) - maxEnumShown
		shown = shown[:maxEnumShown]
	}
	parts := make([]string, len(shown))
	for i, e := range shown {
		parts[i] = show(e)
	}
	if len(enum) == 1 {
		return parts[0]
	}
	s := "one of " + strings.Join(parts, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if sameJSON(e, v) {
			return true
		}
	}
	return false
}

// sameJSON compares two decoded JSON values (numbers as float64; an int in
// a schema built in Go is compared by value).
func sameJSON(a, b any) bool {
	if fa, ok := toFloat(a); ok {
		fb, ok := toFloat(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// num writes a number as people do: 1, 2.5, 1e+300.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// quoteName quotes an argument name, cut when a client sent a long one.
// QuoteName is a name as an error shows it: quoted, cut past a bound with
// its length said (a client may send a name of any size).
func QuoteName(n string) string {
	if utf8.RuneCountInString(n) <= maxNameEcho {
		return jsonString(n)
	}
	return jsonString(cutRunes(n, maxNameEcho)) + fmt.Sprintf("… (a name of %d characters)", utf8.RuneCountInString(n))
}

func quoteNames(ns []string) string {
	shown := ns
	if len(shown) > maxProblems {
		shown = shown[:maxProblems]
	}
	parts := make([]string, len(shown))
	for i, n := range shown {
		parts[i] = QuoteName(n)
	}
	s := strings.Join(parts, ", ")
	if len(ns) > len(shown) {
		s += fmt.Sprintf(" and %d more", len(ns)-len(shown))
	}
	return s
}

func quoteNamesOr(ns []string) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = QuoteName(n)
	}
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func cutRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// ClipText cuts s to at most n bytes on a character boundary and says so.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	suffix := fmt.Sprintf("… (cut; %d bytes in all)", len(s))
	keep := n - len(suffix)
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + suffix
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Check decodes and checks arguments against the schema; absent
// arguments are {}. The error names the argument and says the rule in
// words.
func (as *ArgSchema) Check(args json.RawMessage) (json.RawMessage, error) {
	args = AbsentArgs(args)
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %s", ClipText(err.Error(), 200))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the arguments must be a JSON object of named arguments (got %s)", showKind(v))
	}
	if err := as.validate(v); err != nil {
		return nil, err
	}
	return args, nil
}

// AbsentArgs returns {} for arguments that are absent (no bytes, or
// null), and args otherwise.
func AbsentArgs(args json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return args
}

// cleanSchemaError turns jsonschema-go's "validating root: validating
// /properties/limit: maximum: 101 is greater than 100" into
// "argument \"limit\": maximum: 101 is greater than 100".
func cleanSchemaError(s string) string {
	s = strings.TrimPrefix(s, "validating root: ")
	if rest, ok := strings.CutPrefix(s, "validating /properties/"); ok {
		name, msg, found := strings.Cut(rest, ": ")
		if found {
			name = strings.TrimSuffix(name, "/")
			msg = strings.TrimPrefix(msg, "validating /properties/"+name+": ")
			return fmt.Sprintf("argument %q: %s", name, msg)
		}
	}
	return s
}
