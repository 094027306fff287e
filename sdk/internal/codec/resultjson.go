package codec

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The sdk's own result types (connector.Document, SearchResult, Item,
// ListResult) are encoded by hand, with appends, instead of by
// json.Marshal's reflection: in a WebAssembly connector json.Marshal of a
// document cost about ten times the same work natively (see RATIONALE,
// "Where a WebAssembly call's time goes"). The bytes are exactly
// json.Marshal's, field order, omitempty, HTML escaping and sorted map
// keys included; resultjson_test.go compares the two on random values.
// A value the hand path does not know (an Extra value of another type, a
// float that is not finite) makes [appendResult] report false, and
// [Marshal] falls back to json.Marshal for the whole value, so errors are
// json.Marshal's too.

// appendResult appends v's JSON to b when v is one of the sdk's result
// types, or reports false.
func appendResult(b []byte, v any) ([]byte, bool) {
	if d, ok := resultAs[connector.Document](v); ok {
		return appendDocument(b, d)
	}
	if r, ok := resultAs[connector.SearchResult](v); ok {
		return appendSearchResult(b, r)
	}
	if r, ok := resultAs[connector.ListResult](v); ok {
		return appendListResult(b, r)
	}
	return nil, false
}

// resultAs returns v as a *T when it is a T or a *T that is not nil.
func resultAs[T any](v any) (*T, bool) {
	switch r := v.(type) {
	case T:
		return &r, true
	case *T:
		return r, r != nil
	}
	return nil, false
}

// resultSize is a first guess of the encoded size of v, so that the
// buffer is allocated once for most results.
func resultSize(v any) int {
	if d, ok := resultAs[connector.Document](v); ok {
		return documentSize(d)
	}
	if r, ok := resultAs[connector.SearchResult](v); ok {
		return 256 + 512*len(r.Results)
	}
	if r, ok := resultAs[connector.ListResult](v); ok {
		return 128 + 128*len(r.Items)
	}
	return 0
}

// documentSize is room for d's JSON: its text, and 1 kB for the rest (a
// document of obv with its links and extra fields took 565 bytes besides
// its text, and 512 made append copy it).
func documentSize(d *connector.Document) int {
	n := 1024 + len(d.Text) + len(d.Text)/8
	if d.Find != nil {
		n += 32 << 10 // a find's answer is kept under 24 kB
	}
	return n
}

// appendStringField appends a member (key is its punctuated name, as
// `,"title":`) and its string value.
func appendStringField(b []byte, key, v string) []byte {
	return AppendString(append(b, key...), v)
}

// appendOptString is appendStringField for an omitempty member.
func appendOptString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendStringField(b, key, v)
}

func appendDocument(b []byte, d *connector.Document) ([]byte, bool) {
	b = appendStringField(b, `{"platform":`, d.Platform)
	b = appendStringField(b, `,"id":`, d.ID)
	b = appendOptString(b, `,"type":`, d.Type)
	b = appendStringField(b, `,"title":`, d.Title)
	b = appendOptString(b, `,"date":`, d.Date)
	b = appendOptString(b, `,"organization":`, d.Organization)
	b = appendOptString(b, `,"url":`, d.URL)
	b = appendStringField(b, `,"format":`, d.Format)
	b = appendOptInt(b, `,"page":`, d.Page)
	b = append(b, `,"pages":`...)
	b = strconv.AppendInt(b, int64(d.Pages), 10)
	b = appendStringField(b, `,"text":`, d.Text)
	if d.Find != nil {
		b = appendFound(append(b, `,"find":`...), d.Find)
	}
	if len(d.Extra) > 0 {
		b = append(b, `,"extra":`...)
		var ok bool
		if b, ok = appendExtra(b, d.Extra); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendOptInt appends an omitempty integer member.
func appendOptInt(b []byte, key string, n int) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), int64(n), 10)
}

func appendFound(b []byte, f *connector.Found) []byte {
	b = appendStringField(b, `{"query":`, f.Query)
	b = append(b, `,"terms":`...)
	if f.Terms == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range f.Terms {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStringField(b, `{"term":`, t.Term)
			b = strconv.AppendInt(append(b, `,"matches":`...), int64(t.Matches), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = strconv.AppendInt(append(b, `,"matches":`...), int64(f.Matches), 10)
	b = strconv.AppendInt(append(b, `,"pages_matched":`...), int64(f.PagesMatched), 10)
	b = append(b, `,"pages":`...)
	if f.Pages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range f.Pages {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFoundPage(b, &f.Pages[i])
		}
		b = append(b, ']')
	}
	if f.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	return append(b, '}')
}

func appendFoundPage(b []byte, p *connector.FoundPage) []byte {
	b = strconv.AppendInt(append(b, `{"page":`...), int64(p.Page), 10)
	b = strconv.AppendInt(append(b, `,"matches":`...), int64(p.Matches), 10)
	b = appendOptInt(b, `,"source_page":`, p.SourcePage)
	b = appendOptString(b, `,"link":`, p.Link)
	if len(p.Snippets) > 0 {
		b = append(b, `,"snippets":[`...)
		for i, s := range p.Snippets {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStringField(b, `{"text":`, s.Text)
			b = appendOptInt(b, `,"source_page":`, s.SourcePage)
			b = appendOptString(b, `,"link":`, s.Link)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendSearchResult(b []byte, r *connector.SearchResult) ([]byte, bool) {
	b = appendStringField(b, `{"platform":`, r.Platform)
	if r.Total != nil {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(*r.Total), 10)
	}
	if r.TotalIsApproximate {
		b = append(b, `,"total_is_approximate":true`...)
	}
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, r.HasMore)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(r.Offset), 10)
	b = append(b, `,"results":`...)
	var ok bool
	if b, ok = appendItems(b, r.Results); !ok {
		return nil, false
	}
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":`...)
		b = appendStrings(b, r.Notes)
	}
	return append(b, '}'), true
}

