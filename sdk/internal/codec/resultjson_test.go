package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The hand encoder of the result types must write json.Marshal's bytes,
// and fail where it fails.

// pieces of strings chosen to meet every escaping rule.
var stringPieces = []string{
	"", "a", "Raadsvoorstel", " ", "é", "ß", "日本", "😀", "<", ">", "&", `"`, `\`, "/",
	"\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f", "\u2028", "\u2029",
	"\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "<script>", "a&b",
}

func randString(r *rand.Rand) string {
	var b []byte
	for range r.IntN(6) {
		b = append(b, stringPieces[r.IntN(len(stringPieces))]...)
	}
	return string(b)
}

func randValue(r *rand.Rand, depth int) any {
	switch r.IntN(20) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return r.IntN(1000) - 500
	case 3:
		return int64(r.Uint64())
	case 4:
		return r.Uint64()
	case 5:
		f := []float64{0, -0.0, 1, 1.5, 1e-7, 1e21, 123456789e15, 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, r.NormFloat64() * 1e6}
		return f[r.IntN(len(f))]
	case 6:
		return float32(r.NormFloat64())
	case 7:
		n := r.IntN(3)
		if n == 0 && r.IntN(2) == 0 {
			return []string(nil)
		}
		s := make([]string, n)
		for i := range s {
			s[i] = randString(r)
		}
		return s
	case 8:
		if depth > 2 {
			return "deep"
		}
		s := make([]any, r.IntN(3))
		for i := range s {
			s[i] = randValue(r, depth+1)
		}
		return s
	case 9:
		if depth > 2 {
			return "deep"
		}
		return randAnyMap(r, depth+1)
	case 10:
		return map[string]string{randString(r): randString(r), "k": randString(r)}
	case 11:
		// types the hand path does not know: json.Marshal encodes them
		x := []any{int8(-3), uint16(7), json.Number("12"), struct{ A string }{"<"}, []int{1, 2}, &struct{}{}, json.RawMessage(`{"b": 1}`)}
		return x[r.IntN(len(x))]
	case 12:
		if r.IntN(8) == 0 {
			return math.NaN() // json.Marshal refuses it
		}
		return 2.5
	default:
		return randString(r)
	}
}

func randAnyMap(r *rand.Rand, depth int) map[string]any {
	if r.IntN(8) == 0 {
		return nil
	}
	m := map[string]any{}
	for range r.IntN(4) {
		m[randString(r)] = randValue(r, depth)
	}
	return m
}

// randKeys is an item's keys: none, or a few kinds with random values.
func randKeys(r *rand.Rand) map[string]string {
	if r.IntN(3) == 0 {
		return nil
	}
	m := map[string]string{}
	for range r.IntN(4) {
		m[randString(r)] = randString(r)
	}
	return m
}

func randExtra(r *rand.Rand) map[string]map[string]any {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return map[string]map[string]any{}
	}
	m := map[string]map[string]any{}
	for range 1 + r.IntN(2) {
		m[randString(r)] = randAnyMap(r, 0)
	}
	return m
}

func randItems(r *rand.Rand) []connector.Item {
	n := r.IntN(4)
	if n == 0 && r.IntN(2) == 0 {
		return nil
	}
	items := make([]connector.Item, n)
	for i := range items {
		items[i] = connector.Item{ID: randString(r), Type: randString(r), Title: randString(r), Date: randString(r),
			Organization: randString(r), Snippet: randString(r), URL: randString(r), Keys: randKeys(r), Extra: randExtra(r)}
	}
	return items
}

func randFound(r *rand.Rand) *connector.Found {
	if r.IntN(3) > 0 {
		return nil
	}
	f := &connector.Found{Query: randString(r), Matches: r.IntN(100), PagesMatched: r.IntN(10) - 1, Truncated: r.IntN(2) == 0}
	if n := r.IntN(3); n > 0 || r.IntN(2) == 0 {
		f.Terms = make([]connector.FoundTerm, n)
		for i := range f.Terms {
			f.Terms[i] = connector.FoundTerm{Term: randString(r), Matches: r.IntN(5) - 1}
		}
	}
	if n := r.IntN(3); n > 0 || r.IntN(2) == 0 {
		f.Pages = make([]connector.FoundPage, n)
		for i := range f.Pages {
			p := connector.FoundPage{Page: r.IntN(70) - 1, Matches: r.IntN(5), SourcePage: r.IntN(3) - 1, Link: randString(r)}
			if n := r.IntN(3); n > 0 || r.IntN(2) == 0 {
				p.Snippets = make([]connector.Snippet, n)
				for j := range p.Snippets {
					p.Snippets[j] = connector.Snippet{Text: randString(r), SourcePage: r.IntN(3) - 1, Link: randString(r)}
				}
			}
			f.Pages[i] = p
		}
	}
	return f
}

func randResult(r *rand.Rand) any {
	switch r.IntN(6) {
	case 0:
		return connector.Document{Platform: randString(r), ID: randString(r), Type: randString(r), Title: randString(r),
			Date: randString(r), Organization: randString(r), URL: randString(r), Format: randString(r),
			Page: r.IntN(5) - 1, Pages: int(r.Int64()), Text: randString(r), Find: randFound(r), Extra: randExtra(r)}
	case 1:
		d := randResult(r)
		if doc, ok := d.(connector.Document); ok {
			return &doc
		}
		return (*connector.Document)(nil)
	case 2, 3:
		s := connector.SearchResult{Platform: randString(r), TotalIsApproximate: r.IntN(2) == 0, HasMore: r.IntN(2) == 0,
			Offset: r.IntN(100), Results: randItems(r)}
		if r.IntN(2) == 0 {
			t := r.IntN(1 << 20)
			s.Total = &t
		}
		switch r.IntN(3) {
		case 0:
			s.Notes = []string{}
		case 1:
			s.Notes = []string{randString(r), randString(r)}
		}
		if r.IntN(3) == 0 {
			return &s
		}
		return s
	default:
		l := connector.ListResult{Platform: randString(r), List: randString(r), Count: r.IntN(10), Items: randItems(r)}
		if r.IntN(3) == 0 {
			return &l
		}
		return l
	}
}

func TestResultEncodingIsJSONMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 19))
	hand := 0
	for i := range 20000 {
		v := randResult(r)
		want, werr := json.Marshal(v)
		got, gerr := Marshal(v)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("value %d %#v:\nMarshal %s (%v)\njson.Marshal  %s (%v)", i, v, got, gerr, want, werr)
		}
		if werr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("value %d: error %q, json.Marshal's %q", i, gerr, werr)
		}
		if n := resultSize(v); n > 0 {
			if _, ok := appendResult(nil, v); ok {
				hand++
			}
		}
	}
	// The test is only worth its name if most values took the hand path.
	if hand < 10000 {
		t.Fatalf("only %d of 20000 values were encoded by hand", hand)
	}
}

// FuzzResultEncoding holds the hand encoder to json.Marshal on documents
// and search results whose strings come from the fuzzer.
func FuzzResultEncoding(f *testing.F) {
	f.Add("Raadsvoorstel <b>&</b>", "\u2028\xff\x00é", 3)
	f.Add("", "\"\\\n\t", -1)
	f.Fuzz(func(t *testing.T, a, b string, n int) {
		vals := []any{
			connector.Document{Platform: a, ID: b, Title: a + b, Text: b, Page: n, Extra: map[string]map[string]any{a: {b: a, "n": n, "l": []string{a, b}}}},
			connector.SearchResult{Platform: b, Total: &n, Results: []connector.Item{{ID: a, Title: b, Snippet: a, Extra: map[string]map[string]any{b: {a: []any{b, float64(n) / 7}}}}}, Notes: []string{a}},
			connector.ListResult{Platform: a, List: b, Count: n, Items: []connector.Item{{ID: b, Title: a}}},
		}
		for _, v := range vals {
			want, werr := json.Marshal(v)
			got, gerr := Marshal(v)
			if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
				t.Fatalf("%#v:\nMarshal %s (%v)\njson.Marshal  %s (%v)", v, got, gerr, want, werr)
			}
		}
	})
}

type kind string

type marshalsItself struct{ A string }

func (marshalsItself) MarshalJSON() ([]byte, error) { return []byte(`"self"`), nil }

type textItself int

func (textItself) MarshalText() ([]byte, error) { return []byte("text"), nil }

type embeds struct {
	marshalsItself
	B int `json:"b"`
}

// flatTypes are the field types the random structs are made of: the flat
// kinds, and types that send a struct to json.Marshal.
var flatTypes = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[kind](), reflect.TypeFor[bool](), reflect.TypeFor[int](), reflect.TypeFor[int8](),
	reflect.TypeFor[int64](), reflect.TypeFor[uint](), reflect.TypeFor[uint16](), reflect.TypeFor[float64](), reflect.TypeFor[float32](),
	reflect.TypeFor[*string](), reflect.TypeFor[*int](), reflect.TypeFor[*float64](), reflect.TypeFor[*bool](),
	reflect.TypeFor[[]int](), reflect.TypeFor[any](), reflect.TypeFor[marshalsItself](), reflect.TypeFor[textItself](),
	reflect.TypeFor[*textItself](), reflect.TypeFor[**int](), reflect.TypeFor[json.Number](),
}

var flatTags = []string{``, `json:"a"`, `json:"b,omitempty"`, `json:",omitempty"`, `json:"-"`, `json:"-,"`, `json:"c,string"`,
	`json:"d,omitzero"`, `json:"a"`, `json:"x y"`, `json:"<&>"`, `json:"e"`}

func randFlatType(r *rand.Rand) reflect.Type {
	var fields []reflect.StructField
	for i := range r.IntN(5) {
		t := flatTypes[r.IntN(len(flatTypes))]
		if r.IntN(3) > 0 {
			t = flatTypes[r.IntN(14)] // mostly flat ones
		}
		name := []string{"F", "G", "Kind", "X"}[r.IntN(4)] + strconv.Itoa(i)
		fields = append(fields, reflect.StructField{Name: name, Type: t, Tag: reflect.StructTag(flatTags[r.IntN(len(flatTags))])})
	}
	return reflect.StructOf(fields)
}

func randFlatValue(r *rand.Rand, t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	for i := range t.NumField() {
		f := v.Field(i)
		if r.IntN(3) == 0 {
			continue // zero: omitempty omits it
		}
		ft := f.Type()
		if ft.Kind() == reflect.Pointer {
			if ft.Elem().Kind() == reflect.Pointer {
				continue
			}
			f.Set(reflect.New(ft.Elem()))
			f = f.Elem()
		}
		switch ft := f.Type(); ft.Kind() {
		case reflect.String:
			f.SetString(randString(r))
		case reflect.Bool:
			f.SetBool(r.IntN(2) == 0)
		case reflect.Int, reflect.Int8, reflect.Int64:
			f.SetInt(int64(r.Uint64()) >> (64 - ft.Bits()))
		case reflect.Uint, reflect.Uint16:
			f.SetUint(r.Uint64() >> (64 - ft.Bits()))
		case reflect.Float64, reflect.Float32:
			x := []float64{math.Copysign(0, -1), 1e-7, 1e21, 3.4e38, 0.1, r.NormFloat64() * 1e9, math.Inf(1), math.NaN()}
			f.SetFloat(x[r.IntN(len(x))])
		}
	}
	return v
}

func TestFlatEncodingIsJSONMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	hand := 0
	const n = 20000
	for i := range n {
		v := randFlatValue(r, randFlatType(r))
		vals := []any{v.Interface()}
		if v.CanAddr() {
			vals = append(vals, v.Addr().Interface())
		}
		for _, x := range vals {
			want, werr := json.Marshal(x)
			got, gerr := Marshal(x)
			if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("value %d %#v:\nMarshal %s (%v)\njson.Marshal  %s (%v)", i, x, got, gerr, want, werr)
			}
			if _, ok := appendFlat(nil, x); ok {
				hand++
			}
		}
	}
	for _, x := range []any{embeds{B: 1}, &embeds{}, marshalsItself{"a"}, struct{}{}, (*struct{ A int })(nil), 3, "x",
		struct {
			A kind `json:"a,omitempty"`
			B *int `json:"b,omitempty"`
			c string
		}{A: "<"}} {
		want, werr := json.Marshal(x)
		got, gerr := Marshal(x)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("%#v: Marshal %s (%v), json.Marshal %s (%v)", x, got, gerr, want, werr)
		}
	}
	if hand < n/2 {
		t.Fatalf("only %d of %d values were encoded by hand", hand, 2*n)
	}
	t.Logf("%d values encoded by hand", hand)
}

// Maps of every size are encoded with their keys sorted, as json.Marshal
// sorts them (sortedMembers sorts few members by insertion, more with
// slices.SortFunc).
func TestResultExtraSizes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 8, 9, 12, 13, 30} {
		inner := map[string]any{}
		outer := map[string]map[string]any{}
		for i := range n {
			k := fmt.Sprintf("k%03d", (i*7919)%1000)
			inner[k] = i
			outer[k] = map[string]any{k: k}
		}
		outer["obv"] = inner
		d := connector.Document{Platform: "p", ID: "i", Extra: outer}
		got, err := Marshal(d)
		want, werr := json.Marshal(d)
		if err != nil || werr != nil || string(got) != string(want) {
			t.Errorf("%d members: %s (%v), want %s (%v)", n, got, err, want, werr)
		}
	}
}
