package openarchivaris

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// maxField is the largest value of a document answer decoded up front.
// A document's text can be megabytes; it is decoded on its own
// ([decodeAt]), once, and only the text key the record is read from.
const maxField = 64 << 10

// field is one value of a JSON object, decoded when it is small; a large
// value is only marked, so that a multi-MB answer never sits in memory
// decoded twice (a text under two keys, a text beside its HTML).
type field struct {
	v      any
	large  bool
	object bool
}

func (f *field) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	f.object = len(b) > 0 && b[0] == '{'
	if len(b) > maxField {
		f.large = true
		return nil
	}
	return json.Unmarshal(b, &f.v)
}

// decodeAt decodes the value at path (object keys from the top) of the
// JSON answer body into v and nothing else: a struct type with one field
// per level names the path, and encoding/json skips every other value
// without decoding it. Like all struct decoding it matches keys without
// regard to case, preferring an exact match.
func decodeAt(body []byte, path []string, v any) error {
	target := reflect.ValueOf(v).Elem()
	t := target.Type()
	for i := len(path) - 1; i >= 0; i-- {
		tag, _ := json.Marshal(path[i])
		t = reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: reflect.StructTag(`json:` + string(tag))}})
	}
	p := reflect.New(t)
	if err := json.Unmarshal(body, p.Interface()); err != nil {
		return err
	}
	e := p.Elem()
	for range path {
		e = e.Field(0)
	}
	target.Set(e)
	return nil
}
