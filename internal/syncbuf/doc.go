// Package syncbuf is a byte buffer safe for concurrent writers, for tests
// that read a server's log (or a child process's output) while it runs.
package syncbuf
