package platforms

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The save loop saves a changed cache every save_interval, not before,
// and applies a `cache clear` within clearPoll; in virtual time.
func TestCacheLoopSavesAndAppliesClears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "obv")
		s, err := cache.Open(cache.Options{Platform: "obv", MaxBytes: cache.MinBytes, TTL: map[string]time.Duration{"search": time.Hour}, Dir: dir, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		set := &Set{log: slog.New(slog.DiscardHandler)}
		stop, done := make(chan struct{}), make(chan struct{})
		go set.cacheLoop([]*cache.Store{s}, time.Minute, stop, done)
		fill := func(context.Context) (connector.FetchResponse, bool, error) {
			return connector.FetchResponse{Status: 200, Body: []byte("x")}, true, nil
		}
		s.Do(t.Context(), "search", "k", fill)

		time.Sleep(time.Minute - time.Second)
		synctest.Wait()
		if _, err := cache.ReadSaved(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("saved before save_interval: %v", err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		m, err := cache.ReadSaved(dir)
		if err != nil || m.Entries != 1 {
			t.Fatalf("after save_interval: %+v %v", m, err)
		}

		if _, err := cache.RequestClear(dir); err != nil {
			t.Fatal(err)
		}
		time.Sleep(clearPoll)
		synctest.Wait()
		if n := s.Stats().Entries; n != 0 || cache.ClearPending(dir) {
			t.Errorf("after clearPoll: %d entries, pending %v", n, cache.ClearPending(dir))
		}
		close(stop)
		<-done
		s.Close()
	})
}
