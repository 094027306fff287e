package cite

import (
	"bytes"
	"container/list"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Cite is the citation every search result carries as "cite": the Dutch
// citation of the document and the day it was retrieved (ISO), which a
// citation of a web source states.
type Cite struct {
	Text      string `json:"text"`
	Retrieved string `json:"retrieved"`
}

// Of is the citation of one result, retrieved at now.
func Of(it connector.Item, now time.Time) *Cite {
	return &Cite{Text: cite.Describe(docOf(it)).Text, Retrieved: Day(now)}
}

// docOf is what Describe writes a citation from.
func docOf(it connector.Item) cite.Doc {
	return cite.Doc{Keys: it.Keys, ID: it.ID, Title: it.Title, Organization: it.Organization, Date: it.Date, URL: it.URL}
}

// amsterdam is the time zone a retrieved day is counted in: the readers
// and the platforms are Dutch, and a search at 00:30 in Amsterdam is
// retrieved that day, not the day before as UTC would have it.
var amsterdam = func() *time.Location {
	if l, err := time.LoadLocation("Europe/Amsterdam"); err == nil {
		return l
	}
	return time.UTC
}()

// Day is the ISO day of t in Amsterdam.
func Day(t time.Time) string { return t.In(amsterdam).Format("2006-01-02") }

// DefaultRemember is how many results a Book remembers by default: a
// few hundred searches' worth, some 5 MB at most.
const DefaultRemember = 10000

// Book annotates search results with their citations and remembers the
// last ones (platform and id to what their results said), so that a
// result just seen is cited without asking its platform again. It is
// safe for concurrent use.
type Book struct {
	now func() time.Time
	max int

	mu    sync.Mutex
	order *list.List // of *seen, most recent first
	byKey map[string]*list.Element
}

// seen is one remembered result.
type seen struct {
	key       string
	item      connector.Item
	retrieved time.Time
}

// NewBook returns a Book remembering at most max results (max < 1:
// DefaultRemember), dating citations by now (nil: time.Now).
func NewBook(now func() time.Time, max int) *Book {
	if now == nil {
		now = time.Now
	}
	if max < 1 {
		max = DefaultRemember
	}
	return &Book{now: now, max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func bookKey(platform, id string) string { return platform + "\x00" + id }

// remember keeps it as platform's result, retrieved at t.
func (b *Book) remember(platform string, it connector.Item, t time.Time) {
	if it.ID == "" || len(it.ID) > 300 {
		return
	}
	k := bookKey(platform, it.ID)
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.byKey[k]; ok {
		s := e.Value.(*seen)
		s.item, s.retrieved = it, t
		b.order.MoveToFront(e)
		return
	}
	b.byKey[k] = b.order.PushFront(&seen{key: k, item: it, retrieved: t})
	for b.order.Len() > b.max {
		last := b.order.Back()
		delete(b.byKey, last.Value.(*seen).key)
		b.order.Remove(last)
	}
}

// Lookup is the result platform last answered with id, and when; ok is
// false when the Book does not remember one.
func (b *Book) Lookup(platform, id string) (it connector.Item, retrieved time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.byKey[bookKey(platform, id)]
	if !ok {
		return connector.Item{}, time.Time{}, false
	}
	s := e.Value.(*seen)
	return s.item, s.retrieved, true
}

// Len is how many results the Book remembers.
func (b *Book) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.order.Len()
}

// Annotate gives each result of a search answer (a structured result
// with a "results" array, as every connector's search tool answers) its
// "cite", and remembers the results. The connector's JSON is kept byte
// for byte around the insertions; its text, when it is that JSON (as the
// sdk writes it), becomes the annotated JSON too. Any other answer, and
// a result that already carries a "cite", passes unchanged.
func (b *Book) Annotate(platform string, out connector.CallResult) connector.CallResult {
	st := out.Structured
	if len(st) == 0 || !bytes.Contains(st, []byte(`"results"`)) {
		return out
	}
	start, end, ok := resultsSpan(st)
	if !ok {
		return out
	}
	var raws []json.RawMessage
	if json.Unmarshal(st[start:end], &raws) != nil || len(raws) == 0 {
		return out
	}
	now := b.now()
	day := Day(now)
	var buf bytes.Buffer
	done, at := 0, start // st[:done] is in buf; items are looked for from at
	for _, raw := range raws {
		var it struct {
			connector.Item
			Cite json.RawMessage `json:"cite"`
		}
		if json.Unmarshal(raw, &it) != nil || it.ID == "" {
			continue
		}
		b.remember(platform, it.Item, now)
		i := bytes.Index(st[at:end], raw)
		if i < 0 {
			continue
		}
		closing := at + i + len(raw) - 1 // the item's closing brace
		at = closing + 1
		if it.Cite != nil {
			continue
		}
		if buf.Len() == 0 {
			buf.Grow(len(st) + len(raws)*200)
		}
		buf.Write(st[done:closing])
		if strings.TrimSpace(string(raw[1:len(raw)-1])) != "" {
			buf.WriteByte(',')
		}
		c, _ := json.Marshal(Cite{Text: cite.Describe(docOf(it.Item)).Text, Retrieved: day})
		buf.WriteString(`"cite":`)
		buf.Write(c)
		done = closing
	}
	if buf.Len() == 0 {
		return out
	}
	buf.Write(st[done:])
	annotated := buf.Bytes()
	if out.Text == string(st) {
		out.Text = string(annotated)
	}
	out.Structured = annotated
	return out
}

// resultsSpan finds the value of the top-level "results" member of a JSON
// object: st[start:end] is the array. ok is false when there is none.
func resultsSpan(st []byte) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(st))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		key, _ := t.(string)
		from := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false
		}
		if key == "results" {
			to := int(dec.InputOffset())
			i := bytes.IndexByte(st[from:to], '[')
			if i < 0 {
				return 0, 0, false
			}
			return from + i, to, true
		}
	}
	return 0, 0, false
}
