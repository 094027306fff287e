package config

import (
	"fmt"
	"strings"
	"unicode"
)

// envVariantWarnings names each variable of environ that looks meant for
// BesluitBron but is not read: any spelling of the prefix other than
// BESLUITBRON_ in capitals, such as .NET's BesluitBron__McpRateLimit__…
// (the older product's documentation spells its keys BesluitBron:…).
// Unread, such a variable would change nothing without a word; the warning
// gives the spelling BesluitBron reads.
func envVariantWarnings(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) || !strings.HasPrefix(strings.ToUpper(name), "BESLUITBRON") {
			continue
		}
		msg := fmt.Sprintf("environment %s is not read: BesluitBron reads only variables that start with %s in capitals", name, EnvPrefix)
		if s := envSpelling(name); s != "" {
			msg += fmt.Sprintf("; if it is meant as configuration, write %s", s)
		}
		out = append(out, msg+" (docs/operations.md, \"Configuration\")")
	}
	return out
}

// envSpelling is the variable BesluitBron reads for a variant name:
// the path segments (split at __, or at a single _ after the prefix)
// in snake case, in capitals. "" when the name has no segments.
func envSpelling(name string) string {
	rest := strings.TrimLeft(name[len("BESLUITBRON"):], "_:")
	if rest == "" {
		return ""
	}
	var segs []string
	for _, seg := range strings.Split(strings.ReplaceAll(rest, ":", "__"), "__") {
		if seg != "" {
			segs = append(segs, snake(seg))
		}
	}
	return EnvPrefix + strings.ToUpper(strings.Join(segs, "__"))
}

// snake turns McpRateLimit into mcp_rate_limit, and leaves session_rps.
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1]))) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
