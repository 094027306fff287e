package obk_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obk"
)

// TestOrganizationTypeFolded: a type differing only in case or spacing
// reaches the platform in its own spelling; an unknown one names the
// closest types.
func TestOrganizationTypeFolded(t *testing.T) {
	a := obk.SearchArgs{Query: "parkeren", OrganizationType: "Staten-Generaal"}
	u, err := obk.SearchURL(obk.SRUBase, &a)
	if err != nil || !strings.Contains(u, "staten+generaal") && !strings.Contains(u, "staten%20generaal") {
		t.Errorf("SearchURL = %s, %v; want the type as the platform spells it", u, err)
	}
	a = obk.SearchArgs{Query: "parkeren", OrganizationType: "provincies"}
	if _, err := obk.SearchURL(obk.SRUBase, &a); err == nil || !strings.Contains(err.Error(), `closest accepted: "provincie"`) {
		t.Errorf("unknown type: %v", err)
	}
}
