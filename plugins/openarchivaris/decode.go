package openarchivaris

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"sync"
)

// A document answer is decoded in one pass into a struct built from the
// key lists of mapping.go: one field of type any per key a document's
// record is read from, and the wrappers document and data holding the
// same fields. encoding/json decodes those keys and skips every other
// value without decoding it, so an answer that also carries, say, the
// document as HTML or its pages one by one never sits in memory decoded.
// Each text spelling the record has is decoded (in practice it has one);
// the record reads the first (textKeys order).
//
// Like all struct decoding it matches keys without regard to case,
// preferring an exact match: "Title" is read as title.

var (
	docTypesOnce sync.Once
	docKeys      []string     // the record keys, field i of docRecord
	docRecord    reflect.Type // struct { F0 any `json:"id"`; … }
	docAnswer    reflect.Type // docRecord's fields, then Document, Data *docRecord
)

// docKeyLists are the lists a document's record is read from.
func docKeyLists() [][]string {
	return [][]string{idKeys, titleKeys, dateKeys, orgKeys, orgTypeKeys, urlKeys, authorKeys, pagesKeys, textKeys}
}

func docTypes() {
	docTypesOnce.Do(func() {
		seen := map[string]bool{}
		var fields []reflect.StructField
		anyType := reflect.TypeFor[any]()
		for _, list := range docKeyLists() {
			for _, k := range list {
				if seen[k] {
					continue
				}
				seen[k] = true
				docKeys = append(docKeys, k)
				fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(len(fields)), Type: anyType, Tag: jsonTag(k)})
			}
		}
		docRecord = reflect.StructOf(fields)
		ptr := reflect.PointerTo(docRecord)
		docAnswer = reflect.StructOf(append(fields[:len(fields):len(fields)],
			reflect.StructField{Name: "Document", Type: ptr, Tag: jsonTag("document")},
			reflect.StructField{Name: "Data", Type: ptr, Tag: jsonTag("data")}))
	})
}

func jsonTag(key string) reflect.StructTag {
	b, _ := json.Marshal(key)
	return reflect.StructTag(`json:` + string(b))
}

// decodeRecordFields decodes a document answer: the record's known fields
// as a map (absent and null fields left out), and the wrapper it was
// under ("" for none).
func decodeRecordFields(body []byte) (map[string]any, string, error) {
	docTypes()
	v := reflect.New(docAnswer)
	if err := json.Unmarshal(body, v.Interface()); err != nil {
		// A document or data that is not an object is not a wrapper
		// (every other field takes any value): encoding/json has read the
		// rest and leaves that one empty.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field == "" {
			return nil, "", err
		}
	}
	top, rec, wrapper := v.Elem(), v.Elem(), ""
	var shapes *wrapperShapes
	for i, name := range []string{"document", "data"} {
		p := top.Field(len(docKeys) + i)
		if p.IsNil() {
			continue
		}
		if p.Elem().IsZero() {
			// An object without any known field, or no object at all:
			// only the answer's shape tells.
			if shapes == nil {
				shapes = &wrapperShapes{}
				_ = json.Unmarshal(body, shapes)
			}
			if !shapes.isObject(name) {
				continue
			}
		}
		rec, wrapper = p.Elem(), name
		break
	}
	m := make(map[string]any, 8)
	for i, k := range docKeys {
		if x := rec.Field(i).Interface(); x != nil {
			m[k] = x
		}
	}
	return m, wrapper, nil
}

// answerKeys lists every key of the record (under wrapper, when not ""),
// decoding none of their values, for an error that says what the answer
// has.
func answerKeys(body []byte, wrapper string) string {
	var top map[string]skipped
	var wrapped struct {
		Document map[string]skipped `json:"document"`
		Data     map[string]skipped `json:"data"`
	}
	m := map[string]any{}
	switch wrapper {
	case "":
		_ = json.Unmarshal(body, &top)
	default:
		_ = json.Unmarshal(body, &wrapped)
		top = wrapped.Document
		if wrapper == "data" {
			top = wrapped.Data
		}
	}
	for k := range top {
		m[k] = nil
	}
	return keysOf(m)
}

// skipped is a value read past without decoding.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// wrapperShapes says whether document and data are objects.
type wrapperShapes struct {
	Document shape `json:"document"`
	Data     shape `json:"data"`
}

func (w *wrapperShapes) isObject(name string) bool {
	if name == "document" {
		return w.Document.object
	}
	return w.Data.object
}

// shape records whether a value is an object, decoding nothing.
type shape struct{ object bool }

func (s *shape) UnmarshalJSON(b []byte) error {
	s.object = len(b) > 0 && b[0] == '{'
	return nil
}
