package codec

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Unmarshal is json.Unmarshal, with a faster path for the common case of a
// tool's arguments and a platform's flat answers: an object decoded into a
// struct whose members are strings, numbers, booleans, pointers to those,
// or types with their own UnmarshalJSON (members of other types may exist
// as long as the input leaves them out), or one such value decoded into a
// pointer to a string, number or boolean. Members the struct does not
// have are checked and skipped. Anything else (escaped or case-folded
// names that need json's matching, a value of the wrong type, invalid
// JSON, nesting the struct does not hold) goes to json.Unmarshal whole, so
// the result and every error are json.Unmarshal's. In a WebAssembly
// connector json.Unmarshal scans each byte through an indirect call and
// allocates a decoder per call, which cost about ten times the native
// time (see RATIONALE, "Where a WebAssembly call's time goes");
// decode_test.go holds this path to json.Unmarshal on random inputs.
func Unmarshal(data []byte, v any) error {
	if ok, err := decodeFast(data, v, false); ok {
		return err
	}
	return json.Unmarshal(data, v)
}

// DecodeStrict is what a json.Decoder refusing unknown fields decodes
// from data, by the fast path of [Unmarshal] when it applies: a tool's
// arguments are checked against the input schema by the host, and a
// member the struct does not name is a mistake worth an error, not
// something to skip. As with the Decoder, only the first value counts.
func DecodeStrict(data []byte, v any) error {
	if ok, err := decodeFast(data, v, true); ok {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// fieldKind is how the fast path sets a field.
type fieldKind uint8

const (
	kindUnsupported fieldKind = iota // json.Unmarshal must decode it
	kindString
	kindBool
	kindInt
	kindUint
	kindFloat
	kindUnmarshaler // a non-pointer type whose pointer has UnmarshalJSON
)

type fieldPlan struct {
	index int    // in the struct
	name  string // the JSON name
	kind  fieldKind
	ptr   bool // a pointer to the kind
	bits  int  // of an int, uint or float
	// offset is the field's in the struct, and proto, for a
	// kindUnmarshaler, a json.Unmarshaler of the field's pointer type:
	// the fast path points it at the field instead of reaching the
	// method through reflect (see [asUnmarshaler]). nil when that cannot
	// be done.
	offset uintptr
	proto  json.Unmarshaler
}

// structPlan is what the fast path knows of a struct type; ok is false
// when json.Unmarshal must decode the type whatever the input (embedded
// fields, names json would match in other ways than exactly).
type structPlan struct {
	ok     bool
	name   string // the struct's name, for json's error context
	fields []fieldPlan
	byName map[string]int // JSON name to index in fields
}

var plans typeCache[*structPlan]

// typeCache maps a type to what the fast paths know of it. The types a
// connector decodes and encodes are few, so the last few found are kept
// where a lookup compares types instead of hashing one, which in
// WebAssembly is done in software (a sync.Map lookup took about 0.7 µs
// there, three a call).
type typeCache[P any] struct {
	recent [4]atomic.Pointer[typeHit[P]]
	turn   atomic.Uint32 // the slot the next miss replaces
	all    sync.Map      // reflect.Type to P
}

type typeHit[P any] struct {
	t reflect.Type
	p P
}

func (c *typeCache[P]) get(t reflect.Type, build func(reflect.Type) P) P {
	for i := range c.recent {
		if h := c.recent[i].Load(); h != nil && h.t == t {
			return h.p
		}
	}
	var p P
	if v, ok := c.all.Load(t); ok {
		p = v.(P)
	} else {
		p = build(t)
		c.all.Store(t, p)
	}
	c.recent[c.turn.Add(1)%uint32(len(c.recent))].Store(&typeHit[P]{t, p})
	return p
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

func planOf(t reflect.Type) *structPlan { return plans.get(t, buildPlan) }

var scalarPlans typeCache[*fieldPlan]

// scalarPlanOf is how the fast path decodes a value of type t on its own.
func scalarPlanOf(t reflect.Type) *fieldPlan {
	return scalarPlans.get(t, func(t reflect.Type) *fieldPlan {
		fp := &fieldPlan{}
		fp.kind, fp.ptr, fp.bits = kindOf(t)
		return fp
	})
}

func buildPlan(t reflect.Type) *structPlan {
	p := &structPlan{name: t.Name(), byName: map[string]int{}}
	p.ok = jsonFields(t, func(i int, f reflect.StructField, name, opts string) bool {
		fp := fieldPlan{index: i, name: name, offset: f.Offset}
		if !strings.Contains(","+opts+",", ",string,") {
			fp.kind, fp.ptr, fp.bits = kindOf(f.Type)
		}
		if fp.kind == kindUnmarshaler {
			fp.proto = unmarshalerProto(f.Type)
		}
		p.byName[name] = len(p.fields)
		p.fields = append(p.fields, fp)
		return true
	})
	return p
}

// jsonFields calls field for each field json encodes and decodes (exported,
// not tagged "-"), with its name and its tag's options, and reports whether
// the struct is one the sdk's fast paths take. It stops at false for names
// that follow json's own rules: an embedded field (promotion), a name that
// is not plain ASCII (json folds Unicode case its own way), two fields of
// one name (json's conflict rules), or when field returns false.
func jsonFields(t reflect.Type, field func(i int, f reflect.StructField, name, opts string) bool) bool {
	seen := make(map[string]bool, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		if !plainName(name) || seen[name] {
			return false
		}
		seen[name] = true
		if !field(i, f, name, opts) {
			return false
		}
	}
	return true
}

// plainName reports whether a tag's name is one json takes as it is and
// the fast path can match: ASCII letters, digits, '_' and '-'.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func kindOf(t reflect.Type) (kind fieldKind, ptr bool, bits int) {
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType) {
		return kindUnmarshaler, false, 0
	}
	if t.Kind() == reflect.Pointer {
		t, ptr = t.Elem(), true
	}
	if t == numberType || t.Implements(unmarshalerType) || t.Implements(textUnmarshalerType) ||
		reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return kindUnsupported, false, 0
	}
	switch t.Kind() {
	case reflect.String:
		return kindString, ptr, 0
	case reflect.Bool:
		return kindBool, ptr, 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt, ptr, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return kindUint, ptr, t.Bits()
	case reflect.Float32, reflect.Float64:
		return kindFloat, ptr, t.Bits()
	}
	return kindUnsupported, false, 0
}

