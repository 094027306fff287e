package web

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
)

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
	if cur != nil && now.Sub(cur.at) < l.s.o.ListTTL {
		return cur.items
	}
	pc, err := l.s.calls.start(tool, json.RawMessage(`{}`))
	if err != nil || !pc.wait(ctx, listWait) || pc.res.IsError {
		if cur != nil {
			return cur.items // an old list beats none
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
