package obv

import (
	"fmt"

	"github.com/besluitbron/besluitbron/sdk"
)

// soft is an optional part of an answer: a value of another shape than
// expected is kept as Err instead of failing the whole decode, so a tool
// answers without that part and says so in a note.
type soft[T any] struct {
	V   T
	Err error
}

// UnmarshalJSON decodes with sdk.Unmarshal (json.Unmarshal, without its
// per-call decoder for a plain string).
func (s *soft[T]) UnmarshalJSON(b []byte) error {
	if err := sdk.Unmarshal(b, &s.V); err != nil {
		var zero T
		s.V, s.Err = zero, err
	}
	return nil
}

// softErr is an unreadable optional part: its name in the platform's
// answer and why.
type softErr struct {
	field string
	err   error
}

// unreadable lists the parts whose Err is set, as notes.
func unreadable(parts []softErr, what string) []string {
	var notes []string
	for _, p := range parts {
		if p.err != nil {
			notes = append(notes, fmt.Sprintf("The platform's %s of this %s is unreadable and left out: %v.", p.field, what, p.err))
		}
	}
	return notes
}
