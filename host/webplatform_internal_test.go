package host

import (
	"context"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestWebPlatformDocumentArg: the pages open a document through id on
// every document tool, also where the schema lists an old name beside it
// and so requires neither (obv's entity_id, opentk's nummer, rechtspraak's
// ecli). It catches a platform whose pages lost their document links.
func TestWebPlatformDocumentArg(t *testing.T) {
	for id, c := range map[string]connector.Connector{"obk": obk.Plugin(), "obv": obv.Plugin(), "opentk": opentk.Plugin(), "rechtspraak": rechtspraak.Plugin()} {
		m, err := c.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		wp, ok := webPlatform(&platform{ID: id, Manifest: m})
		if !ok || wp.DocumentTool != id+"_get_document" || wp.DocumentArg != "id" {
			t.Errorf("%s: document tool %q, argument %q (ok %v); want %s_get_document with id", id, wp.DocumentTool, wp.DocumentArg, ok, id)
		}
	}
}
