package orgname_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/orgname"
)

// catalogue is a part of the platforms' real organisation lists (OBV's
// src/sources/catalog.data.ts, ORI's ocd_backend/sources/*.yaml) holding
// every name more than one organisation answers to: the two Bergens (OBV
// names Limburg's plain "Bergen", Noord-Holland's "Bergen Nh"; ORI says
// "Bergen (L)" and "Bergen (NH)"), Groningen and Utrecht (municipality
// and province), Limburg and Fryslân (province and water board), and
// names that merely start alike.
var catalogue = []orgname.Org{
	{Key: "bergen", Name: "Bergen", Kind: "gemeente", CBS: "GM0893"},
	{Key: "bergen_nh", Name: "Bergen Nh", Kind: "gemeente", CBS: "GM0373"},
	{Key: "bergen_op_zoom", Name: "Bergen Op Zoom", Kind: "gemeente", CBS: "GM0748"},
	{Key: "steenbergen", Name: "Steenbergen", Kind: "gemeente", CBS: "GM0851"},
	{Key: "groningen", Name: "Groningen", Kind: "gemeente", CBS: "GM0014"},
	{Key: "provincie_groningen", Name: "Groningen", Kind: "provincie"},
	{Key: "utrecht", Name: "Utrecht", Kind: "gemeente", CBS: "GM0344"},
	{Key: "provincie-utrecht", Name: "Provincie Utrecht", Kind: "provincie"},
	{Key: "provincie_limburg", Name: "Limburg", Kind: "provincie"},
	{Key: "waterschap_limburg", Name: "Limburg", Kind: "waterschap"},
	{Key: "fryslan", Name: "Fryslan", Kind: "provincie"},
	{Key: "wetterskip_fryslan", Name: "Wetterskip Fryslan", Kind: "waterschap"},
	{Key: "den-helder", Name: "Den Helder", Kind: "gemeente", CBS: "GM0400"},
	{Key: "hoogheemraadschap_van_delfland", Name: "Hoogheemraadschap Van Delfland", Kind: "waterschap"},
	{Key: "sudwest-fryslan", Name: "Súdwest-Fryslân", Kind: "gemeente"},
	{Key: "s-hertogenbosch", Name: "'s-Hertogenbosch", Kind: "gemeente"},
	{Key: "soest", Name: "Soest", Kind: "gemeente"},
}

func TestMatchOrg(t *testing.T) {
	for _, c := range []struct {
		arg, by string
		want    []string // candidate keys
		same    []string // namesakes of a key
	}{
		// The name of several: never settled by order.
		{"Bergen", orgname.ByName, []string{"bergen", "bergen_nh"}, nil},
		{"BERGEN", orgname.ByName, []string{"bergen", "bergen_nh"}, nil},
		{"Gemeente Bergen", orgname.ByName, []string{"bergen", "bergen_nh"}, nil},
		{"Groningen", orgname.ByName, []string{"groningen", "provincie_groningen"}, nil},
		{"Utrecht", orgname.ByName, []string{"utrecht", "provincie-utrecht"}, nil},
		{"Limburg", orgname.ByName, []string{"provincie_limburg", "waterschap_limburg"}, nil},
		{"Fryslân", orgname.ByName, []string{"fryslan", "wetterskip_fryslan"}, nil},
		// A province or a kind tells them apart.
		{"Bergen (NH)", orgname.ByName, []string{"bergen_nh"}, nil},
		{"Bergen (N.H.)", orgname.ByName, []string{"bergen_nh"}, nil},
		{"Bergen (L)", orgname.ByName, []string{"bergen"}, nil},
		{"Bergen, Limburg", orgname.ByName, []string{"bergen"}, nil},
		{"Bergen Noord-Holland", orgname.ByName, []string{"bergen_nh"}, nil},
		{"Gemeente Bergen (Limburg)", orgname.ByName, []string{"bergen"}, nil},
		{"Bergen Nh", orgname.ByName, []string{"bergen_nh"}, nil},
		{"Provincie Groningen", orgname.ByName, []string{"provincie_groningen"}, nil},
		{"gemeente groningen", orgname.ByName, []string{"groningen"}, nil},
		{"Waterschap Limburg", orgname.ByName, []string{"waterschap_limburg"}, nil},
		{"Provinciale Staten Utrecht", orgname.ByName, []string{"provincie-utrecht"}, nil},
		// A key is always one organisation; its namesakes are named.
		{"bergen", orgname.ByKey, []string{"bergen"}, []string{"bergen_nh"}},
		{"bergen_nh", orgname.ByKey, []string{"bergen_nh"}, nil},
		{"utrecht", orgname.ByKey, []string{"utrecht"}, []string{"provincie-utrecht"}},
		{"soest", orgname.ByKey, []string{"soest"}, nil},
		// Names alone, however written.
		{"Den Helder", orgname.ByName, []string{"den-helder"}, nil},
		{"den_helder", orgname.ByName, []string{"den-helder"}, nil},
		{"Bergen op Zoom", orgname.ByName, []string{"bergen_op_zoom"}, nil},
		{"Sudwest Fryslan", orgname.ByName, []string{"sudwest-fryslan"}, nil},
		{"'s-Hertogenbosch", orgname.ByName, []string{"s-hertogenbosch"}, nil},
		{"Gemeente Soest", orgname.ByName, []string{"soest"}, nil},
		// Starts and words: unique or several.
		{"Helder", orgname.ByWords, []string{"den-helder"}, nil},
		{"Delfland", orgname.ByWords, []string{"hoogheemraadschap_van_delfland"}, nil},
		{"Berg", orgname.ByPrefix, []string{"bergen", "bergen_nh", "bergen_op_zoom"}, nil},
		{"Steenb", orgname.ByPrefix, []string{"steenbergen"}, nil},
		// Nothing.
		{"Atlantis", "", nil, nil},
		{"Be", "", nil, nil},
		{"", "", nil, nil},
		{"Bergen (Zeeland)", "", nil, nil},
	} {
		t.Run(c.arg, func(t *testing.T) {
			m := orgname.MatchOrg(catalogue, c.arg)
			if got := keys(m.Candidates); strings.Join(got, ",") != strings.Join(c.want, ",") || m.By != c.by {
				t.Errorf("candidates %v by %q, want %v by %q", got, m.By, c.want, c.by)
			}
			if got := keys(m.Namesakes); strings.Join(got, ",") != strings.Join(c.same, ",") {
				t.Errorf("namesakes %v, want %v", got, c.same)
			}
		})
	}
}

