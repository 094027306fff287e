package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/besluitbron/besluitbron/host/internal/serve/cite"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// citeLink is the address of a result's citation file: /cite with the
// platform, the id and the format (ris when none).
func citeLink(platform, id, format string) string {
	v := url.Values{"p": {platform}, "id": {id}}
	if format != "" && format != cite.FormatRIS {
		v.Set("format", format)
	}
	return "/cite?" + v.Encode()
}

var fileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// handleCite serves the Citeer link: one document's citation as a file
// to download (RIS by default, format=bibtex or csl-json), which a
// reference manager imports as is. A result the page just showed is
// cited from what it said (cite.Book); another is described from its
// document tool's first page, a call of the public session like the
// page's own.
func (s *Server) handleCite(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	platform, id := q.Get("p"), strings.TrimSpace(q.Get("id"))
	format := q.Get("format")
	if format == "" {
		format = cite.FormatRIS
	}
	lang := language(w, r)
	bad := func(code int, msg string) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(msg + "\n"))
	}
	switch {
	case s.byID[platform] == nil:
		bad(http.StatusBadRequest, tr(lang, "cite.platform", clipText(platform, 40)))
		return
	case id == "" || len(id) > 300:
		bad(http.StatusBadRequest, tr(lang, "cite.id"))
		return
	case !slices.Contains(cite.Formats(), format):
		bad(http.StatusBadRequest, tr(lang, "cite.format", clipText(format, 40), strings.Join(cite.Formats(), ", ")))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.CallTimeout)
	defer cancel()
	ex, err := s.o.Cite.Export(ctx, callinfo.Public(), format, []cite.Ref{{Platform: platform, ID: id}})
	if err != nil {
		code := http.StatusBadGateway
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = http.StatusGatewayTimeout
		}
		bad(code, tr(lang, "cite.failed")+" "+clipText(err.Error(), 300))
		return
	}
	name := strings.Trim(fileChars.ReplaceAllString(platform+"-"+id, "-"), "-")
	if len(name) > 100 {
		name = name[:100]
	}
	w.Header().Set("Content-Type", ex.ContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="besluitbron-`+name+"."+ex.Extension+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(ex.Body)
}

// clipText cuts s at n bytes on a rune boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
