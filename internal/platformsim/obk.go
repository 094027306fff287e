package platformsim

import (
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
)

// obkSim serves KOOP's SRU 2.0 search (repository.overheid.nl/sru) over the
// official publications, from testdata/obk.
type obkSim struct {
	records []*obkRecord
	busy    []byte // the recorded overload page
}

// obkRecord is one SRU record's metadata, as the gzd record carries it.
type obkRecord struct {
	Identifier       string   `json:"identifier" xml:"originalData>meta>owmskern>identifier"`
	Title            string   `json:"title" xml:"originalData>meta>owmskern>title"`
	Type             []string `json:"type" xml:"originalData>meta>owmskern>type"`
	Creator          []string `json:"creator" xml:"originalData>meta>owmskern>creator"`
	CreatorScheme    string   `json:"creatorScheme"`
	Modified         string   `json:"modified" xml:"originalData>meta>owmskern>modified"`
	Available        string   `json:"available" xml:"originalData>meta>owmsmantel>available"`
	Date             string   `json:"date" xml:"originalData>meta>owmsmantel>date"`
	Subject          []string `json:"subject" xml:"originalData>meta>owmsmantel>subject"`
	Abstract         string   `json:"abstract" xml:"originalData>meta>owmsmantel>abstract"`
	Publisher        []string `json:"publisher" xml:"originalData>meta>owmsmantel>publisher"`
	Organisatietype  string   `json:"organisatietype" xml:"originalData>meta>tpmeta>organisatietype"`
	Publicatienaam   string   `json:"publicatienaam" xml:"originalData>meta>tpmeta>publicatienaam"`
	Publicatienummer string   `json:"publicatienummer" xml:"originalData>meta>tpmeta>publicatienummer"`
	Jaargang         string   `json:"jaargang" xml:"originalData>meta>tpmeta>jaargang"`
	Dossiernummer    string   `json:"dossiernummer" xml:"originalData>meta>tpmeta>dossiernummer"`
	Ondernummer      string   `json:"ondernummer" xml:"originalData>meta>tpmeta>ondernummer"`
	Vergaderjaar     string   `json:"vergaderjaar" xml:"originalData>meta>tpmeta>vergaderjaar"`
	Documentstatus   string   `json:"documentstatus" xml:"originalData>meta>tpmeta>documentstatus"`
	text             doc
	title            doc
}

// loadOBKRecords reads every SRU record the simulator knows: the extra
// records of testdata/obk/sim, the recorded SRU answers and the long
// publications, each identifier once. The SRU search and the zoek host's
// generated publications both read them, so that every record a search
// returns has a publication file.
func loadOBKRecords(d dataDir) ([]*obkRecord, error) {
	var sim struct {
		Records []*obkRecord `json:"records"`
	}
	if err := d.json("obk", "sim/records.json", &sim); err != nil {
		return nil, err
	}
	recs := sim.Records
	for _, f := range []string{"obk-sru-page.xml", "obk-sru-response.xml"} {
		b, err := d.read("obk", f)
		if err != nil {
			return nil, err
		}
		var resp struct {
			Records []struct {
				GZD obkRecord `xml:"recordData>gzd"`
			} `xml:"records>record"`
		}
		if err := xml.Unmarshal(b, &resp); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		for i := range resp.Records {
			r := resp.Records[i].GZD
			recs = append(recs, &r)
		}
	}
	recs = append(recs, longOBKRecords()...)
	seen := map[string]bool{}
	var out []*obkRecord
	for _, r := range recs {
		if r.Identifier == "" {
			return nil, fmt.Errorf("a record without identifier")
		}
		if seen[r.Identifier] {
			continue
		}
		seen[r.Identifier] = true
		out = append(out, r)
	}
	return out, nil
}

func newOBK(d dataDir) (backend, error) {
	s := &obkSim{}
	recs, err := loadOBKRecords(d)
	if err != nil {
		return nil, err
	}
	if s.busy, err = d.read("obk", "obk-sru-503.html"); err != nil {
		return nil, err
	}
	for _, r := range recs {
		body := ""
		if b, err := d.read("obk", "obk-"+r.Identifier+".xml"); err == nil {
			body = xmlText(b)
		} else if !os.IsNotExist(err) {
			return nil, err
		} else if !longZoekID(r.Identifier) {
			// The zoek host serves this record's generated publication;
			// its text is found as a recorded one's is. (The long
			// publications' bodies are not indexed: see longOBKRecords.)
			body = xmlText(generatedPublication(r))
		}
		r.text = newDoc(r.Title, r.Abstract, strings.Join(r.Subject, " "), strings.Join(r.Creator, " "), strings.Join(r.Type, " "), r.Identifier, body)
		r.title = newDoc(r.Title)
		s.records = append(s.records, r)
	}
	return s, nil
}

