package wasmbudget

import "errors"

// ImportModule and ImportName name the host function the rewritten loops
// call when their budget runs out. Its type is () -> i32: the new budget.
const (
	ImportModule = "besluitbron"
	ImportName   = "interrupt_check"
)

// ErrNoImport means the module does not import the interrupt check: it
// was not built with the sdk, and is not rewritten.
var ErrNoImport = errors.New("wasmbudget: the module does not import " + ImportModule + "." + ImportName)

// Stats describe one rewrite.
type Stats struct {
	Functions int // function bodies decoded
	Loops     int // loop headers instrumented
}

// Instrument returns module with every loop and function entry counting
// down a budget that starts at budget (and is renewed by each call of the
// interrupt check).
// It returns ErrNoImport when the module does not import the check, and
// another error when it cannot rewrite the module safely; either way the
// caller runs the module as it is, with wazero's own termination checks.
//
// It works in three steps: parse reads the module's sections, index
// finds the check, the new global's index and the place of every probe
// (decoding each function body), and emit writes the rewritten module.
func Instrument(module []byte, budget uint32) ([]byte, Stats, error) {
	m, err := parse(module)
	if err != nil {
		return nil, Stats{}, err
	}
	p, err := index(m)
	if err != nil {
		return nil, p.stats, err
	}
	return emit(m, p, budget), p.stats, nil
}
