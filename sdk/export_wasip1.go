//go:build wasip1

package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/wasmabi"
)

var exported *Plugin

// Export makes p the connector this module serves. Call it from an init
// function of the connector's main package: a reactor module runs package
// initialisation in _initialize, never main.
func Export(p *Plugin) { exported = p }

// Exported returns the plugin recorded by [Export], or nil.
func Exported() *Plugin { return exported }

//go:wasmimport besluitbron input_size
func hostInputSize() uint32

//go:wasmimport besluitbron input_read
func hostInputRead(ptr uint32)

//go:wasmimport besluitbron output_write
func hostOutputWrite(ptr, size uint32)

//go:wasmimport besluitbron fetch
func hostFetch(ptr, size uint32) uint32

//go:wasmimport besluitbron fetch_read
func hostFetchRead(ptr uint32)

//go:wasmimport besluitbron text_page
func hostTextPage(ptr, size uint32) uint32

//go:wasmimport besluitbron text_put
func hostTextPut(ptr, size uint32) uint32

//go:wasmimport besluitbron log
func hostLog(level int32, ptr, size uint32)

//go:wasmimport besluitbron progress
func hostProgress(done, total float64, ptr, size uint32)

// The client features (see client.go): each takes its request's JSON and
// returns the size of a connector.ClientReply, read with fetch_read.
//
//go:wasmimport besluitbron client_elicit
func hostClientElicit(ptr, size uint32) uint32

//go:wasmimport besluitbron client_sample
func hostClientSample(ptr, size uint32) uint32

//go:wasmimport besluitbron client_roots
func hostClientRoots() uint32

func ptrOf(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}

func writeOutput(b []byte) {
	moved += len(b)
	hostOutputWrite(ptrOf(b), uint32(len(b)))
	runtime.KeepAlive(b)
}

func readInput() []byte {
	n := hostInputSize()
	moved += int(n)
	b := make([]byte, n)
	if n > 0 {
		hostInputRead(ptrOf(b))
	}
	return b
}

// hostInterruptCheck is the host's interrupt check. The guest never calls
// it itself: the host rewrites every loop of the module to count down a
// budget and call it when the budget is spent, which is how a runaway call
// is stopped at its deadline (host/internal/runtime/wasmbudget). keepInterruptCheck
// is never set; it keeps the import in the module, where the host looks
// for it.
//
//go:wasmimport besluitbron interrupt_check
func hostInterruptCheck() uint32

var keepInterruptCheck bool

//go:wasmexport besluitbron_abi_version
func exportABIVersion() uint32 {
	if keepInterruptCheck {
		hostInterruptCheck()
	}
	return wasmabi.Version
}

//go:wasmexport besluitbron_describe
func exportDescribe() uint32 {
	if exported == nil {
		writeOutput([]byte("sdk: no connector exported; call sdk.Export in an init function"))
		return 1
	}
	m, err := exported.Describe(context.Background())
	if err != nil {
		writeOutput([]byte(err.Error()))
		return 1
	}
	b, err := json.Marshal(m)
	if err != nil {
		writeOutput([]byte(err.Error()))
		return 1
	}
	writeOutput(b)
	return 0
}

//go:wasmexport besluitbron_call
func exportCall() uint32 {
	if exported == nil {
		writeOutput([]byte("sdk: no connector exported"))
		return 1
	}
	req, keepsTexts, err := wasmabi.DecodeCallRequest(readInput())
	if err != nil {
		writeOutput([]byte(fmt.Sprintf("sdk: bad call request: %v", err)))
		return 1
	}
	defer collect()
	var h connector.Host = wasmHost{}
	if keepsTexts {
		h = textHost{}
	}
	// The result is encoded below and let go of: its text need not be a
	// copy of its structured content.
	res, err := exported.call(context.Background(), req, h, true)
	if err != nil {
		writeOutput([]byte(err.Error()))
		return 1
	}
	outBuf = wasmabi.AppendCallResult(outBuf[:0], res)
	writeOutput(outBuf)
	outBuf = reusable(outBuf)
	return 0
}

// outBuf and fetchBuf are buffers reused from call to call: the host copies
// what they hold before the guest goes on.
var outBuf, fetchBuf []byte

// reusable returns b for reuse, or nil when it grew too large to hold on to
// between calls.
func reusable(b []byte) []byte {
	if cap(b) > 64<<10 {
		return nil
	}
	return b[:0]
}

// moved counts the bytes a call took in and gave out (its input, fetch
// replies, texts, its output): a measure of the garbage it left.
var moved int

// collectAfter is how many bytes a call may move before it ends with a
// full garbage collection.
const collectAfter = 1 << 20

// collect runs when a call ends. Go's garbage collector marks in
// goroutines of its own, and in a WebAssembly reactor they run only when
// the call's goroutine yields, which an export that returns never does: a
// cycle begun during a call would stay unfinished, and every call after it
// would grow the heap until the instance's memory limit traps it (this is
// how reading a 1 MB judgement page by page ran out of memory after 28
// pages). So every call yields once at its end, which lets a pending cycle
// finish, and a call that moved megabytes collects in full: its garbage
// is gone before the next call, and a full collection of the small live
// heap costs less than the call already did.
func collect() {
	if moved >= collectAfter {
		runtime.GC()
	} else {
		runtime.Gosched()
	}
	moved = 0
}

