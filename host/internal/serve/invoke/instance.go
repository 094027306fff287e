package invoke

import (
	"context"
	"encoding/json"

	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
)

// A call may be admitted to its connector's instances before it enters
// the invoke path: the MCP edge admits a call that may become a task with
// admission.AcquireFunc, so that a task waiting for an instance holds no
// goroutine at all (not the 16 KiB stack the whole handler chain grows
// to), and then runs the call with the instance it holds.

type instanceKey struct{}

type heldInstance struct {
	adm     *admission.Admission
	release func()
}

// WithInstance returns ctx carrying an instance of adm's connector that
// the call already holds (release gives it back): [Engine.Call] uses it
// instead of acquiring one, and gives it back when the call ends.
func WithInstance(ctx context.Context, adm *admission.Admission, release func()) context.Context {
	return context.WithValue(ctx, instanceKey{}, heldInstance{adm, release})
}

// instanceFrom is the instance of adm the call holds, if any.
func instanceFrom(ctx context.Context, adm *admission.Admission) (release func(), ok bool) {
	h, ok := ctx.Value(instanceKey{}).(heldInstance)
	if !ok || h.adm != adm {
		return nil, false
	}
	return h.release, true
}

// Kept reports whether a call of t with args would be answered from a
// kept result, without an instance.
func (e *Engine) Kept(t *Tool, args json.RawMessage) bool {
	if e.o.Memo == nil {
		return false
	}
	p := t.Platform
	k, ok := e.o.Memo.Key(p.Manifest.ID, p.Stamp, t.Def.Name, AbsentArgs(args))
	if !ok {
		return false
	}
	_, _, ok = e.o.Memo.Get(k)
	return ok
}
