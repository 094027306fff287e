// Package weborigin owns the one reading of a web origin
// (scheme://host[:port]) that both the admin's configuration
// (server.allowed_origins, checked at load) and the inbound Origin check
// (comparing a request's Origin header) use, so the two cannot disagree.
// It is a leaf: it imports only the standard library, which lets the
// configuration check origins without depending on the serving wing.
package weborigin