// wasmHost is the host of a call, and textHost that of a call whose host
// keeps texts (a connector.TextStore), as the call's input says: a
// connector sees the same host as it would in-process.
type (
	wasmHost struct{}
	textHost struct{ wasmHost }
)

func (wasmHost) Fetch(_ context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	in := wasmabi.AppendFetchRequest(fetchBuf[:0], req)
	n := hostFetch(ptrOf(in), uint32(len(in)))
	runtime.KeepAlive(in)
	fetchBuf = reusable(in)
	rep, err := wasmabi.DecodeFetchReply(readReply(n))
	if err != nil {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "sdk: bad fetch reply from host: " + err.Error()}
	}
	if rep.Error != nil {
		return connector.FetchResponse{}, rep.Error
	}
	if rep.Response == nil {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "sdk: empty fetch reply from host"}
	}
	return *rep.Response, nil
}

// readReply copies the host's last reply of n bytes (a fetch's or a
// text's) into guest memory.
func readReply(n uint32) []byte {
	moved += int(n)
	out := make([]byte, n)
	if n > 0 {
		hostFetchRead(ptrOf(out))
	}
	return out
}

// TextPage implements connector.TextStore.
func (textHost) TextPage(_ context.Context, key connector.TextKey, n int) (connector.TextPage, bool, error) {
	in := wasmabi.AppendTextRequest(nil, connector.TextRequest{TextKey: key, Page: n})
	size := hostTextPage(ptrOf(in), uint32(len(in)))
	runtime.KeepAlive(in)
	rep, err := wasmabi.DecodeTextReply(readReply(size))
	if err != nil {
		return connector.TextPage{}, false, fmt.Errorf("sdk: bad text reply from host: %v", err)
	}
	if rep.Error != nil {
		return connector.TextPage{}, false, rep.Error
	}
	if !rep.Found || rep.Page == nil {
		return connector.TextPage{}, false, nil
	}
	return *rep.Page, true, nil
}

// PutText implements connector.TextStore.
func (textHost) PutText(_ context.Context, t connector.ExtractedText) error {
	in := wasmabi.AppendExtractedText(nil, t)
	moved += len(in)
	size := hostTextPut(ptrOf(in), uint32(len(in)))
	runtime.KeepAlive(in)
	if size == 0 {
		return nil
	}
	rep, err := wasmabi.DecodeTextReply(readReply(size))
	if err != nil {
		return fmt.Errorf("sdk: bad text reply from host: %v", err)
	}
	if rep.Error != nil {
		return rep.Error
	}
	return nil
}

func (wasmHost) Log(_ context.Context, level int, msg string) {
	b := []byte(msg)
	hostLog(int32(level), ptrOf(b), uint32(len(b)))
	runtime.KeepAlive(b)
}

func (wasmHost) Progress(_ context.Context, done, total float64, msg string) {
	b := []byte(msg)
	hostProgress(done, total, ptrOf(b), uint32(len(b)))
	runtime.KeepAlive(b)
}

// clientReply decodes the host's answer to a client feature's call.
func clientReply(feature string, size uint32) (connector.ClientReply, error) {
	var rep connector.ClientReply
	if err := json.Unmarshal(readReply(size), &rep); err != nil {
		return rep, &connector.ClientError{Kind: connector.ClientFailed, Feature: feature, Message: "sdk: bad client reply from host: " + err.Error()}
	}
	if rep.Error != nil {
		return rep, rep.Error
	}
	return rep, nil
}

// Elicit implements connector.Client.
func (wasmHost) Elicit(_ context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureElicitation, Message: err.Error()}
	}
	size := hostClientElicit(ptrOf(in), uint32(len(in)))
	runtime.KeepAlive(in)
	rep, err := clientReply(connector.FeatureElicitation, size)
	if err != nil {
		return connector.ElicitResult{}, err
	}
	if rep.Elicit == nil {
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation, Message: "sdk: empty elicitation reply from host"}
	}
	return *rep.Elicit, nil
}

// CreateMessage implements connector.Client.
func (wasmHost) CreateMessage(_ context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureSampling, Message: err.Error()}
	}
	moved += len(in)
	size := hostClientSample(ptrOf(in), uint32(len(in)))
	runtime.KeepAlive(in)
	rep, err := clientReply(connector.FeatureSampling, size)
	if err != nil {
		return connector.SampleResult{}, err
	}
	if rep.Sample == nil {
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureSampling, Message: "sdk: empty sampling reply from host"}
	}
	return *rep.Sample, nil
}

// ListRoots implements connector.Client.
func (wasmHost) ListRoots(context.Context) (connector.RootsResult, error) {
	rep, err := clientReply(connector.FeatureRoots, hostClientRoots())
	if err != nil {
		return connector.RootsResult{}, err
	}
	if rep.Roots == nil {
		return connector.RootsResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureRoots, Message: "sdk: empty roots reply from host"}
	}
	return *rep.Roots, nil
}

var (
	_ connector.TextStore = textHost{}
	_ connector.Client    = wasmHost{}
	_ connector.Client    = textHost{}
)
