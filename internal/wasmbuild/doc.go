// Package wasmbuild compiles Go packages to WebAssembly connector modules
// for tests and benchmarks, once per process and package. Production code
// never imports it.
package wasmbuild
