package web

import (
	"net/http"
	"slices"
	"strings"
)

// followData is the follow page's data: the feed's absolute address, or
// why the search cannot be followed.
type followData struct {
	Feed, Error string
	// Filters is true when per-platform filters were left out.
	Filters bool
}

// handleFollow saves the posted search as a watch (Options.Follow) and
// shows its feed address as a feed reader takes it: absolute, on the
// address the reader came to.
func (s *Server) handleFollow(w http.ResponseWriter, r *http.Request) {
	pg := s.newPage(w, r, "title.follow")
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		pg.Data = followData{Error: "the form could not be read: " + err.Error()}
		s.render(w, "follow", "layout", http.StatusBadRequest, pg)
		return
	}
	f := s.parseForm(r.PostForm)
	fs := FollowSearch{Query: f.Q, DateFrom: f.From, DateTo: f.To}
	if f.Picked {
		fs.Platforms = f.Chosen
	}
	d := followData{}
	var orgs []string
	for _, v := range f.Filters {
		if !slices.Contains(orgs, v) {
			orgs = append(orgs, v)
		}
	}
	switch len(orgs) {
	case 0:
	case 1:
		fs.Organization = orgs[0]
	default:
		d.Filters = true
	}
	status := http.StatusOK
	if len(f.Problems) > 0 || f.Q == "" {
		d.Error = "give search terms (and a valid period) to follow a search"
		status = http.StatusBadRequest
	} else if feed, err := s.o.Follow(r, fs); err != nil {
		d.Error = err.Error()
		status = http.StatusBadRequest
	} else {
		scheme := "http"
		if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
			scheme = "https"
		}
		d.Feed = scheme + "://" + r.Host + feed
	}
	pg.Data = d
	s.render(w, "follow", "layout", status, pg)
}
