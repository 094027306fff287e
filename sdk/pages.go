package sdk

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Extract is a connector's expensive step for one document: fetch what the
// text comes from and turn it into a head (what else the document says:
// title, date, notes; any JSON-encodable value) and its full text.
type Extract[H any] func(ctx context.Context) (head H, text string, err error)

// TextOf is one page of a document's text and its head, as [PagedText]
// returns it.
type TextOf[H any] struct {
	Head H
	// Text is page Page (1-based) of Pages, each at most TextPageSize bytes.
	Text        string
	Page, Pages int
	// Kept is true when the page came from the text the host keeps, so
	// extract did not run.
	Kept bool
	// Found is FindText's answer (then Text is its summary and Page 0).
	Found *connector.Found
}

// PagedText returns page n of a document's text, extracting it at most
// once while the host keeps it: when the host is a
// [connector.TextStore] (the BesluitBron host is) and keeps a text under
// key, page n comes from there and extract does not run, nor fetch the
// document; otherwise extract runs, its text is cut into pages of
// TextPageSize and handed to the host to keep, in class's time to live.
//
// key names the document and everything that shapes its text, such as the
// URL the text comes from; class is a declared cache class, usually
// connector.ClassDocument. A page past the last is an error naming the
// page count. A failure to keep the text only costs the next page an
// extraction: it is logged, never the call's error.
func PagedText[H any](ctx context.Context, h connector.Host, key, class string, n int, extract Extract[H]) (TextOf[H], error) {
	var out TextOf[H]
	tk := connector.TextKey{Key: key, CacheClass: class}
	store, _ := h.(connector.TextStore)
	if store != nil {
		page, ok, err := store.TextPage(ctx, tk, n)
		if err != nil {
			return out, fmt.Errorf("reading the kept text: %w", err)
		}
		if ok && (len(page.Head) == 0 || json.Unmarshal(page.Head, &out.Head) == nil) {
			if n < 1 || n > page.Pages {
				return out, pageRangeError(n, page.Pages)
			}
			out.Text, out.Page, out.Pages, out.Kept = page.Text, n, page.Pages, true
			return out, nil
		}
	}
	head, pages, err := extractPages(ctx, h, store, tk, extract)
	if err != nil {
		return out, err
	}
	out.Head, out.Pages = head, len(pages)
	if n < 1 || n > len(pages) {
		return out, pageRangeError(n, len(pages))
	}
	out.Text, out.Page = pages[n-1], n
	return out, nil
}

// extractPages extracts a document once, splits its text into pages and
// offers them to the host's store (when it has one), for a page read and a
// find alike; a store that refuses is logged, the pages still answer.
func extractPages[H any](ctx context.Context, h connector.Host, store connector.TextStore, tk connector.TextKey, extract Extract[H]) (H, []string, error) {
	head, text, err := extract(ctx)
	if err != nil {
		return head, nil, err
	}
	pages := SplitPages(text, TextPageSize)
	if store != nil {
		if err := keep(ctx, store, tk, head, pages); err != nil {
			h.Log(ctx, connector.LevelWarn, fmt.Sprintf("sdk: the host did not keep the text of %q: %v", tk.Key, err))
		}
	}
	return head, pages, nil
}

// keep hands a document's pages and head to the host's text store.
func keep[H any](ctx context.Context, store connector.TextStore, tk connector.TextKey, head H, pages []string) error {
	b, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("encoding the head: %w", err)
	}
	if string(b) == "null" {
		b = nil
	}
	t := connector.ExtractedText{TextKey: tk, Head: b, Pages: pages}
	if err := t.Validate(); err != nil {
		return err
	}
	return store.PutText(ctx, t)
}
