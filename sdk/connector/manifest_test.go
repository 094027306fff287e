package connector_test

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// quotaManifest is a valid manifest with one service; change the service
// to test its host and quota.
func quotaManifest(s connector.Service) connector.Manifest {
	return connector.Manifest{
		ID: "tk", Version: "1", Title: "Tweede Kamer",
		BaseURL:      "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0",
		AllowedHosts: []string{"zoek.officielebekendmakingen.nl"},
		Services:     []connector.Service{s},
		Tools:        []connector.Tool{{Name: "search", Description: "d", InputSchema: []byte(`{"type":"object"}`)}},
	}
}

// TestServiceHostAndQuota: a service's host must be a bare host name the
// connector may reach (an allowed host or the base URL's), its quota a
// plain name; the errors name the field.
func TestServiceHostAndQuota(t *testing.T) {
	limit := connector.Service{Name: "obk", Units: 10, Per: connector.Duration(30 * time.Second)}
	for _, c := range []struct {
		name        string
		host, quota string
		want        string // "" = valid
	}{
		{"allowed host", "zoek.officielebekendmakingen.nl", "", ""},
		{"base URL's host", "gegevensmagazijn.tweedekamer.nl", "", ""},
		{"no host", "", "", ""},
		{"named quota", "", "koop/files", ""},
		{"host and quota", "zoek.officielebekendmakingen.nl", "zoek.officielebekendmakingen.nl/xml", ""},
		{"host not reachable", "repository.overheid.nl", "", `services[0].host "repository.overheid.nl": not a host the connector may reach`},
		{"upper case", "Zoek.officielebekendmakingen.nl", "", `services[0].host "Zoek.officielebekendmakingen.nl": want a bare lower-case host name`},
		{"with port", "zoek.officielebekendmakingen.nl:443", "", `services[0].host "zoek.officielebekendmakingen.nl:443": want a bare`},
		{"a URL", "https://zoek.officielebekendmakingen.nl", "", `services[0].host "https://zoek.officielebekendmakingen.nl": want a bare`},
		{"trailing dot", "zoek.officielebekendmakingen.nl.", "", `services[0].host`},
		{"quota with space", "", "koop files", `services[0].quota "koop files": want lower-case letters`},
		{"quota upper case", "", "KOOP", `services[0].quota "KOOP"`},
		{"quota too long", "", strings.Repeat("q", 101), `services[0].quota "qqq`},
	} {
		s := limit
		s.Host, s.Quota = c.host, c.quota
		m := quotaManifest(s)
		err := m.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		case c.want != "" && !strings.HasPrefix(err.Error(), `manifest of connector "tk"`):
			t.Errorf("%s: %v does not name the connector", c.name, err)
		}
	}
}

// TestQuotaName: Quota names the quota when set, else Host, else nothing
// (the service's own).
func TestQuotaName(t *testing.T) {
	for _, c := range []struct{ host, quota, want string }{
		{"zoek.officielebekendmakingen.nl", "", "zoek.officielebekendmakingen.nl"},
		{"berthub.eu", "berthub.eu/search", "berthub.eu/search"},
		{"", "koop", "koop"},
		{"", "", ""},
	} {
		if got := (connector.Service{Name: "s", Host: c.host, Quota: c.quota}).QuotaName(); got != c.want {
			t.Errorf("host %q quota %q: QuotaName %q, want %q", c.host, c.quota, got, c.want)
		}
	}
}

// TestServiceHostSurvivesClone: the host and the quota travel with the
// manifest (JSON, as a guest's describe returns it).
func TestServiceHostSurvivesClone(t *testing.T) {
	m := quotaManifest(connector.Service{Name: "obk", Units: 10, Per: connector.Duration(30 * time.Second), Host: "zoek.officielebekendmakingen.nl", Quota: "koop"})
	c := m.Clone()
	if s := c.Services[0]; s.Host != "zoek.officielebekendmakingen.nl" || s.Quota != "koop" {
		t.Fatalf("after Clone: %+v", s)
	}
}