// assignment is one member's decoded value, set once the whole input is
// known to be valid and decodable.
type assignment struct {
	field *fieldPlan
	null  bool
	str   []byte // a string's bytes between its quotes, decoded when set
	plain bool   // str is plainBytes
	num   uint64 // an int's or uint's bits, a float's bits, a bool
	raw   []byte // for an Unmarshaler
}

// decodeFast decodes data into v when the fast path knows how, and
// reports false, with v untouched, when json.Unmarshal must (or, with
// disallowUnknown, a json.Decoder refusing unknown fields). The error is
// an UnmarshalJSON method's, as json would return it.
func decodeFast(data []byte, v any, disallowUnknown bool) (bool, error) {
	if p, ok := v.(*string); ok && p != nil {
		return decodeString(data, p), nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false, nil
	}
	ev := rv.Elem()
	if ev.Kind() != reflect.Struct {
		return decodeScalar(data, ev)
	}
	p := planOf(ev.Type())
	if !p.ok {
		return false, nil
	}
	d := decoder{data: data}
	d.space()
	if !d.eat('{') {
		return false, nil
	}
	var buf [16]assignment
	set := buf[:0]
	next := 0 // where field looks first: members often come in the struct's order
	d.space()
	if !d.eat('}') {
		for {
			d.space()
			raw, plainKey, ok := d.strRawPlain()
			if !ok {
				return false, nil
			}
			d.space()
			if !d.eat(':') {
				return false, nil
			}
			d.space()
			var i int
			var known bool
			if plainKey {
				i, known = p.field(raw, next)
			} else {
				i, known = p.field([]byte(unquote(raw)), next)
			}
			if known {
				next = i + 1
			}
			if !known {
				if disallowUnknown || !p.unmatched(raw) {
					return false, nil
				}
				if !d.skip(0) {
					return false, nil
				}
			} else {
				a := assignment{field: &p.fields[i]}
				if !d.value(&a) {
					return false, nil
				}
				set = append(set, a)
			}
			d.space()
			if d.eat(',') {
				continue
			}
			if d.eat('}') {
				break
			}
			return false, nil
		}
	}
	d.space()
	if d.i != len(data) {
		return false, nil
	}
	base := rv.UnsafePointer()
	for k := range set {
		if err := set[k].applyAt(base, ev); err != nil {
			if te, ok := err.(*json.UnmarshalTypeError); ok {
				// as json's decoder adds its context
				te.Struct = p.name
				if te.Field != "" {
					te.Field = set[k].field.name + "." + te.Field
				} else {
					te.Field = set[k].field.name
				}
			}
			return true, err
		}
	}
	return true, nil
}

