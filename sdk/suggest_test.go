package sdk

import (
	"reflect"
	"strings"
	"testing"
)

var subjects = []string{
	"Bestuursrecht", "Bestuursrecht; Ambtenarenrecht", "Bestuursrecht; Belastingrecht", "Bestuursrecht; Omgevingsrecht",
	"Civiel recht", "Civiel recht; Arbeidsrecht", "Civiel recht; Verbintenissenrecht", "Civiel recht; Personen- en familierecht",
	"Internationaal publiekrecht", "Strafrecht", "Strafrecht; Strafprocesrecht", "Strafrecht; Materieel strafrecht",
}

func TestFolded(t *testing.T) {
	for in, want := range map[string]string{
		"Civiel recht": "civiel recht", "civiel_recht": "civiel recht", " Civiel-Recht ": "civiel recht",
		"Fryslân": "fryslan", "Personen- en familierecht": "personen en familierecht", "date_desc": "date desc",
	} {
		if got := Folded(in); got != want {
			t.Errorf("Folded(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		value string
		want  string // the nearest
	}{
		{"civiel recht", "Civiel recht"},
		{"Civil law", "Civiel recht"},
		{"Civiel", "Civiel recht"},
		{"strafrecht", "Strafrecht"},
		{"arbeidsrecht", "Civiel recht; Arbeidsrecht"},
		{"Belastingrcht", "Bestuursrecht; Belastingrecht"},
	} {
		got := Closest(c.value, subjects, 5)
		if len(got) != 5 || got[0] != c.want {
			t.Errorf("Closest(%q) = %q, want 5 starting with %q", c.value, got, c.want)
		}
	}
	// A short list comes back whole, nearest first.
	if got := Closest("modified", []string{"modified_desc", "modified_asc", "decision_desc"}, 2); !reflect.DeepEqual(got, []string{"modified_desc", "modified_asc", "decision_desc"}) {
		t.Errorf("short list: %q", got)
	}
	if got := Closest("x", nil, 5); got != nil {
		t.Errorf("empty list: %q", got)
	}
}

func TestUnknownValue(t *testing.T) {
	err := UnknownValue("subject", "Civil law", subjects, "rechtspraak_list_subjects")
	want := `argument "subject": "Civil law" is not a value it accepts; closest accepted: "Civiel recht", `
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; all of them: rechtspraak_list_subjects") {
		t.Fatalf("got %v, want it to start %q", err, want)
	}
	if n := strings.Count(err.Error(), `"`) / 2; n != 7 { // the argument, the value and five suggestions
		t.Errorf("%d quoted strings in %q, want 7", n, err)
	}
	long := UnknownValue("sort", strings.Repeat("x", 5000), []string{"a", "b"}, "")
	if len(long.Error()) > 200 || !strings.Contains(long.Error(), `accepted: "a", "b"`) {
		t.Errorf("long value: %q", long)
	}
}

func TestEnumValue(t *testing.T) {
	accepted := []string{"Uitspraak", "Conclusie"}
	for in, want := range map[string]string{"": "", "Uitspraak": "Uitspraak", "uitspraak": "Uitspraak", "CONCLUSIE": "Conclusie"} {
		if got, err := EnumValue("type", in, accepted); err != nil || got != want {
			t.Errorf("EnumValue(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := EnumValue("type", "vonnis", accepted); err == nil || !strings.Contains(err.Error(), `argument "type": "vonnis"`) {
		t.Errorf("unknown: %v", err)
	}
	if got, err := EnumValue("sort", "date-desc", []string{"date_desc", "date_asc"}); err != nil || got != "date_desc" {
		t.Errorf("date-desc: %q %v", got, err)
	}
}