func appendListResult(b []byte, r *connector.ListResult) ([]byte, bool) {
	b = appendStringField(b, `{"platform":`, r.Platform)
	b = appendStringField(b, `,"list":`, r.List)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(r.Count), 10)
	b = append(b, `,"items":`...)
	var ok bool
	if b, ok = appendItems(b, r.Items); !ok {
		return nil, false
	}
	return append(b, '}'), true
}

func appendItems(b []byte, items []connector.Item) ([]byte, bool) {
	if items == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendItem(b, &items[i]); !ok {
			return nil, false
		}
	}
	return append(b, ']'), true
}

func appendItem(b []byte, it *connector.Item) ([]byte, bool) {
	b = appendStringField(b, `{"id":`, it.ID)
	b = appendOptString(b, `,"type":`, it.Type)
	b = appendStringField(b, `,"title":`, it.Title)
	b = appendOptString(b, `,"date":`, it.Date)
	b = appendOptString(b, `,"organization":`, it.Organization)
	b = appendOptString(b, `,"snippet":`, it.Snippet)
	b = appendOptString(b, `,"url":`, it.URL)
	if len(it.Keys) > 0 {
		var held [8]member[string] // a result has a few keys: no allocation
		b = append(b, `,"keys":`...)
		b, _ = appendMembers(b, sortedMembers(held[:0], it.Keys), appendStringValue)
	}
	if len(it.Extra) > 0 {
		b = append(b, `,"extra":`...)
		var ok bool
		if b, ok = appendExtra(b, it.Extra); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendStringValue is AppendString as a member's value.
func appendStringValue(b []byte, s string) ([]byte, bool) { return AppendString(b, s), true }

func appendStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, v)
	}
	return append(b, ']')
}

// appendExtra appends the extra fields under the connector id: a map of
// maps, keys sorted as json.Marshal sorts them.
func appendExtra(b []byte, m map[string]map[string]any) ([]byte, bool) {
	var held [8]member[map[string]any] // most maps are small: no allocation
	return appendMembers(b, sortedMembers(held[:0], m), appendAnyMap)
}

func appendAnyMap(b []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	var held [8]member[any] // most maps are small: no allocation
	return appendMembers(b, sortedMembers(held[:0], m), appendAny)
}

// appendMembers appends a JSON object of ms, each value by value.
func appendMembers[V any](b []byte, ms []member[V], value func([]byte, V) ([]byte, bool)) ([]byte, bool) {
	b = append(b, '{')
	for i := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, ms[i].k)
		b = append(b, ':')
		var ok bool
		if b, ok = value(b, ms[i].v); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// member is one key and value of a map being encoded.
type member[V any] struct {
	k string
	v V
}

