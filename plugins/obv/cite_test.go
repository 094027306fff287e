package obv_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestGetDocumentID: the entity is passed as id, or as entity_id (its
// old name); both given and different is an error naming both; another
// platform's document names the tool and id to pass, without a request.
func TestGetDocumentID(t *testing.T) {
	body := []byte(`{"entityId":"meeting:notubiz:gemeente:soest:1","type":"Meeting","date":"2024-11-07","organization":"Soest"}`)
	for _, args := range []string{`{"id":"meeting:notubiz:gemeente:soest:1"}`, `{"entity_id":"meeting:notubiz:gemeente:soest:1"}`} {
		h := sdktest.NewHost(t).HandleBody(base+"/api/entities/meeting%3Anotubiz%3Agemeente%3Asoest%3A1", 200, body)
		if res := sdktest.Call(t, obv.Plugin(), h, "get_document", args); res.IsError {
			t.Errorf("%s: %s", args, res.Text)
		}
	}
	for args, want := range map[string]string{
		`{"id":"document:a:1","entity_id":"document:a:2"}`: `arguments "id" and "entity_id" name different documents ("document:a:1", "document:a:2"): pass only id`,
		`{"id":"ECLI:NL:HR:2024:123"}`:                     `ECLI:NL:HR:2024:123 is a court decision (ECLI): call rechtspraak_get_document with id=ECLI:NL:HR:2024:123`,
		`{"id":"Gmb. 2024, 512034"}`:                       `Gmb. 2024, 512034 is an Officiële Bekendmakingen publication: call obk_get_document with id=gmb-2024-512034`,
		`{}`:                                               `argument "id" is required`,
	} {
		h := sdktest.NewHost(t)
		if res := sdktest.Call(t, obv.Plugin(), h, "get_document", args); !res.IsError || res.Text != want || len(h.Requests()) != 0 {
			t.Errorf("%s: %v %q (%d requests), want error %q", args, res.IsError, res.Text, len(h.Requests()), want)
		}
	}
}