// xmlText is the character data of an XML document.
func xmlText(b []byte) string {
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	dec.Strict = false
	var sb strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			sb.Write(cd)
			sb.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(sb.String()), " ")
}

func (s *obkSim) cost(*http.Request) float64 { return 1 }

const sruNS = "http://docs.oasis-open.org/ns/search-ws/sruResponse"

func sruDiagnostic(w http.ResponseWriter, d *cqlDiag) {
	body := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<sru:searchRetrieveResponse xmlns:sru="%s">
  <sru:version>2.0</sru:version>
  <sru:diagnostics>
    <diag:diagnostic xmlns:diag="http://www.loc.gov/zing/srw/diagnostic/">
      <diag:uri>info:srw/diagnostic/1/%d</diag:uri>
      <diag:details>%s</diag:details>
      <diag:message>%s</diag:message>
    </diag:diagnostic>
  </sru:diagnostics>
</sru:searchRetrieveResponse>
`, sruNS, d.num, html.EscapeString(d.details), html.EscapeString(d.message))
	writeBody(w, http.StatusOK, "text/xml;charset=UTF-8", []byte(body))
}

func (s *obkSim) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/sru" && r.URL.Path != "/sru/" {
		writeBody(w, http.StatusNotFound, "text/html", nginx(404))
		return
	}
	q := r.URL.Query()
	switch op := q.Get("operation"); op {
	case "searchRetrieve":
	case "explain", "":
		if q.Get("query") == "" {
			writeBody(w, http.StatusOK, "text/xml;charset=UTF-8", []byte(`<?xml version="1.0" encoding="UTF-8"?>
<sru:explainResponse xmlns:sru="`+sruNS+`"><sru:version>2.0</sru:version><sru:record><sru:recordSchema>http://explain.z3950.org/dtd/2.0/</sru:recordSchema><sru:recordData><explain xmlns="http://explain.z3950.org/dtd/2.0/"><serverInfo protocol="SRU" version="2.0"><host>repository.overheid.nl</host><database>sru</database></serverInfo></explain></sru:recordData></sru:record></sru:explainResponse>
`))
			return
		}
	default:
		sruDiagnostic(w, &cqlDiag{4, "Unsupported operation", op})
		return
	}
	query := q.Get("query")
	if query == "" {
		sruDiagnostic(w, &cqlDiag{7, "Mandatory parameter not supplied", "query"})
		return
	}
	start, max := 1, 10
	for _, p := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"startRecord", &start, 1, 1 << 30}, {"maximumRecords", &max, 0, 1000}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < p.min || n > p.max {
				sruDiagnostic(w, &cqlDiag{6, "Unsupported parameter value", p.name + "=" + v})
				return
			}
			*p.dst = n
		}
	}
	cq, err := parseCQL(query)
	if err != nil {
		if d, ok := err.(*cqlDiag); ok {
			sruDiagnostic(w, d)
			return
		}
		sruDiagnostic(w, &cqlDiag{10, "Query syntax error", err.Error()})
		return
	}
	var hits []*obkRecord
	for _, rec := range s.records {
		ok, err := rec.eval(cq.root)
		if err != nil {
			sruDiagnostic(w, err.(*cqlDiag))
			return
		}
		if ok {
			hits = append(hits, rec)
		}
	}
	if cq.sortBy != "" {
		key := func(r *obkRecord) string {
			switch cq.sortBy {
			case "dt.modified":
				return r.Modified
			case "dt.available":
				return r.Available
			}
			return firstNonEmptyStr(r.Date, r.Available)
		}
		sort.SliceStable(hits, func(i, j int) bool {
			if cq.sortDesc {
				return key(hits[i]) > key(hits[j])
			}
			return key(hits[i]) < key(hits[j])
		})
	}
	if len(hits) > 0 && start > len(hits) {
		sruDiagnostic(w, &cqlDiag{61, "First record position out of range", strconv.Itoa(start)})
		return
	}
	page := window(hits, start-1, max)
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sru:searchRetrieveResponse xmlns:sru=\"%s\">\n  <sru:version>2.0</sru:version>\n  <sru:numberOfRecords>%d</sru:numberOfRecords>\n", sruNS, len(hits))
	if len(page) > 0 {
		b.WriteString("  <sru:records>\n")
		for i, rec := range page {
			rec.render(&b, start+i)
		}
		b.WriteString("  </sru:records>\n")
	}
	if next := start + len(page); next <= len(hits) {
		fmt.Fprintf(&b, "  <sru:nextRecordPosition>%d</sru:nextRecordPosition>\n", next)
	}
	b.WriteString("</sru:searchRetrieveResponse>\n")
	writeBody(w, http.StatusOK, "text/xml;charset=UTF-8", []byte(b.String()))
}

func firstNonEmptyStr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// eval evaluates a CQL tree on the record.
func (r *obkRecord) eval(n *cqlNode) (bool, error) {
	if n.clause == nil {
		l, err := r.eval(n.l)
		if err != nil {
			return false, err
		}
		rr, err := r.eval(n.r)
		if err != nil {
			return false, err
		}
		switch n.op {
		case "and":
			return l && rr, nil
		case "or":
			return l || rr, nil
		}
		return l && !rr, nil // not
	}
	c := n.clause
	words := func(d doc) bool {
		ts := queryTerms(c.value)
		switch c.rel {
		case "any":
			return d.matched(ts, wordMatch) > 0
		case "all":
			return d.matched(ts, wordMatch) == len(ts)
		}
		// = and adj on several words: a phrase.
		var ws []string
		for _, t := range ts {
			ws = append(ws, t.words...)
		}
		return len(ws) > 0 && d.count(term{words: ws}, wordMatch) > 0
	}
	equal := func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), c.value) }
	compare := func(v string) bool {
		if v == "" {
			return false
		}
		switch c.rel {
		case ">=":
			return v >= c.value
		case "<=":
			return v <= c.value
		case ">":
			return v > c.value
		case "<":
			return v < c.value
		case "<>":
			return v != c.value
		}
		return v == c.value
	}
	switch c.index {
	case "c.product-area":
		return equal("officielepublicaties"), nil
	case "cql.textAndIndexes", "cql.serverChoice", "cql.anywhere":
		return words(r.text), nil
	case "dt.title":
		return words(r.title), nil
	case "dt.creator":
		return words(newDoc(r.Creator...)), nil
	case "dt.type":
		return words(newDoc(r.Type...)), nil
	case "w.publicatienaam":
		return equal(r.Publicatienaam), nil
	case "w.organisatietype":
		return equal(r.Organisatietype), nil
	case "w.dossiernummer":
		return equal(r.Dossiernummer), nil
	case "w.ondernummer":
		return equal(r.Ondernummer), nil
	case "w.documentstatus":
		return equal(r.Documentstatus), nil
	case "dt.identifier":
		if c.rel == "any" {
			return strings.HasPrefix(r.Identifier, c.value), nil
		}
		return equal(r.Identifier), nil
	case "dt.date":
		return compare(firstNonEmptyStr(r.Date, r.Available)), nil
	case "dt.modified":
		return compare(r.Modified), nil
	case "dt.available":
		return compare(r.Available), nil
	}
	return false, &cqlDiag{16, "Unsupported index", c.index}
}

// render writes the record in the recorded gzd shape.
func (r *obkRecord) render(b *strings.Builder, pos int) {
	e := html.EscapeString
	el := func(indent, name, scheme, v string) {
		if v == "" {
			return
		}
		if scheme != "" {
			fmt.Fprintf(b, "%s<%s scheme=\"%s\">%s</%s>\n", indent, name, scheme, e(v), name)
		} else {
			fmt.Fprintf(b, "%s<%s>%s</%s>\n", indent, name, e(v), name)
		}
	}
	const k = "              "
	b.WriteString("    <sru:record>\n      <sru:recordSchema>http://standaarden.overheid.nl/sru/</sru:recordSchema>\n      <sru:recordPacking>xml</sru:recordPacking>\n      <sru:recordData>\n")
	b.WriteString("        <gzd:gzd xmlns:gzd=\"http://standaarden.overheid.nl/sru\" xmlns:dcterms=\"http://purl.org/dc/terms/\" xmlns:overheidwetgeving=\"http://standaarden.overheid.nl/wetgeving/\">\n")
	b.WriteString("          <gzd:originalData>\n            <overheidwetgeving:meta>\n              <overheidwetgeving:owmskern>\n")
	el(k+"  ", "dcterms:identifier", "", r.Identifier)
	el(k+"  ", "dcterms:title", "", r.Title)
	el(k+"  ", "dcterms:language", "", "nl")
	for _, t := range r.Type {
		el(k+"  ", "dcterms:type", "", t)
	}
	scheme := firstNonEmptyStr(r.CreatorScheme, "OVERHEID.Organisatie")
	for _, c := range r.Creator {
		el(k+"  ", "dcterms:creator", scheme, c)
	}
	el(k+"  ", "dcterms:modified", "", r.Modified)
	b.WriteString(k + "</overheidwetgeving:owmskern>\n" + k + "<overheidwetgeving:owmsmantel>\n")
	el(k+"  ", "dcterms:available", "", r.Available)
	el(k+"  ", "dcterms:date", "", r.Date)
	for _, sub := range r.Subject {
		el(k+"  ", "dcterms:subject", "OVERHEID.TaxonomieBeleidsagenda", sub)
	}
	el(k+"  ", "dcterms:abstract", "", r.Abstract)
	for _, p := range r.Publisher {
		el(k+"  ", "dcterms:publisher", scheme, p)
	}
	b.WriteString(k + "</overheidwetgeving:owmsmantel>\n" + k + "<overheidwetgeving:tpmeta>\n")
	el(k+"  ", "overheidwetgeving:product-area", "", "officielepublicaties")
	el(k+"  ", "overheidwetgeving:jaargang", "", r.Jaargang)
	el(k+"  ", "overheidwetgeving:organisatietype", "OVERHEID.Organisatietype", r.Organisatietype)
	el(k+"  ", "overheidwetgeving:publicatienummer", "", r.Publicatienummer)
	el(k+"  ", "overheidwetgeving:publicatienaam", "", r.Publicatienaam)
	el(k+"  ", "overheidwetgeving:dossiernummer", "", r.Dossiernummer)
	el(k+"  ", "overheidwetgeving:ondernummer", "", r.Ondernummer)
	el(k+"  ", "overheidwetgeving:vergaderjaar", "", r.Vergaderjaar)
	el(k+"  ", "overheidwetgeving:documentstatus", "", r.Documentstatus)
	b.WriteString(k + "</overheidwetgeving:tpmeta>\n            </overheidwetgeving:meta>\n          </gzd:originalData>\n          <gzd:enrichedData>\n")
	frbr := "https://repository.overheid.nl/frbr/officielepublicaties/" + r.family() + "/" + r.Identifier + "/1/"
	el("            ", "gzd:url", "", frbr+"xml/"+r.Identifier+".xml")
	el("            ", "gzd:preferredUrl", "", "https://zoek.officielebekendmakingen.nl/"+r.Identifier+".html")
	for _, m := range []string{"html", "pdf", "xml"} {
		fmt.Fprintf(b, "            <gzd:itemUrl manifestation=\"%s\">%s%s/%s.%s</gzd:itemUrl>\n", m, frbr, m, r.Identifier, m)
	}
	b.WriteString("          </gzd:enrichedData>\n        </gzd:gzd>\n      </sru:recordData>\n")
	fmt.Fprintf(b, "      <sru:recordPosition>%d</sru:recordPosition>\n    </sru:record>\n", pos)
}

// family is the FRBR path part before the id: kst/33328, gmb/2023, ….
func (r *obkRecord) family() string {
	prefix, _, _ := strings.Cut(r.Identifier, "-")
	switch {
	case r.Dossiernummer != "":
		return prefix + "/" + r.Dossiernummer
	case r.Jaargang != "":
		return prefix + "/" + r.Jaargang
	}
	return prefix
}

func (s *obkSim) serverError(string) (int, string, []byte) {
	return http.StatusServiceUnavailable, "text/html", s.busy
}

func (s *obkSim) tooMany(int) (string, []byte) { return "text/html", nginx(429) }
