package host

import "github.com/besluitbron/besluitbron/host/internal/serve/cite"

// citeService is the citations' service over ps (besluitbron_cite,
// besluitbron_check_quote, the pages' Citeer link): each platform's
// document tool from its manifest, the results the invoke path annotated
// (h.cites), the host's clock.
func (h *Host) citeService(ps []*platform) *cite.Service {
	var cps []cite.Platform
	for _, p := range ps {
		cps = append(cps, cite.PlatformOf(p.ID, p.Manifest))
	}
	return cite.New(cite.Options{Platforms: cps, Invoke: h.engine.Invoke, Book: h.cites, Now: h.now})
}
