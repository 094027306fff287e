package watch

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Atom 1.0 (RFC 4287), as much of it as a feed reader needs: the feed's
// id, title, updated, author and self link, and per entry its id, title,
// link, updated and summary.

// AtomNS is the Atom namespace.
const AtomNS = "http://www.w3.org/2005/Atom"

// AtomFeed is an Atom feed document.
type AtomFeed struct {
	XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Lang     string      `xml:"http://www.w3.org/XML/1998/namespace lang,attr,omitempty"`
	ID       string      `xml:"id"`
	Title    string      `xml:"title"`
	Subtitle string      `xml:"subtitle,omitempty"`
	Updated  string      `xml:"updated"`
	Author   AtomPerson  `xml:"author"`
	Links    []AtomLink  `xml:"link"`
	Gen      string      `xml:"generator,omitempty"`
	Entries  []AtomEntry `xml:"entry"`
}

// AtomPerson is an author.
type AtomPerson struct {
	Name string `xml:"name"`
}

// AtomLink is a link.
type AtomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

// AtomEntry is one result.
type AtomEntry struct {
	ID        string     `xml:"id"`
	Title     string     `xml:"title"`
	Links     []AtomLink `xml:"link"`
	Updated   string     `xml:"updated"`
	Published string     `xml:"published,omitempty"`
	Summary   string     `xml:"summary,omitempty"`
	Category  []AtomCat  `xml:"category,omitempty"`
}

// AtomCat is a category (the platform).
type AtomCat struct {
	Term  string `xml:"term,attr"`
	Label string `xml:"label,attr,omitempty"`
}

// FeedHandler serves /watch/{feed} where feed is "<secret>.atom": the
// watch's results as Atom, newest first, the feed's subtitle saying how
// fresh it is. An unknown secret is 404, the same for every wrong one.
func (m *Manager) FeedHandler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("feed")
		secret, ok := strings.CutSuffix(name, ".atom")
		if !ok || len(secret) != 32 {
			http.Error(w, "BesluitBron: no such feed: a feed address is /watch/<32 hex characters>.atom, as besluitbron_watch or the search page's \"Volg deze zoekopdracht\" gave it", http.StatusNotFound)
			return
		}
		wt, found := m.BySecret(secret)
		if !found {
			http.Error(w, "BesluitBron: no such feed (it was deleted, or the address is mistyped)", http.StatusNotFound)
			return
		}
		self := absolute(r, wt.Feed())
		b, err := m.Atom(wt, self, absolute(r, "/"))
		if err != nil {
			http.Error(w, "BesluitBron: the feed could not be written: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
		w.Header().Set("Cache-Control", "private, max-age=60")
		w.Header().Set("X-Robots-Tag", "noindex")
		w.Write(b)
	}
}

// Atom writes w's feed; self is its own address, site the host's root
// (results without a link of their own link to its document page).
func (m *Manager) Atom(w *Watch, self, site string) ([]byte, error) {
	m.mu.Lock()
	v := m.view(w, time.Time{}, false)
	g := m.groups[w.Query.key()]
	var entries []Entry
	if g != nil {
		entries = append(entries, g.entries...)
	}
	m.mu.Unlock()
	updated := v.Freshness.LastChecked
	if updated.IsZero() {
		updated = w.Created
	}
	f := AtomFeed{
		Lang:     "nl",
		ID:       "urn:besluitbron:watch:" + w.ID,
		Title:    "BesluitBron: " + describe(w.Query),
		Subtitle: v.Freshness.NoteNL + " / " + v.Freshness.Note,
		Updated:  updated.UTC().Format(time.RFC3339),
		Author:   AtomPerson{Name: "BesluitBron"},
		Links:    []AtomLink{{Rel: "self", Type: "application/atom+xml", Href: self}},
		Gen:      "BesluitBron",
	}
	for _, e := range entries {
		link := e.URL
		if link == "" {
			link = strings.TrimSuffix(site, "/") + "/document?p=" + url.QueryEscape(e.Platform) + "&id=" + url.QueryEscape(e.ID)
		}
		title := e.Title
		if strings.TrimSpace(title) == "" {
			title = e.Platform + " " + e.ID
		}
		ae := AtomEntry{
			ID:       "urn:besluitbron:" + e.Platform + ":" + url.PathEscape(e.ID),
			Title:    title,
			Links:    []AtomLink{{Rel: "alternate", Href: link}},
			Updated:  e.FirstSeen.UTC().Format(time.RFC3339),
			Summary:  summary(e),
			Category: []AtomCat{{Term: e.Platform}},
		}
		if d, err := time.Parse("2006-01-02", e.Date); err == nil {
			ae.Published = d.Format(time.RFC3339)
		}
		for _, c := range e.AlsoOn {
			if c.URL != "" {
				ae.Links = append(ae.Links, AtomLink{Rel: "related", Href: c.URL})
			}
		}
		f.Entries = append(f.Entries, ae)
	}
	b, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

// summary is an entry's text: organisation, date and snippet.
func summary(e Entry) string {
	var parts []string
	for _, s := range []string{e.Organization, e.Date, e.Snippet} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// describe says a search in a title.
func describe(q Query) string {
	s := fmt.Sprintf("%q", q.Query)
	if q.Organization != "" {
		s += " (" + q.Organization + ")"
	}
	if len(q.Platforms) > 0 {
		s += " op " + strings.Join(q.Platforms, ", ")
	}
	return s
}

// absolute makes path absolute on the address the request came to.
func absolute(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}
