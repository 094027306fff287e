package platformsim

import (
	"net/http"
	"regexp"
	"strings"
)

// zoekSim serves the publication files of zoek.officielebekendmakingen.nl
// ({id}.xml): those recorded in testdata/obk and testdata/tk as
// obk-{id}.xml, the long documents, and for every other SRU record of the
// obk search a publication generated from the record (obkgen.go), so that
// every search hit has its file. Other ids are unknown: 404.
type zoekSim struct {
	files map[string][]byte
}

func newZoek(d dataDir) (backend, error) {
	s := &zoekSim{files: map[string][]byte{}}

	for _, platform := range []string{"obk", "tk"} {
		for _, f := range d.glob(platform, "obk-*.xml") {
			b, err := readFile(f)
			if err != nil {
				return nil, err
			}
			id := strings.TrimSuffix(strings.TrimPrefix(baseName(f), "obk-"), ".xml")
			if _, dup := s.files[id]; !dup {
				s.files[id] = b
			}
		}
	}
	recs, err := loadOBKRecords(d)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if _, ok := s.files[r.Identifier]; ok || longZoekID(r.Identifier) {
			continue
		}
		if b := generatedPublication(r); b != nil {
			s.files[r.Identifier] = b
		}
	}
	return s, nil
}

var zoekPath = regexp.MustCompile(`^/([a-z]{1,6}(?:-[a-z]{2})?-[0-9A-Za-z][0-9A-Za-z.-]*)\.xml$`)

func (s *zoekSim) cost(*http.Request) float64 { return 1 }

func (s *zoekSim) serve(w http.ResponseWriter, r *http.Request) {
	m := zoekPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		writeBody(w, http.StatusNotFound, "text/html", nginx(404))
		return
	}
	if b := longZoekXML(m[1]); b != nil {
		writeBody(w, http.StatusOK, "text/xml", b)
		return
	}
	b, ok := s.files[m[1]]
	if !ok {
		writeBody(w, http.StatusNotFound, "text/html", nginx(404))
		return
	}
	writeBody(w, http.StatusOK, "text/xml", b)
}

func (s *zoekSim) serverError(string) (int, string, []byte) {
	return http.StatusServiceUnavailable, "text/html", nginx(503)
}

func (s *zoekSim) tooMany(int) (string, []byte) { return "text/html", nginx(429) }
