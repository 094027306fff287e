//go:build wasip1

package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/besluitbron/besluitbron/sdk/connector"
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

//go:wasmimport besluitbron log
func hostLog(level int32, ptr, size uint32)

//go:wasmimport besluitbron progress
func hostProgress(done, total float64, ptr, size uint32)

func ptrOf(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}

func writeOutput(b []byte) {
	hostOutputWrite(ptrOf(b), uint32(len(b)))
	runtime.KeepAlive(b)
}

func readInput() []byte {
	n := hostInputSize()
	b := make([]byte, n)
	if n > 0 {
		hostInputRead(ptrOf(b))
	}
	return b
}

// hostInterruptCheck is the host's interrupt check. The guest never calls
// it itself: the host rewrites every loop of the module to count down a
// budget and call it when the budget is spent, which is how a runaway call
// is stopped at its deadline (host/internal/wasmcheck). keepInterruptCheck
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
	return connector.ABIVersion
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
	var req connector.CallRequest
	if err := json.Unmarshal(readInput(), &req); err != nil {
		writeOutput([]byte(fmt.Sprintf("sdk: bad call request: %v", err)))
		return 1
	}
	res, err := exported.Call(context.Background(), req, wasmHost{})
	if err != nil {
		writeOutput([]byte(err.Error()))
		return 1
	}
	b, err := json.Marshal(res)
	if err != nil {
		writeOutput([]byte(err.Error()))
		return 1
	}
	writeOutput(b)
	return 0
}

type wasmHost struct{}

func (wasmHost) Fetch(_ context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
	}
	n := hostFetch(ptrOf(in), uint32(len(in)))
	runtime.KeepAlive(in)
	out := make([]byte, n)
	if n > 0 {
		hostFetchRead(ptrOf(out))
	}
	var rep connector.FetchReply
	if err := json.Unmarshal(out, &rep); err != nil {
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
