package host

import "github.com/besluitbron/besluitbron/host/internal/fetch"

// newCache returns the platform's cache, or nil when caching is off.
func (h *Host) newCache(p *platform) (fetch.Cache, error) { return nil, nil }

// closeCaches saves every platform's cache.
func (h *Host) closeCaches() error { return nil }
