package sdktest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ReadDocument reads a document tool's pages one by one, from page 1 to
// the last page the first one announces, as a reader would, and returns
// them. args gives the tool's arguments for a page. It fails the test when
// a page is a tool error, carries another page number or page count, holds
// more than sdk.TextPageSize bytes, or differs from page 1 in anything but
// its number and text (title, date, extra: the head a connector keeps with
// its text).
func ReadDocument(t testing.TB, c connector.Connector, h connector.Host, tool string, args func(page int) string) []sdk.Document {
	t.Helper()
	var docs []sdk.Document
	pages := 1
	for n := 1; n <= pages; n++ {
		var d sdk.Document
		Decode(t, Call(t, c, h, tool, args(n)), &d)
		if n == 1 {
			pages = d.Pages
		}
		if d.Page != n || d.Pages != pages || len(d.Text) > sdk.TextPageSize {
			t.Fatalf("sdktest: page %d: page %d of %d, %d bytes (page 1 said %d pages)", n, d.Page, d.Pages, len(d.Text), pages)
		}
		if len(docs) > 0 && !reflect.DeepEqual(headOf(docs[0]), headOf(d)) {
			a, _ := json.Marshal(headOf(docs[0]))
			b, _ := json.Marshal(headOf(d))
			t.Fatalf("sdktest: page %d's head differs from page 1's:\n page 1: %s\n page %d: %s", n, a, n, b)
		}
		docs = append(docs, d)
	}
	return docs
}

// headOf is a page without its number and text.
func headOf(d sdk.Document) sdk.Document {
	d.Page, d.Text = 0, ""
	return d
}
