// Command abiv1 is a guest of ABI version 1, as an sdk before version 2
// built them: every payload JSON, a fetch's body base64 in it. The host
// still serves such modules; its one tool fetches the URL it is given and
// answers with the text kept under it (when the host keeps texts) and the
// body.
package main

import (
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

//go:wasmimport besluitbron fetch
func fetch(ptr, size uint32) uint32

//go:wasmimport besluitbron text_page
func textPage(ptr, size uint32) uint32

//go:wasmimport besluitbron fetch_read
func fetchRead(ptr uint32)

func ptr(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0])))
}

func write(b []byte) {
	outputWrite(ptr(b), uint32(len(b)))
	runtime.KeepAlive(b)
}

// ask sends a JSON request through f and decodes the JSON reply.
func ask(f func(ptr, size uint32) uint32, req, rep any) error {
	in, _ := json.Marshal(req)
	n := f(ptr(in), uint32(len(in)))
	runtime.KeepAlive(in)
	out := make([]byte, n)
	if n > 0 {
		fetchRead(ptr(out))
	}
	return json.Unmarshal(out, rep)
}

const manifest = `{"id":"abiv1","version":"1","title":"ABI 1","services":[{"name":"api"}],
"cache_classes":[{"name":"document","ttl":"1h"}],
"tools":[{"name":"get","description":"Fetches a URL.","input_schema":{"type":"object"}}]}`

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
		inputRead(ptr(in))
	}
	var req struct {
		Arguments struct {
			URL string `json:"url"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(in, &req); err != nil {
		write([]byte("abiv1: " + err.Error()))
		return 1
	}
	var text struct {
		Found bool `json:"found"`
		Page  *struct {
			Text string `json:"text"`
		} `json:"page"`
	}
	if err := ask(textPage, map[string]any{"key": req.Arguments.URL, "cache_class": "document", "page": 1}, &text); err != nil {
		write([]byte("abiv1: text reply: " + err.Error()))
		return 1
	}
	var rep struct {
		Response *struct {
			Status int    `json:"status"`
			Body   []byte `json:"body"`
		} `json:"response"`
		Error *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := ask(fetch, map[string]any{"method": "GET", "url": req.Arguments.URL, "service": "api", "cache_class": "none"}, &rep); err != nil {
		write([]byte("abiv1: fetch reply: " + err.Error()))
		return 1
	}
	res := map[string]any{"text": "", "is_error": rep.Error != nil}
	switch {
	case rep.Error != nil:
		res["text"] = rep.Error.Kind + ": " + rep.Error.Message
	case rep.Response != nil:
		kept := ""
		if text.Page != nil {
			kept = text.Page.Text
		}
		st, _ := json.Marshal(map[string]any{"status": rep.Response.Status, "body": string(rep.Response.Body), "kept": kept})
		res["text"], res["structured"] = string(st), json.RawMessage(st)
	}
	out, _ := json.Marshal(res)
	write(out)
	return 0
}
