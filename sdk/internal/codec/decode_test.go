package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// Unmarshal and DecodeStrict must do exactly what json.Unmarshal and a
// json.Decoder refusing unknown fields do: the same values, the same
// errors, on any input.

// rawKeeper keeps what its UnmarshalJSON was given, as obv's soft values
// do, and fails on a number with json's own type error.
type rawKeeper struct {
	Raw   string
	Calls int
}

func (k *rawKeeper) UnmarshalJSON(b []byte) error {
	k.Raw += string(b)
	k.Calls++
	if len(b) > 0 && b[0] == '9' {
		return &json.UnmarshalTypeError{Value: "number", Type: reflect.TypeFor[string](), Field: "inner"}
	}
	if len(b) > 0 && b[0] == '8' {
		return errors.New("rawKeeper: eight")
	}
	return nil
}

type textish string

func (t *textish) UnmarshalText(b []byte) error { *t = textish(strings.ToUpper(string(b))); return nil }

type flat struct {
	S      string    `json:"s"`
	N      int       `json:"n"`
	I8     int8      `json:"i8"`
	U      uint      `json:"u"`
	U16    uint16    `json:"u16"`
	F      float64   `json:"f"`
	F32    float32   `json:"f32"`
	B      bool      `json:"b"`
	PS     *string   `json:"ps"`
	PN     *int      `json:"pn,omitempty"`
	PB     *bool     `json:"pb"`
	K      rawKeeper `json:"k"`
	Plain  string    // no tag: its Go name
	Dash   string    `json:"a-b_c"`
	Skip   string    `json:"-"`
	hidden string
	List   []int           `json:"list"`
	Any    any             `json:"any"`
	Map    map[string]int  `json:"map"`
	Str    int             `json:"str,string"`
	Num    json.Number     `json:"num"`
	Text   textish         `json:"text"`
	PK     *rawKeeper      `json:"pk"`
	Raw    json.RawMessage `json:"raw"`
}

type withEmbedded struct {
	rawKeeper
	S string `json:"s"`
}

type oddName struct {
	S string `json:"s p"`
}

// unicodeName's field is matched by json case-insensitively as "key"
// (U+212A KELVIN SIGN folds to k).
type unicodeName struct {
	Key string
}

var keys = []string{"s", "n", "i8", "u", "u16", "f", "f32", "b", "ps", "pn", "pb", "k", "Plain", "plain", "PLAIN", "a-b_c",
	"Skip", "-", "hidden", "list", "any", "map", "str", "num", "text", "pk", "raw", "S", "N", "x", "unknown", "ſ", "K", "\u212a",
	"s p", `s\u0070`, `\u0073`, "key", "KEY", "Key"}

var values = []string{`""`, `"x"`, `"Raadsvoorstel"`, `"é"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\udc00\ud83d\ude00"`,
	`"a\nb\t\"\\\/"`, `"\b\f\r"`, "\"\xff\xfe\"", "\"\xc3\"", "\"\x01\"", `"\x"`, `"\'"`, `"\u12"`, `"<&>"`, `"12"`, `"-3"`, `"true"`,
	`0`, `-0`, `1`, `-1`, `127`, `128`, `-129`, `255`, `65535`, `65536`, `9223372036854775807`, `9223372036854775808`,
	`18446744073709551615`, `18446744073709551616`, `1.5`, `-0.0`, `1e3`, `1E+3`, `1e-400`, `1e400`, `3.4e39`, `01`, `1.`, `.5`,
	`-`, `1e`, `true`, `false`, `null`, `nul`, `tru`, `[]`, `[1,2]`, `[1,`, `{}`, `{"a":1}`, `{"a":[{"b":null}]}`, `{"a"}`, `[`,
	`8`, `9`, `80`, ` 1 `, "\t\"x\"\n"}

func randJSON(r *rand.Rand) []byte {
	var b bytes.Buffer
	ws := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r\n"}[r.IntN(4)])
		}
	}
	ws()
	switch r.IntN(12) {
	case 0:
		b.WriteString(values[r.IntN(len(values))]) // not an object
	default:
		b.WriteByte('{')
		for i := range r.IntN(6) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			fmt.Fprintf(&b, "%q", keys[r.IntN(len(keys))])
			if r.IntN(3) == 0 {
				// escaped in the input, not by %q
				s := b.Bytes()
				if k := bytes.LastIndexByte(s, '"'); k > 0 && r.IntN(2) == 0 {
					b.Truncate(k)
					b.WriteString(`\u0041"`)
				}
			}
			ws()
			b.WriteByte(':')
			ws()
			b.WriteString(values[r.IntN(len(values))])
			ws()
		}
		b.WriteByte('}')
	}
	ws()
	out := b.Bytes()
	switch r.IntN(20) {
	case 0:
		out = out[:r.IntN(len(out)+1)]
	case 1:
		out = append(out, "x"...)
	case 2:
		out = append(out, "{}"...)
	case 3:
		if len(out) > 0 {
			out[r.IntN(len(out))] = byte(r.IntN(256))
		}
	}
	return out
}

// prefilled is a value with something in every field, so that what
// decoding leaves alone is compared too.
func prefilled() flat {
	s, n, yes := "old", 7, true
	return flat{S: "old", N: 1, U: 2, F: 3, B: true, PS: &s, PN: &n, PB: &yes, Plain: "old", K: rawKeeper{Raw: "old"},
		List: []int{9}, Any: "old", Map: map[string]int{"old": 1}}
}

