package cache

// SetAfterLookup installs a hook that runs between a miss's lookup and its
// flight.
func (s *Store) SetAfterLookup(f func()) { s.afterLookup = f }

// DropTextPage deletes page n of a kept text, as an eviction would.
func (s *Store) DropTextPage(class, key string, n int) {
	v := s.c.Get(nil, textHeadKey(class, key))
	e, err := decodeEntry(v)
	if err != nil || n < 1 || n > len(e.resp.Body) {
		panic("DropTextPage: no such text or page")
	}
	s.c.Del(textPageKey(class, key, n, e.resp.Body[n-1]))
}
