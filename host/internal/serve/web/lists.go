package web

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
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

// due counts the lists a page would fetch now: stale (or never had) and
// not waiting out a failure, with no call running for them. A page
// charges the client limits for each (guard.go); two pages asking at once
// are both charged, though only one call starts.
func (l *lists) due() int {
	now := l.s.o.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.s.o.Platforms {
		if p.Filter == nil || p.Filter.ListTool == "" {
			continue
		}
		tool := p.Filter.ListTool
		if !l.kept(l.m[tool], now) && l.fetching[tool] == nil {
			n++
		}
	}
	return n
}

// get returns a list's choices, sorted by label, or nil when the list is
// not available now. One call per list runs at a time; its outcome is
// stored before another may start, so a failing list is asked once per
// listRetry however many pages ask.
func (l *lists) get(ctx context.Context, tool string) []choice {
	now := l.s.o.Now()
	l.mu.Lock()
	cur := l.m[tool]
	if l.kept(cur, now) {
		l.mu.Unlock()
		return cur.items
	}
	pc := l.fetching[tool]
	if pc == nil {
		var err error
		pc, err = l.s.calls.start(tool, json.RawMessage(`{}`))
		if err != nil {
			l.mu.Unlock()
			return items(cur)
		}
		l.fetching[tool] = pc
		go l.store(tool, pc, now)
	}
	l.mu.Unlock()
	if !pc.wait(ctx, listWait) {
		return items(cur)
	}
	<-pc.stored
	l.mu.Lock()
	defer l.mu.Unlock()
	return items(l.m[tool])
}

// kept reports whether cur is answered from memory at now: fetched within
// ListTTL, or waiting out a failure.
func (l *lists) kept(cur *list, now time.Time) bool {
	return cur != nil && (now.Sub(cur.at) < l.s.o.ListTTL || now.Before(cur.retry))
}

func items(l *list) []choice {
	if l == nil {
		return nil
	}
	return l.items
}

// store keeps a finished list call's outcome: the choices, or after a
// failure the old ones and a time before which it is not asked again.
func (l *lists) store(tool string, pc *pending, now time.Time) {
	<-pc.done
	next := &list{retry: now.Add(listRetry)}
	var r connector.ListResult
	if pc.ans.Err == nil && json.Unmarshal(pc.ans.JSON(), &r) == nil && len(r.Items) > 0 {
		next = &list{at: now}
		for _, it := range r.Items {
			label := it.Title
			if label == "" {
				label = it.ID
			}
			next.items = append(next.items, choice{Value: it.ID, Label: label})
		}
		sort.SliceStable(next.items, func(i, j int) bool { return next.items[i].Label < next.items[j].Label })
	}
	l.mu.Lock()
	if next.at.IsZero() {
		if old := l.m[tool]; old != nil {
			next.at, next.items = old.at, old.items // entries are never changed in place
		}
	}
	l.m[tool] = next
	delete(l.fetching, tool)
	l.mu.Unlock()
	close(pc.stored)
}