func sameError(t *testing.T, in []byte, got, want error) {
	t.Helper()
	if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
		t.Fatalf("%q: error %v, json's %v", in, got, want)
	}
	var gt, wt *json.UnmarshalTypeError
	if errors.As(got, &gt) != errors.As(want, &wt) || gt != nil && (gt.Field != wt.Field || gt.Struct != wt.Struct) {
		t.Fatalf("%q: type error %+v, json's %+v", in, gt, wt)
	}
}

func checkDecode(t *testing.T, in []byte) (fast bool) {
	t.Helper()
	got, want := prefilled(), prefilled()
	fast, _ = decodeFast(in, new(flat), false)
	sameError(t, in, Unmarshal(in, &got), json.Unmarshal(in, &want))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nUnmarshal      %+v\njson.Unmarshal %+v", in, got, want)
	}
	got, want = prefilled(), prefilled()
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	sameError(t, in, DecodeStrict(in, &got), dec.Decode(&want))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nDecodeStrict %+v\nDecoder    %+v", in, got, want)
	}
	for _, v := range []func() any{
		func() any { return new(string) }, func() any { return new(int8) }, func() any { return new(float32) },
		func() any { return new(bool) }, func() any { return new(uint) }, func() any { return new(withEmbedded) },
		func() any { return new(oddName) }, func() any { return new(unicodeName) }, func() any { return new(any) }, func() any { return new(map[string]any) },
		func() any { return new(*int) }, func() any { return new(textish) },
	} {
		g, w := v(), v()
		sameError(t, in, Unmarshal(in, g), json.Unmarshal(in, w))
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("%q into %T: %v, json's %v", in, g, reflect.ValueOf(g).Elem(), reflect.ValueOf(w).Elem())
		}
	}
	return fast
}

func TestUnmarshalIsJSONUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 1))
	fast := 0
	const n = 30000
	for range n {
		if checkDecode(t, randJSON(r)) {
			fast++
		}
	}
	for _, v := range values {
		checkDecode(t, []byte(v))
		checkDecode(t, []byte(`{"s":`+v+`}`))
		checkDecode(t, []byte(`{"k":`+v+`,"pn":`+v+`,"f32":`+v+`}`))
	}
	// Worth its name only if the fast path decided often.
	if fast < n/10 {
		t.Fatalf("the fast path decided %d of %d inputs", fast, n)
	}
	t.Logf("the fast path decided %d of %d inputs", fast, n)
}

func TestUnmarshalFastPathTaken(t *testing.T) {
	var args struct {
		EntityID string `json:"entity_id"`
		Page     int    `json:"page"`
	}
	for _, in := range []string{`{}`, `{"entity_id":"document:notubiz:gemeente:soest:12345"}`, ` {"entity_id":"a\n\u00e9","page":2} `} {
		if ok, err := decodeFast([]byte(in), &args, true); !ok || err != nil {
			t.Errorf("%s: fast %v, %v", in, ok, err)
		}
	}
	var body struct {
		DocumentCount     *int `json:"documentCount"`
		OrganizationCount *int `json:"organizationCount"`
	}
	if ok, _ := decodeFast([]byte(`{"documentCount": 3045470, "organizationCount": 124, "other": [1, {"x": "y"}]}`), &body, false); !ok || *body.DocumentCount != 3045470 || *body.OrganizationCount != 124 {
		t.Errorf("stats body: fast %v, %+v", ok, body)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, v := range values {
		f.Add([]byte(`{"s":` + v + `,"k":` + v + `,"n":` + v + `}`))
	}
	f.Add([]byte(`{"plain":"x","PS":"y","ps":null,"pk":null,"raw":[1, 2 ]}`))
	f.Fuzz(func(t *testing.T, in []byte) { checkDecode(t, in) })
}

// Pointers to numbers of every size, nil or set before, are set as
// json.Unmarshal sets them (the fast path allocates and stores them
// without reflect).
func TestUnmarshalScalarPointers(t *testing.T) {
	type ptrs struct {
		I8  *int8    `json:"i8"`
		I16 *int16   `json:"i16"`
		I32 *int32   `json:"i32"`
		U8  *uint8   `json:"u8"`
		U64 *uint64  `json:"u64"`
		F32 *float32 `json:"f32"`
		F64 *float64 `json:"f64"`
		B   *bool    `json:"b"`
	}
	prefill := func() ptrs {
		i8, i16, i32, u8, u64, f32, f64, b := int8(1), int16(2), int32(3), uint8(4), uint64(5), float32(6), 7.0, true
		return ptrs{&i8, &i16, &i32, &u8, &u64, &f32, &f64, &b}
	}
	for _, in := range []string{
		`{"i8":-128,"i16":32767,"i32":-5,"u8":255,"u64":18446744073709551615,"f32":1.5e3,"f64":-0.25,"b":false}`,
		`{"i8":null,"i16":null,"i32":null,"u8":null,"u64":null,"f32":null,"f64":null,"b":null}`,
		`{"i8":7,"b":true}`,
	} {
		for _, pre := range []bool{false, true} {
			var got, want ptrs
			if pre {
				got, want = prefill(), prefill()
			}
			err, werr := Unmarshal([]byte(in), &got), json.Unmarshal([]byte(in), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if (err == nil) != (werr == nil) || string(gb) != string(wb) {
				t.Errorf("%s (prefilled %v): %s %v, want %s %v", in, pre, gb, err, wb, werr)
			}
		}
	}
}