// sortedMembers appends m's members to ms, sorted by key. The values are
// taken as the map is walked, not looked up again by key: in WebAssembly
// each lookup hashed the key in software.
func sortedMembers[V any](ms []member[V], m map[string]V) []member[V] {
	for k, v := range m {
		ms = append(ms, member[V]{k, v})
	}
	if len(ms) > 12 {
		slices.SortFunc(ms, func(a, b member[V]) int { return strings.Compare(a.k, b.k) })
		return ms
	}
	for i := 1; i < len(ms); i++ { // few: an insertion sort, without calls
		for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
	return ms
}

// appendAny appends the values connectors put in Extra; any other type
// reports false.
func appendAny(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return AppendString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		return appendFloat(b, v, 64)
	case float32:
		return appendFloat(b, float64(v), 32)
	case []string:
		return appendStrings(b, v), true
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendAny(b, e); !ok {
				return nil, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		return appendAnyMap(b, v)
	case map[string]string:
		if v == nil {
			return append(b, "null"...), true
		}
		var held [8]string
		keys := held[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			b = AppendString(b, v[k])
		}
		return append(b, '}'), true
	}
	return nil, false
}

// appendFloat is encoding/json's float encoding; a value json.Marshal
// refuses (NaN, ±Inf) reports false.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// jsonSafe marks the ASCII bytes json.Marshal copies as they are in a
// string: printable, and none of `"`, `\`, `<`, `>`, `&`.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	t['"'], t['\\'], t['<'], t['>'], t['&'] = false, false, false, false, false
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as json.Marshal quotes it (HTML
// escaping on): the control characters, `"` and `\`, `<`, `>` and `&`,
// U+2028 and U+2029 escaped, each byte of invalid UTF-8 as \ufffd.
// Exported because a find's answer is cut to a budget of its encoded
// size, which only the encoder's own quoting measures exactly.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Marshal is json.Marshal(v): the same bytes and errors, written by hand
// for the sdk's result types and a tool's flat structs, whose reflection
// in json.Marshal cost a WebAssembly connector about ten times its native
// time (see above).
func Marshal(v any) ([]byte, error) {
	if n := resultSize(v); n > 0 {
		if b, ok := appendResult(make([]byte, 0, n), v); ok {
			return b, nil
		}
	} else if b, ok := appendFlat(make([]byte, 0, 128), v); ok {
		return b, nil
	}
	return json.Marshal(v)
}

// A tool's own result type (example's Stats, a connector's status) is
// encoded by hand too when it is a flat struct: exported fields of
// strings, booleans, numbers and pointers to them, with json's names and
// omitempty. A struct with any other field, an embedded one, a field
// json names or encodes in its own way (the string and omitzero options,
// a Marshaler) goes to json.Marshal.

type flatField struct {
	name      string // with its quotes, colon and the comma before it
	index     int
	kind      fieldKind
	ptr       bool
	bits      int
	omitEmpty bool
}

type flatPlan struct {
	ok     bool
	fields []flatField
}

var flatPlans typeCache[*flatPlan]

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func flatPlanOf(t reflect.Type) *flatPlan { return flatPlans.get(t, buildFlatPlan) }

func marshals(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(marshalerType) || t.Implements(textMarshalerType) || pt.Implements(marshalerType) || pt.Implements(textMarshalerType)
}

func buildFlatPlan(t reflect.Type) *flatPlan {
	p := &flatPlan{}
	if marshals(t) {
		return p
	}
	p.ok = jsonFields(t, func(i int, f reflect.StructField, name, opts string) bool {
		ff := flatField{index: i}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				ff.omitEmpty = true
			case "string", "omitzero":
				return false
			}
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft, ff.ptr = ft.Elem(), true
		}
		if marshals(ft) || marshals(f.Type) || ft == numberType {
			return false // json.Number is written as the number it holds
		}
		switch ft.Kind() {
		case reflect.String:
			ff.kind = kindString
		case reflect.Bool:
			ff.kind = kindBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			ff.kind, ff.bits = kindInt, ft.Bits()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			ff.kind, ff.bits = kindUint, ft.Bits()
		case reflect.Float32, reflect.Float64:
			ff.kind, ff.bits = kindFloat, ft.Bits()
		default:
			return false
		}
		ff.name = `,"` + name + `":`
		p.fields = append(p.fields, ff)
		return true
	})
	return p
}

// appendFlat appends v's JSON when v is a flat struct (or a non-nil
// pointer to one), or reports false.
func appendFlat(b []byte, v any) ([]byte, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() || marshals(rv.Type()) {
			return nil, false
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, false
	}
	p := flatPlanOf(rv.Type())
	if !p.ok {
		return nil, false
	}
	b = append(b, '{')
	first := true
	for i := range p.fields {
		ff := &p.fields[i]
		f := rv.Field(ff.index)
		if ff.ptr {
			if f.IsNil() {
				if ff.omitEmpty {
					continue
				}
				b = appendName(b, ff.name, first)
				b = append(b, "null"...)
				first = false
				continue
			}
			f = f.Elem()
		} else if ff.omitEmpty && isEmpty(f, ff.kind) {
			continue
		}
		b = appendName(b, ff.name, first)
		first = false
		switch ff.kind {
		case kindString:
			b = AppendString(b, f.String())
		case kindBool:
			b = strconv.AppendBool(b, f.Bool())
		case kindInt:
			b = strconv.AppendInt(b, f.Int(), 10)
		case kindUint:
			b = strconv.AppendUint(b, f.Uint(), 10)
		case kindFloat:
			var ok bool
			if b, ok = appendFloat(b, f.Float(), ff.bits); !ok {
				return nil, false
			}
		}
	}
	return append(b, '}'), true
}

// isEmpty is json's isEmptyValue for the flat kinds (-0.0 is empty).
func isEmpty(f reflect.Value, kind fieldKind) bool {
	switch kind {
	case kindString:
		return f.Len() == 0
	case kindBool:
		return !f.Bool()
	case kindInt:
		return f.Int() == 0
	case kindUint:
		return f.Uint() == 0
	case kindFloat:
		return f.Float() == 0
	}
	return false
}

func appendName(b []byte, name string, first bool) []byte {
	if first {
		name = name[1:]
	}
	return append(b, name...)
}
