package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// DecodeLenient decodes one JSON object (an entity, a search row) into v,
// a pointer to a struct, leaving out every field whose value has another
// type than v expects: when a platform turns a number into a string, that
// field is lost, not the call. It returns the paths of the fields left
// out, for a note ([DroppedNote]). A bad value in one of the required
// fields (JSON names), a value that is not a JSON object, or a bad field
// inside an array is still an error. At most 16 fields are left out.
func DecodeLenient(raw []byte, v any, required ...string) ([]string, error) {
	var dropped []string
	for {
		err := Unmarshal(raw, v)
		var te *json.UnmarshalTypeError
		if err == nil || !errors.As(err, &te) || te.Field == "" || len(dropped) >= 16 {
			return dropped, err
		}
		for _, r := range required {
			if strings.EqualFold(te.Field, r) {
				return dropped, err
			}
		}
		out, ok := withoutField(raw, strings.Split(te.Field, "."))
		if !ok {
			return dropped, err
		}
		raw = out
		dropped = append(dropped, te.Field)
		// A failed field may have been half set (a pointer allocated):
		// decode the rest again into a zero value.
		reflect.ValueOf(v).Elem().SetZero()
	}
}

// withoutField removes the member at path (JSON names, matched as
// encoding/json matches them: case-insensitively) from a JSON object.
func withoutField(raw []byte, path []string) ([]byte, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return nil, false
	}
	for k, v := range obj {
		if !strings.EqualFold(k, path[0]) {
			continue
		}
		if len(path) == 1 {
			delete(obj, k)
		} else {
			inner, ok := withoutField(v, path[1:])
			if !ok {
				return nil, false
			}
			obj[k] = inner
		}
		b, err := json.Marshal(obj)
		return b, err == nil
	}
	return nil, false
}

// DroppedNote is the note for fields [DecodeLenient] left out: who sent
// what ("the platform", "results").
func DroppedNote(who, what string, dropped []string) string {
	return fmt.Sprintf("%s sent %s with %s in an unexpected form; left out.", who, what, strings.Join(dropped, ", "))
}
