// Command rawout is a guest that writes whatever output it is told to:
// its call's arguments {"out": "<base64>", "rc": n} become the raw bytes
// and return code of besluitbron_call, so a fuzz test can hand the host
// every possible guest result through the real runtime.
package main

import (
	"encoding/base64"
	"encoding/json"
	"runtime"
	"unsafe"
)

func main() {}

//go:wasmimport besluitbron input_size
func inputSize() uint32

//go:wasmimport besluitbron input_read
func inputRead(ptr uint32)

//go:wasmimport besluitbron output_write
func outputWrite(ptr, size uint32)

func write(b []byte) {
	var p uint32
	if len(b) > 0 {
		p = uint32(uintptr(unsafe.Pointer(&b[0])))
	}
	outputWrite(p, uint32(len(b)))
	runtime.KeepAlive(b)
}

const manifest = `{"id":"rawout","version":"1","title":"Raw output","services":[{"name":"api"}],
"tools":[{"name":"emit","description":"Writes the given bytes as its result.","input_schema":{"type":"object"}}]}`

//go:wasmexport besluitbron_abi_version
func abi() uint32 { return 1 }

//go:wasmexport besluitbron_describe
func describe() uint32 {
	write([]byte(manifest))
	return 0
}

//go:wasmexport besluitbron_call
func call() uint32 {
	in := make([]byte, inputSize())
	if len(in) > 0 {
		inputRead(uint32(uintptr(unsafe.Pointer(&in[0]))))
	}
	var req struct {
		Arguments struct {
			Out string `json:"out"`
			RC  uint32 `json:"rc"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(in, &req); err != nil {
		write([]byte("rawout: " + err.Error()))
		return 1
	}
	out, err := base64.StdEncoding.DecodeString(req.Arguments.Out)
	if err != nil {
		write([]byte("rawout: " + err.Error()))
		return 1
	}
	write(out)
	return req.Arguments.RC
}
