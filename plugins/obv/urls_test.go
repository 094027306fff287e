package obv_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obv"
)

// The URLs as net/url wrote them before they were written out by hand.
func pageURLRef(id, title string) string {
	var first string
	if parts := strings.Split(id, ":"); len(parts) >= 5 && parts[3] != "" {
		first = "organization=" + url.QueryEscape(parts[3])
	} else {
		first = "query=" + url.QueryEscape(firstNonEmptyRef(strings.TrimSpace(title), id))
	}
	return obv.PageBase + "/?" + first + "&view=" + url.QueryEscape(id)
}

func firstNonEmptyRef(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func entityURLRef(base, id string) string {
	return strings.TrimRight(base, "/") + "/api/entities/" + strings.ReplaceAll(url.QueryEscape(id), "+", "%20")
}

func checkURLs(t *testing.T, base, id, title string) {
	if got, want := obv.PageURL(id, title), pageURLRef(id, title); got != want {
		t.Errorf("PageURL(%q, %q) = %q, want %q", id, title, got, want)
	}
	if got, want := obv.EntityURL(base, id), entityURLRef(base, id); got != want {
		t.Errorf("EntityURL(%q, %q) = %q, want %q", base, id, got, want)
	}
}

func TestURLsAsNetURL(t *testing.T) {
	for _, c := range [][3]string{
		{obv.BaseURL, "document:notubiz:gemeente:soest:12345", "Raadsvoorstel begroting 2024"},
		{obv.BaseURL + "//", "motion:ibabs:gemeente::9", " Motie: 100% & meer "},
		{"", "a:b:c:d", ""},
		{"x/", "a:b:c:d:e:f", "t"},
		{"x", "", ""},
		{"x", "  ", "\x00\xff+ ~-_.é/?#"},
		{"x", "a b:c+d:e%f:g h:i", ""},
	} {
		checkURLs(t, c[0], c[1], c[2])
	}
}

func FuzzURLs(f *testing.F) {
	f.Add(obv.BaseURL, "document:notubiz:gemeente:soest:12345", "Raadsvoorstel begroting 2024")
	f.Fuzz(func(t *testing.T, base, id, title string) { checkURLs(t, base, id, title) })
}
