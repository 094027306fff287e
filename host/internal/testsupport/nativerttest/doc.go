// Package nativerttest builds native connector binaries for tests, the
// native twin of wasmbuild: each package is built once per test process,
// from source, into a temporary directory.
//
// Build is safe for concurrent use.
package nativerttest
