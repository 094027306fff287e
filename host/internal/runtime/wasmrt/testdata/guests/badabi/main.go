// Command badabi reports an ABI version this host does not speak.
package main

func main() {}

//go:wasmexport besluitbron_abi_version
func abi() uint32 { return 99 }

//go:wasmexport besluitbron_describe
func describe() uint32 { return 1 }

//go:wasmexport besluitbron_call
func call() uint32 { return 1 }
