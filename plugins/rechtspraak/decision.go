package rechtspraak

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The ECLI index sorts by modification only, and modification says little
// of when a court decided (an old judgement is re-published, a new one
// waits weeks for its text). "The most recent judgement of the Hoge Raad"
// is answered here the one way the index allows: by its decision-date
// filter (date, twice for a range). The walk asks for windows of decision
// dates, newest first, each in full, and stops once it holds enough
// decisions; every decision in a window it read in full is there, so the
// newest ones of what it read are the newest ones overall. It says how far
// back it looked.

// Bounds of the walk by decision date.
const (
	// maxWindowRequests bounds the index requests of one search sorted by
	// decision date, the probe for the newest date included.
	maxWindowRequests = 8
	// firstWindowDays is the first window's width; an empty window is
	// followed by one emptyGrowth times wider, so eight requests reach
	// back decades when decisions are sparse.
	firstWindowDays = 14
	emptyGrowth     = 8
	// windowFill is how many decisions a narrowed window aims at: under a
	// page (MaxLimit), so the next try is likely read in full.
	windowFill = 80
)

const isoDay = "2006-01-02"

// earliestDecision is where a walk without date_from stops: Rechtspraak's
// open data holds nothing older, and a window growing past it would ask
// the index for dates it refuses (years before 1, or negative).
var earliestDecision = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// searchByDecision answers a search with sort=decision_desc (see above).
// Without dates, the newest modification of a matching record bounds the
// walk from above (no decision is modified before it is made): one probe
// request, which takes the place of a clock the connector does not have.
func searchByDecision(ctx context.Context, h connector.Host, a SearchArgs) (any, error) {
	requests := 0
	hiDay, loDay := a.DateTo, a.DateFrom
	if hiDay == "" {
		probe := a
		probe.Sort, probe.Limit, probe.Offset = "modified_desc", 1, 0
		f, err := fetchFeed(ctx, h, probe)
		if err != nil {
			return nil, err
		}
		requests++
		if len(f.Entries) == 0 {
			out := sdk.SearchResult{Platform: ID, Offset: a.Offset, Results: []sdk.Item{}, Total: new(int)}
			out.Notes = []string{"No decision matches the filters."}
			return out, nil
		}
		hiDay = sdk.ISODate(f.Entries[0].Updated)
		if hiDay == "" {
			return nil, fmt.Errorf("search: the index's newest record has no modification date (%q) to start the walk by decision date from; pass date_from and date_to", clipString(f.Entries[0].Updated, 40))
		}
	}
	hi, _ := time.Parse(isoDay, hiDay)
	lo := earliestDecision
	if loDay != "" {
		lo, _ = time.Parse(isoDay, loDay)
	}
	want := a.Offset + a.Limit
	days := firstWindowDays
	var got []sdk.Item
	seen := map[string]bool{}
	covered := ""       // the oldest decision date read in full
	crowdedDay := ""    // a single day with more decisions than a page
	reachedEnd := false // the walk reached date_from
	// known is a stretch of dates ending at hi known to hold knownCount
	// decisions: what a crowded window said, less what was read of it
	// since. It sizes the next window better than a guess.
	var knownFrom time.Time
	knownCount := 0
	for requests < maxWindowRequests {
		from := hi.AddDate(0, 0, 1-days)
		if from.Before(lo) {
			from = lo
		}
		w := a
		w.Sort, w.Limit, w.Offset = "modified_desc", MaxLimit, 0
		w.DateFrom, w.DateTo = from.Format(isoDay), hi.Format(isoDay)
		f, err := fetchFeed(ctx, h, w)
		if err != nil {
			return nil, err
		}
		requests++
		res, err := normaliseFeed(f, w)
		if err != nil {
			return nil, err
		}
		span := dayCount(from, hi)
		if res.Total != nil && *res.Total > len(f.Entries) && span > 1 {
			// More than a page decided in this window: narrow it and
			// ask again, so that no decision in it is missed.
			knownFrom, knownCount = from, *res.Total
			days = max(1, span*windowFill / *res.Total)
			continue
		}
		if res.Total != nil && *res.Total > len(f.Entries) {
			crowdedDay = w.DateFrom
		}
		for _, it := range res.Results {
			if !seen[it.ID] {
				seen[it.ID] = true
				got = append(got, it)
			}
		}
		covered = w.DateFrom
		if !from.After(lo) {
			reachedEnd = true
			break
		}
		if len(got) >= want {
			break
		}
		hi = from.AddDate(0, 0, -1)
		days = nextWindow(span, len(res.Results), want-len(got))
		if knownCount > 0 && from.After(knownFrom) {
			knownCount -= len(res.Results)
			rest := dayCount(knownFrom, hi)
			if knownCount > windowFill {
				days = max(1, rest*windowFill/knownCount)
			} else {
				days = rest
			}
		} else {
			knownCount = 0
		}
	}
	sort.SliceStable(got, func(i, j int) bool {
		if got[i].Date != got[j].Date {
			return got[i].Date > got[j].Date
		}
		return got[i].ID > got[j].ID
	})
	out := sdk.SearchResult{Platform: ID, Offset: a.Offset, Results: []sdk.Item{}}
	if a.Offset < len(got) {
		out.Results = got[a.Offset:min(len(got), want)]
	}
	out.HasMore = len(got) > want || !reachedEnd
	top := a.DateTo
	if top == "" {
		top = hiDay
	}
	var note string
	switch {
	case covered == "":
		note = fmt.Sprintf("Ordered by decision date, newest first, but the %d index requests allowed found no window of decision dates up to %s small enough to read whole; pass date_from and date_to a few days apart.", requests, top)
	case reachedEnd:
		note = fmt.Sprintf("Ordered by decision date, newest first: all matching decisions of %s to %s were read (%d index requests).", covered, top, requests)
	default:
		note = fmt.Sprintf("Ordered by decision date, newest first: the walk looked back to %s (decisions of %s to %s, %d index requests); older decisions are not included: pass date_from and date_to to look further back.", covered, covered, top, requests)
	}
	out.Notes = append(out.Notes, note)
	if crowdedDay != "" {
		out.Notes = append(out.Notes, fmt.Sprintf("More than %d decisions are dated %s; only %d of them were read.", MaxLimit, crowdedDay, MaxLimit))
	}
	out.Notes = append(out.Notes, "Matched on metadata filters only: Rechtspraak open data has no free-text search.")
	return out, nil
}

// dayCount is the number of days from from to hi, both counted.
func dayCount(from, hi time.Time) int {
	return int(hi.Sub(from).Hours()/24) + 1
}

// nextWindow is the width of the window after one of span days that held
// found decisions, when need more are wanted: wide enough for them at the
// density seen, a quarter more, but not so wide that it likely holds more
// than windowFill (it would have to be asked again, narrower).
func nextWindow(span, found, need int) int {
	if found == 0 {
		return span * emptyGrowth
	}
	perDay := float64(found) / float64(span)
	days := int(float64(need)/perDay*1.25) + 1
	return max(1, min(days, int(windowFill/perDay)))
}

// clipString cuts s to at most n bytes on a rune boundary.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
