package ori

import "encoding/json"

// soft is an optional part of an answer: a value of another shape than
// expected is kept as Err instead of failing the whole decode, so a tool
// answers without that part and says so in a note.
type soft[T any] struct {
	V   T
	Err error
}

func (s *soft[T]) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.V); err != nil {
		var zero T
		s.V, s.Err = zero, err
	}
	return nil
}
