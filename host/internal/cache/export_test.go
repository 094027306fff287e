package cache

// SetAfterLookup installs a hook that runs between a miss's lookup and its
// flight.
func (s *Store) SetAfterLookup(f func()) { s.afterLookup = f }
