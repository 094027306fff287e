package connector_test

import (
	"encoding/json"
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

func TestValidateSearchFilterAndFreshness(t *testing.T) {
	base := func() connector.Manifest {
		return connector.Manifest{ID: "demo", Version: "1", Title: "Demo",
			Services: []connector.Service{{Name: "api"}},
			Tools:    []connector.Tool{{Name: "search", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "list_courts", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	}
	for _, c := range []struct {
		edit func(*connector.Manifest)
		want string // "" = valid
	}{
		{func(m *connector.Manifest) {
			m.SearchFilter = &connector.SearchFilter{Arg: "court", LabelNL: "Instantie", LabelEN: "Court", ListTool: "list_courts"}
			m.Freshness = &connector.Freshness{Tool: "search", Arguments: json.RawMessage(`{"limit":1}`), Reads: connector.FreshnessNewest, Type: "document"}
		}, ""},
		{func(m *connector.Manifest) {
			m.SearchFilter = &connector.SearchFilter{Arg: "court", LabelNL: "Instantie"}
		}, "search_filter: arg, label_nl and label_en"},
		{func(m *connector.Manifest) {
			m.SearchFilter = &connector.SearchFilter{Arg: "court", LabelNL: "x", LabelEN: "x", ListTool: "list_judges"}
		}, `search_filter.list_tool "list_judges": no such tool`},
		{func(m *connector.Manifest) {
			m.Freshness = &connector.Freshness{Tool: "status", Reads: connector.FreshnessSources}
		}, `freshness.tool "status": no such tool`},
		{func(m *connector.Manifest) { m.Freshness = &connector.Freshness{Tool: "search", Reads: "latest"} }, `freshness.reads "latest"`},
		{func(m *connector.Manifest) {
			m.Freshness = &connector.Freshness{Tool: "search", Reads: connector.FreshnessNewest}
		}, "freshness.type"},
	} {
		m := base()
		c.edit(&m)
		err := m.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

// TestServiceLimitFrom: a service says where its limit comes from with a
// known value that fits the limit it declares (a number for published,
// measured and polite, none for unknown), a place for a published one and
// one short line of text; a bad value is refused with an error naming the
// connector and the service. A manifest that does not say reads as
// unknown without a limit and polite with one, never as published.
func TestServiceLimitFrom(t *testing.T) {
	limited := connector.Service{Name: "sru", Units: 3, Per: connector.Duration(time.Second)}
	free := connector.Service{Name: "odata"}
	for _, c := range []struct {
		name   string
		s      connector.Service
		from   string
		where  string
		note   string
		want   string // "" = valid
		origin string // LimitOrigin when valid
	}{
		{"old manifest, a limit", limited, "", "", "", "", connector.LimitPolite},
		{"old manifest, no limit", free, "", "", "", "", connector.LimitUnknown},
		{"published with a place", limited, "published", "https://example.org/docs/api", "", "", connector.LimitPublished},
		{"measured", limited, "measured", "", "429 above 3 per second", "", connector.LimitMeasured},
		{"polite", limited, "polite", "", "", "", connector.LimitPolite},
		{"unknown without a limit", free, "unknown", "", "the administrator warns about costly searches", "", connector.LimitUnknown},
		{"published without a place", limited, "published", " ", "", `services.sru.limit_where: empty; a published limit says where`, ""},
		{"published of none", free, "published", "https://example.org", "", `services.odata.limit_from "published": but the service declares no limit (units 0); a service without one says "unknown"`, ""},
		{"polite of none", free, "polite", "", "", `services.odata.limit_from "polite": but the service declares no limit`, ""},
		{"unknown with units", limited, "unknown", "", "", `services.sru.limit_from "unknown": but the service declares 3 units; a limit BesluitBron keeps where the platform publishes none is "polite"`, ""},
		{"a made-up value", limited, "declared", "", "", `services.sru.limit_from "declared": want one of published, measured, polite, unknown`, ""},
		{"upper case", limited, "Published", "x", "", `services.sru.limit_from "Published": want one of`, ""},
		{"note too long", limited, "polite", "", strings.Repeat("n", 301), `services.sru.limit_note: 301 bytes, at most 300`, ""},
		{"note on two lines", limited, "polite", "", "one\ntwo", `services.sru.limit_note: a control character`, ""},
	} {
		s := c.s
		s.LimitFrom, s.LimitWhere, s.LimitNote = c.from, c.where, c.note
		m := quotaManifest(s)
		err := m.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && s.LimitOrigin() != c.origin:
			t.Errorf("%s: origin %q, want %q", c.name, s.LimitOrigin(), c.origin)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		case c.want != "" && !strings.HasPrefix(err.Error(), `manifest of connector "tk"`):
			t.Errorf("%s: %v does not name the connector", c.name, err)
		}
	}
	// The wire format: an old manifest's JSON has no limit_from and reads
	// back the same; a new one's survives the host's copy.
	b, _ := json.Marshal(free)
	if strings.Contains(string(b), "limit_") {
		t.Errorf("a service without limit_from writes %s", b)
	}
	m := quotaManifest(connector.Service{Name: "sru", Units: 3, Per: connector.Duration(time.Second), LimitFrom: "polite", LimitNote: "n", LimitNoteNL: "nl"})
	if got := m.Clone().Services[0]; got.LimitFrom != "polite" || got.LimitNote != "n" || got.LimitNoteNL != "nl" {
		t.Errorf("clone lost the limit's origin: %+v", got)
	}
}