func keys(orgs []orgname.Org) []string {
	var out []string
	for _, o := range orgs {
		out = append(out, o.Key)
	}
	return out
}

func TestOrgLabel(t *testing.T) {
	for _, c := range []struct {
		o    orgname.Org
		want string
	}{
		{catalogue[0], "Gemeente Bergen (Limburg)"},
		{catalogue[1], "Gemeente Bergen (Noord-Holland)"},
		{orgname.Org{Key: "bergen_nh", Name: "Bergen (NH)", Kind: "gemeente"}, "Gemeente Bergen (Noord-Holland)"},
		{orgname.Org{Key: "bergen", Name: "Bergen (L)", Kind: "gemeente"}, "Gemeente Bergen (Limburg)"},
		{orgname.Org{Key: "bergen", Name: "Bergen"}, "Bergen (Limburg)"},
		{catalogue[5], "Provincie Groningen"},
		{catalogue[7], "Provincie Utrecht"},
		{catalogue[9], "Waterschap Limburg"},
		{catalogue[13], "Hoogheemraadschap Van Delfland"},
		{orgname.Org{Key: "soest", Name: "Gemeenteraad Soest", Kind: "gemeente"}, "Gemeenteraad Soest"},
		{orgname.Org{Key: "x"}, "x"},
		{orgname.Org{Key: "x", Name: strings.Repeat("lang ", 40)}, strings.Repeat("lang ", 20) + "…"},
	} {
		if got := c.o.Label(); got != c.want {
			t.Errorf("%+v: label %q, want %q", c.o, got, c.want)
		}
	}
}

// TestResultLabel: one organisation gets one label whatever platform
// named it; a name that says its body gets no kind in front.
func TestResultLabel(t *testing.T) {
	for _, c := range []struct{ name, kind, key, want string }{
		{"Bergen", "gemeente", "bergen", "Gemeente Bergen (Limburg)"},   // OBV
		{"Bergen (L)", "municipality", "", "Gemeente Bergen (Limburg)"}, // ORI
		{"Gemeente Bergen (L.)", "", "", "Gemeente Bergen (Limburg)"},   // Open Archivaris
		{"Bergen Nh", "gemeente", "bergen_nh", "Gemeente Bergen (Noord-Holland)"},
		{"Bergen (NH)", "municipality", "bergen_nh", "Gemeente Bergen (Noord-Holland)"},
		{"Soest", "gemeente", "soest", "Gemeente Soest"},
		{"Gemeente Soest", "", "", "Gemeente Soest"},
		{"Provinciale Staten van Fryslân", "provincie", "", "Provinciale Staten van Fryslân"},
		{"Hoogheemraadschap van Delfland", "water", "", "Hoogheemraadschap van Delfland"},
		{"Rivierenland", "water", "", "Waterschap Rivierenland"},
		{"Staten van Zeeland", "province", "", "Staten van Zeeland"},
		{"", "gemeente", "x", ""},
	} {
		if got := orgname.ResultLabel(c.name, c.kind, c.key); got != c.want {
			t.Errorf("ResultLabel(%q, %q, %q) = %q, want %q", c.name, c.kind, c.key, got, c.want)
		}
	}
}