// field returns the index in p.fields of the field named name, looking
// from index next on first. A scan comparing lengths first, not a map:
// in WebAssembly a string's hash is computed in software, and looking up
// each member of obv's entity in a map took longer than decoding it.
func (p *structPlan) field(name []byte, next int) (int, bool) {
	if len(p.fields) > maxScanFields {
		i, ok := p.byName[string(name)] // not allocated
		return i, ok
	}
	for k := range p.fields {
		i := next + k
		if i >= len(p.fields) {
			i -= len(p.fields)
		}
		if f := p.fields[i].name; len(f) == len(name) && f == string(name) {
			return i, true
		}
	}
	return 0, false
}

// maxScanFields is the most fields [structPlan.field] scans.
const maxScanFields = 32

// unmatched reports whether key matches none of the fields the way json
// would still match it (case-insensitively; a non-ASCII key is left to
// json's own folding).
func (p *structPlan) unmatched(raw []byte) bool {
	if !plainBytes(raw) {
		return false
	}
	for i := range p.fields {
		if equalFoldASCII(p.fields[i].name, raw) {
			return false
		}
	}
	return true
}

func equalFoldASCII(s string, b []byte) bool {
	if len(s) != len(b) {
		return false
	}
	for i := range len(b) {
		x, y := s[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// decodeString is decodeScalar for a *string, without reflection: the
// common case of a value that decodes itself (obv's soft strings).
func decodeString(data []byte, p *string) bool {
	d := decoder{data: data}
	d.space()
	null := d.literal("null")
	var raw []byte
	var plain bool
	if !null {
		var ok bool
		if raw, plain, ok = d.strRawPlain(); !ok {
			return false
		}
	}
	d.space()
	if d.i != len(data) {
		return false
	}
	if !null {
		*p = decodeStrPlain(raw, plain)
	}
	return true
}

// decodeScalar decodes one string, number or boolean into ev.
func decodeScalar(data []byte, ev reflect.Value) (bool, error) {
	fp := scalarPlanOf(ev.Type())
	if fp.kind == kindUnsupported || fp.kind == kindUnmarshaler || fp.ptr {
		return false, nil
	}
	d := decoder{data: data}
	d.space()
	a := assignment{field: fp}
	if !d.value(&a) {
		return false, nil
	}
	d.space()
	if d.i != len(data) {
		return false, nil
	}
	return true, a.apply(ev)
}

// applyAt sets the field of the struct at base (ev) as apply does: an
// Unmarshaler and a string without reflect, which in WebAssembly cost
// more than decoding them (reflect.Value.Addr looks its pointer type up
// in a map, the assertion to json.Unmarshaler in the itab table; 9 fields
// of obv's entity).
func (a *assignment) applyAt(base unsafe.Pointer, ev reflect.Value) error {
	fp := a.field
	switch {
	case fp.kind == kindUnmarshaler && fp.proto != nil:
		return asUnmarshaler(fp.proto, unsafe.Add(base, fp.offset)).UnmarshalJSON(a.raw)
	case fp.kind == kindString && !fp.ptr && !a.null:
		*(*string)(unsafe.Add(base, fp.offset)) = decodeStrPlain(a.str, a.plain)
		return nil
	case fp.kind == kindInt || fp.kind == kindUint || fp.kind == kindFloat || fp.kind == kindBool:
		p := unsafe.Add(base, fp.offset)
		if fp.ptr {
			pp := (*unsafe.Pointer)(p)
			if a.null {
				*pp = nil
				return nil
			}
			if *pp == nil {
				*pp = newScalar(fp) // reflect.New looked its type's pointer type up in a map
			}
			p = *pp
		} else if a.null {
			return nil // json leaves a number or boolean as it was
		}
		setScalar(p, fp, a.num)
		return nil
	}
	return a.apply(ev.Field(fp.index))
}

// newScalar allocates a value of fp's kind and size, for a pointer field.
func newScalar(fp *fieldPlan) unsafe.Pointer {
	switch {
	case fp.kind == kindBool || fp.bits == 8:
		return unsafe.Pointer(new(uint8))
	case fp.bits == 16:
		return unsafe.Pointer(new(uint16))
	case fp.bits == 32:
		return unsafe.Pointer(new(uint32))
	}
	return unsafe.Pointer(new(uint64))
}

// setScalar stores num (an assignment's bits) at p as fp's kind, as
// reflect's SetBool, SetInt, SetUint and SetFloat do.
func setScalar(p unsafe.Pointer, fp *fieldPlan, num uint64) {
	switch fp.kind {
	case kindBool:
		*(*bool)(p) = num != 0
	case kindFloat:
		if fp.bits == 32 {
			*(*float32)(p) = float32(math.Float64frombits(num))
		} else {
			*(*float64)(p) = math.Float64frombits(num)
		}
	default: // an int's or uint's bits, truncated to its size
		switch fp.bits {
		case 8:
			*(*uint8)(p) = uint8(num)
		case 16:
			*(*uint16)(p) = uint16(num)
		case 32:
			*(*uint32)(p) = uint32(num)
		default:
			*(*uint64)(p) = num
		}
	}
}

// unmarshalerProto returns a json.Unmarshaler holding a *t, when the
// interface value is laid out as asUnmarshaler assumes (its second word
// the pointer), else nil.
func unmarshalerProto(t reflect.Type) json.Unmarshaler {
	v := reflect.New(t)
	u, ok := v.Interface().(json.Unmarshaler)
	if !ok || (*[2]unsafe.Pointer)(unsafe.Pointer(&u))[1] != v.UnsafePointer() {
		return nil
	}
	if w := asUnmarshaler(u, v.UnsafePointer()); w != u {
		return nil
	}
	return u
}

// asUnmarshaler is proto (from unmarshalerProto) holding p, a pointer to a
// value of proto's type's element.
func asUnmarshaler(proto json.Unmarshaler, p unsafe.Pointer) json.Unmarshaler {
	(*[2]unsafe.Pointer)(unsafe.Pointer(&proto))[1] = p
	return proto
}

// apply sets f (a field, or decodeScalar's whole value) as json would,
// through reflect: the general path, for what applyAt does not store
// itself.
func (a *assignment) apply(f reflect.Value) error {
	fp := a.field
	if fp.kind == kindUnmarshaler {
		return f.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(a.raw)
	}
	if fp.ptr {
		if a.null {
			f.SetZero()
			return nil
		}
		if f.IsNil() {
			f.Set(reflect.New(f.Type().Elem()))
		}
		f = f.Elem()
	} else if a.null {
		return nil // json leaves a string, number or boolean as it was
	}
	switch fp.kind {
	case kindString:
		f.SetString(decodeStr(a.str))
	case kindBool:
		f.SetBool(a.num != 0)
	case kindInt:
		f.SetInt(int64(a.num))
	case kindUint:
		f.SetUint(a.num)
	case kindFloat:
		f.SetFloat(math.Float64frombits(a.num))
	}
	return nil
}

// decoder reads JSON for the fast path; every method reports false on
// anything it does not handle, and the input goes to json.Unmarshal.
type decoder struct {
	data []byte
	i    int
}

func (d *decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) eat(c byte) bool {
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// value reads the value of a known field into a.
func (d *decoder) value(a *assignment) bool {
	fp := a.field
	start := d.i
	if fp.kind == kindUnmarshaler {
		if !d.skip(0) {
			return false
		}
		a.raw = d.data[start:d.i]
		return true
	}
	if d.i >= len(d.data) || fp.kind == kindUnsupported {
		return false
	}
	switch c := d.data[d.i]; {
	case c == 'n':
		if !d.literal("null") {
			return false
		}
		a.null = true
		return true
	case c == 't' || c == 'f':
		if fp.kind != kindBool {
			return false
		}
		if d.literal("true") {
			a.num = 1
			return true
		}
		return d.literal("false")
	case c == '"':
		if fp.kind != kindString {
			return false
		}
		raw, plain, ok := d.strRawPlain()
		a.str, a.plain = raw, plain
		return ok
	case c == '-' || '0' <= c && c <= '9':
		if !d.number() {
			return false
		}
		if n, neg, ok := smallInt(d.data[start:d.i]); ok && (fp.kind == kindInt || fp.kind == kindUint && !neg) {
			// ParseInt's and ParseUint's answer, without the literal
			// made a string
			if fp.kind == kindInt {
				v := int64(n)
				if neg {
					v = -v
				}
				if fp.bits < 64 && (v < -1<<(fp.bits-1) || v >= 1<<(fp.bits-1)) {
					return false
				}
				a.num = uint64(v)
			} else {
				if fp.bits < 64 && n >= 1<<fp.bits {
					return false
				}
				a.num = n
			}
			return true
		}
		lit := string(d.data[start:d.i])
		switch fp.kind {
		case kindInt:
			n, err := strconv.ParseInt(lit, 10, 64)
			if err != nil || fp.bits < 64 && (n < -1<<(fp.bits-1) || n >= 1<<(fp.bits-1)) {
				return false
			}
			a.num = uint64(n)
		case kindUint:
			n, err := strconv.ParseUint(lit, 10, 64)
			if err != nil || fp.bits < 64 && n >= 1<<fp.bits {
				return false
			}
			a.num = n
		case kindFloat:
			f, err := strconv.ParseFloat(lit, fp.bits)
			if err != nil {
				return false
			}
			a.num = math.Float64bits(f)
		default:
			return false
		}
		return true
	}
	return false
}

// smallInt reads a number of at most 18 digits, perhaps negative, and
// nothing else (no fraction or exponent).
func smallInt(b []byte) (n uint64, neg, ok bool) {
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, neg, true
}

func (d *decoder) literal(lit string) bool {
	if len(d.data)-d.i >= len(lit) && string(d.data[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// number reads a JSON number.
func (d *decoder) number() bool {
	b, i := d.data, d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return true
}

// maxDepth bounds the nesting the fast path skips; deeper input goes to
// json, which has its own limit.
const maxDepth = 64

// skip reads any JSON value, checking it as json's scanner does.
func (d *decoder) skip(depth int) bool {
	if d.i >= len(d.data) || depth > maxDepth {
		return false
	}
	switch c := d.data[d.i]; {
	case c == '"':
		return d.skipString()
	case c == '{':
		d.i++
		d.space()
		if d.eat('}') {
			return true
		}
		for {
			d.space()
			if !d.skipString() {
				return false
			}
			d.space()
			if !d.eat(':') {
				return false
			}
			d.space()
			if !d.skip(depth + 1) {
				return false
			}
			d.space()
			if d.eat(',') {
				continue
			}
			return d.eat('}')
		}
	case c == '[':
		d.i++
		d.space()
		if d.eat(']') {
			return true
		}
		for {
			d.space()
			if !d.skip(depth + 1) {
				return false
			}
			d.space()
			if d.eat(',') {
				continue
			}
			return d.eat(']')
		}
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return false
}

// skipString reads a JSON string without decoding it.
func (d *decoder) skipString() bool {
	_, ok := d.scanString()
	return ok
}

// plainByte marks the bytes a JSON string holds as they are and that are
// their own value: ASCII from the space on, but for '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString is skipString, and reports whether the string's bytes are
// its value (plainBytes), found in the same pass: a second pass over
// every member name and string value cost more than it saved in
// WebAssembly.
func (d *decoder) scanString() (plain, ok bool) {
	b, i := d.data, d.i
	if i >= len(b) || b[i] != '"' {
		return false, false
	}
	i++
	plain = true
	for {
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			return false, false
		}
		switch c := b[i]; {
		case c == '"':
			d.i = i + 1
			return plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return false, false
				}
				i += 5
			default:
				return false, false
			}
		case c < 0x20:
			return false, false
		default: // not ASCII
			plain = false
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// strRaw reads a JSON string and returns the bytes between its quotes.
func (d *decoder) strRaw() ([]byte, bool) {
	raw, _, ok := d.strRawPlain()
	return raw, ok
}

// strRawPlain is strRaw, and whether the bytes are plainBytes.
func (d *decoder) strRawPlain() (raw []byte, plain, ok bool) {
	start := d.i
	if plain, ok = d.scanString(); !ok {
		return nil, false, false
	}
	return d.data[start+1 : d.i-1], plain, true
}

// plainBytes reports whether a string's bytes are its value: ASCII
// without escapes.
func plainBytes(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// decodeStrPlain is decodeStr of s, known to be plainBytes when plain:
// the scan that found the string's end already knows, and a second look
// at every byte cost more than it saved in WebAssembly.
func decodeStrPlain(s []byte, plain bool) string {
	if plain {
		return string(s)
	}
	return decodeStr(s)
}

// decodeStr decodes the bytes between a valid JSON string's quotes as
// json does: escapes resolved, each byte of invalid UTF-8 and each lone
// surrogate as U+FFFD.
func decodeStr(s []byte) string {
	if plainBytes(s) || (!hasByte(s, '\\') && utf8.Valid(s)) {
		return string(s)
	}
	return unquote(s)
}

func hasByte(s []byte, c byte) bool {
	for _, x := range s {
		if x == c {
			return true
		}
	}
	return false
}

// unquote decodes the inside of a valid JSON string: encoding/json's
// unquoteBytes.
func unquote(s []byte) string {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
				r++
			case 'f':
				b = append(b, '\f')
				r++
			case 'n':
				b = append(b, '\n')
				r++
			case 'r':
				b = append(b, '\r')
				r++
			case 't':
				b = append(b, '\t')
				r++
			case 'u':
				rr := getu4(s[r-1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if rr1 := getu4(s[r:]); rr1 >= 0 {
						if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
							r += 6
							b = utf8.AppendRune(b, dec)
							break
						}
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default: // '"', '\\', '/'
				b = append(b, s[r])
				r++
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b)
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
