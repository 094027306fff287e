package sdk

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// DocKeys are one result's stable document keys as the platform gives
// them; [DocKeys.Map] normalises them into [connector.Item.Keys], so that
// every connector spells a key the same way and the host can tell that
// results of several platforms are one document. A field the platform
// does not give stays empty; a value that is not a key of its kind (a
// URL with its address elided, a malformed number) is left out rather than guessed.
type DocKeys struct {
	// SourceURL is the original file's address at its source.
	SourceURL string
	// TKDocument is a Tweede Kamer document number (2025D05511).
	TKDocument string
	// Kamerstuk is a Kamerstuk in any form sdk/cite reads: "36800-VII-14",
	// kst-36800-VII-14, "Kamerstukken II 2025/26, 36800-VII, nr. 14".
	Kamerstuk string
	// ECLI is a court decision's ECLI.
	ECLI string
	// Publication is an Officiële Bekendmakingen publication id.
	Publication string
}

// Map returns the normalised keys by kind, nil when there are none.
func (k DocKeys) Map() map[string]string {
	var m map[string]string
	set := func(kind, v string) {
		if v == "" {
			return
		}
		if m == nil {
			m = map[string]string{}
		}
		m[kind] = v
	}
	set(connector.KeySourceURL, SourceURLKey(k.SourceURL))
	set(connector.KeyTKDocument, TKDocumentKey(k.TKDocument))
	set(connector.KeyKamerstuk, KamerstukKey(k.Kamerstuk))
	set(connector.KeyECLI, ECLIKey(k.ECLI))
	set(connector.KeyPublication, PublicationKey(k.Publication))
	return m
}

// maxSourceURL bounds a source URL key.
const maxSourceURL = 1000

// SourceURLKey normalises a source file's address: http and https are
// one (a platform that harvested it on http has the same file), the host
// in lower case without "www." and a default port, no fragment, no
// trailing slash, the query's parameters sorted and escapes written one
// way. The path keeps its case (servers tell paths apart by case). It
// returns "" for anything but an absolute http(s) URL with a real host,
// and for a URL with "..." in it: an address a platform elided ("https://...",
// "?id=...") is no document's address.
func SourceURLKey(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxSourceURL || strings.Contains(raw, "...") {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" {
		return ""
	}
	host := strings.TrimRight(strings.ToLower(u.Hostname()), ".") // a root-anchored name is the same host, however many dots
	for strings.HasPrefix(host, "www.") {
		host = host[len("www."):]
	}
	if !realHost(host) {
		return ""
	}
	if strings.Contains(host, ":") { // an IPv6 address keeps its brackets
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" {
		host += ":" + p
	}
	path := strings.TrimRight(u.Path, "/")
	out := "https://" + host + (&url.URL{Path: path}).EscapedPath()
	if q, err := url.ParseQuery(u.RawQuery); err == nil && len(q) > 0 {
		out += "?" + q.Encode()
	} else if err != nil && u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	if len(out) > maxSourceURL {
		// Escaping can lengthen an address past the bound (a byte that
		// is not UTF-8 becomes three): such a key would not be its own
		// key, so it is none.
		return ""
	}
	return out
}

// realHost reports whether host is a name or address: letters, digits,
// dots, dashes (and colons, for IPv6), with a letter or digit, and no
// empty label.
func realHost(host string) bool {
	if host == "" || strings.Contains(host, "..") || strings.HasPrefix(host, ".") {
		return false
	}
	alnum := false
	for _, r := range host {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			alnum = true
		case r == '.' || r == '-' || r == ':':
		default:
			return false
		}
	}
	return alnum
}

// TKDocumentKey is a Tweede Kamer document number in the platform's
// spelling (2025D05511), or "".
func TKDocumentKey(s string) string {
	if c, ok := cite.Parse(s); ok && c.Kind == cite.TKDocument {
		return c.ID
	}
	return ""
}

// KamerstukKey is a Kamerstuk as "36800-VII-14" (dossier, addition in
// upper case when there is one, number), from any form sdk/cite reads
// (a kst- id, a reference, the bare "36800-VII-14"), or "" when s is no
// Kamerstuk with a number.
func KamerstukKey(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	c, ok := cite.Parse(s)
	if !ok || c.Kamerstuk == nil {
		c, ok = cite.Parse("kst-" + s)
	}
	if !ok || c.Kamerstuk == nil {
		return ""
	}
	return KamerstukOf(c.Kamerstuk.Dossier, c.Kamerstuk.Toevoeging, c.Kamerstuk.Number)
}

// KamerstukOf writes a Kamerstuk key from its parts, as a platform that
// gives them apart has them (the Tweede Kamer's dossier Nummer and
// Toevoeging, the document's Volgnummer); "" when a number is not
// positive.
func KamerstukOf(dossier int, toevoeging string, number int) string {
	if dossier <= 0 || number <= 0 {
		return ""
	}
	k := strconv.Itoa(dossier)
	if t := strings.ToUpper(strings.TrimSpace(toevoeging)); t != "" {
		k += "-" + t
	}
	return k + "-" + strconv.Itoa(number)
}

// ECLIKey is a Dutch ECLI in upper case (ECLI:NL:HR:2024:123), or "".
func ECLIKey(s string) string {
	if c, ok := cite.Parse(s); ok && c.Kind == cite.ECLI {
		return c.ID
	}
	return ""
}

// PublicationKey is an Officiële Bekendmakingen publication id in the
// platform's spelling (kst-36800-VII-14, stcrt-2025-18220), or "".
func PublicationKey(s string) string {
	if c, ok := cite.Parse(s); ok && c.Kind == cite.Publication && c.AsID {
		return c.ID
	}
	return ""
}
