package sdk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

type head struct {
	Title string `json:"title"`
}

// longText is about 1.2 MB of Dutch text ending in a known phrase.
func longText() string {
	var b strings.Builder
	for b.Len() < 1_200_000 {
		b.WriteString("De raad besluit één keer per week over de financiën van het café.\n")
	}
	b.WriteString("Slotzin: geëindigd, coördinatie geüpdatet.")
	return b.String()
}

func TestPagedTextExtractsOnce(t *testing.T) {
	h := sdktest.NewHost(t)
	text := longText()
	extracts := 0
	extract := func(context.Context) (head, string, error) {
		extracts++
		return head{Title: "Besluit"}, text, nil
	}
	ctx := context.Background()
	first, err := sdk.PagedText(ctx, h, "https://x/doc", connector.ClassDocument, 1, extract)
	if err != nil || first.Kept || first.Head.Title != "Besluit" {
		t.Fatalf("page 1: %+v %v", first, err)
	}
	var joined strings.Builder
	joined.WriteString(first.Text)
	for n := 2; n <= first.Pages; n++ {
		p, err := sdk.PagedText(ctx, h, "https://x/doc", connector.ClassDocument, n, extract)
		if err != nil || !p.Kept || p.Pages != first.Pages || p.Head.Title != "Besluit" || len(p.Text) > sdk.TextPageSize {
			t.Fatalf("page %d: kept=%v pages=%d head=%+v len=%d err=%v", n, p.Kept, p.Pages, p.Head, len(p.Text), err)
		}
		joined.WriteString(p.Text)
	}
	if extracts != 1 || h.TextsKept() != 1 {
		t.Errorf("%d extractions, %d texts kept; want 1 and 1", extracts, h.TextsKept())
	}
	if joined.String() != text {
		t.Error("the pages do not join to the text")
	}
	_, err = sdk.PagedText(ctx, h, "https://x/doc", connector.ClassDocument, first.Pages+1, extract)
	if err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("page past the last: %v", err)
	}
}

// hostOnly hides a host's TextStore, as an older host would.
type hostOnly struct{ connector.Host }

func TestPagedTextWithoutAStore(t *testing.T) {
	h := hostOnly{sdktest.NewHost(t)}
	extracts := 0
	extract := func(context.Context) (*head, string, error) {
		extracts++
		return nil, longText(), nil
	}
	for n := 1; n <= 3; n++ {
		if _, err := sdk.PagedText(context.Background(), h, "k", connector.ClassDocument, n, extract); err != nil {
			t.Fatal(err)
		}
	}
	if extracts != 3 {
		t.Errorf("%d extractions without a store, want 3", extracts)
	}
}

// failingStore refuses everything.
type failingStore struct{ *sdktest.Host }

func (failingStore) TextPage(context.Context, connector.TextKey, int) (connector.TextPage, bool, error) {
	return connector.TextPage{}, false, nil
}

func (failingStore) PutText(context.Context, connector.ExtractedText) error {
	return &connector.FetchError{Kind: connector.FetchRefused, Message: "no room"}
}

// A host that does not keep the text costs the next page an extraction,
// never the call: the refusal is logged. An extraction's error is the
// call's.
func TestPagedTextFailures(t *testing.T) {
	h := failingStore{sdktest.NewHost(t)}
	p, err := sdk.PagedText(context.Background(), h, "k", connector.ClassDocument, 1, func(context.Context) (head, string, error) {
		return head{}, "kort", nil
	})
	if err != nil || p.Text != "kort" || p.Pages != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	boom := errors.New("get_document: upstream answered HTTP 500")
	if _, err := sdk.PagedText(context.Background(), h, "k", connector.ClassDocument, 1, func(context.Context) (head, string, error) {
		return head{}, "", boom
	}); !errors.Is(err, boom) {
		t.Errorf("extraction error: %v", err)
	}
}
