package web

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
)

// listRetry is how long a list that could not be had is not asked again,
// so that a failing platform is not asked on every page.
const listRetry = time.Minute

// listWait bounds how long a page waits for a list of choices; a list
// that is not there in time leaves a text field (the call goes on and
// fills the cache for the next page).
const listWait = 3 * time.Second

// fill sets the choices of every platform whose filter has a list tool.
func (l *lists) fill(ctx context.Context, ps []platformChoice) {
	var wg sync.WaitGroup
	for i := range ps {
		if ps[i].Platform.Filter == nil || ps[i].Platform.Filter.ListTool == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ps[i].Choices = l.get(ctx, ps[i].Platform.Filter.ListTool)
		}()
	}
	wg.Wait()
}

// get returns a list's choices, sorted by label, or nil when the list is
// not available now.
func (l *lists) get(ctx context.Context, tool string) []choice {
	now := l.s.o.Now()
	l.mu.Lock()
	cur := l.m[tool]
	l.mu.Unlock()
	if cur != nil && (now.Sub(cur.at) < l.s.o.ListTTL || now.Before(cur.retry)) {
		return cur.items
	}
	pc, err := l.s.calls.start(tool, json.RawMessage(`{}`))
	if err != nil || !pc.wait(ctx, listWait) || pc.res.IsError {
		if err == nil && pc.res != nil {
			// The platform answered with an error: keep what we had
			// (an old list beats none) and ask again after listRetry.
			l.mu.Lock()
			next := &list{retry: now.Add(listRetry)}
			if old := l.m[tool]; old != nil {
				next.at, next.items = old.at, old.items // entries are never changed in place
			}
			l.m[tool] = next
			l.mu.Unlock()
		}
		if cur != nil {
			return cur.items
		}
		return nil
	}
	var r sdk.ListResult
	if err := json.Unmarshal(payload(pc.res, resultText(pc.res)), &r); err != nil || len(r.Items) == 0 {
		return nil
	}
	items := make([]choice, 0, len(r.Items))
	for _, it := range r.Items {
		label := it.Title
		if label == "" {
			label = it.ID
		}
		items = append(items, choice{Value: it.ID, Label: label})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Label < items[j].Label })
	l.mu.Lock()
	l.m[tool] = &list{at: now, items: items}
	l.mu.Unlock()
	return items
}
