package web

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // Europe/Amsterdam on machines without zoneinfo

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/serve/cite"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Platform is one searchable platform as the pages see it.
type Platform struct {
	// ID is the connector id; Title the platform's name; Description a
	// sentence about what it holds (English, from the manifest), and
	// DescriptionNL the same in Dutch when known.
	ID, Title, Description, DescriptionNL string
	// TitleNL is the platform's name in Dutch where it differs from Title
	// (the manifest's title_nl).
	TitleNL string
	// SearchTool and DocumentTool are full tool names; DocumentArg is the
	// get_document argument that takes a result's id.
	SearchTool, DocumentTool, DocumentArg string
	// DocumentCategories are result types the document tool wants as its
	// "category" argument (OpenTK's Verslag).
	DocumentCategories []string
	// Profile is the manifest's search profile: which arguments the
	// search tool takes for the query, the dates, the limit and the
	// offset, read as besluitbron_search reads them
	// (connector.SearchProfile.Arguments); nil takes none but the limit.
	Profile *connector.SearchProfile
	// Types name the record types its results carry, in Dutch and
	// English (the manifest's type labels).
	Types connector.TypeLabels
	// Filter is the platform's municipality, source or court choice.
	Filter *Filter
	// Keys are the document key kinds its search results carry (the
	// manifest's search profile): results of several platforms that share
	// one are one document, shown once.
	Keys []string
}

// Filter is a search argument that narrows a platform to one organisation.
type Filter struct {
	// Arg is the search tool's argument.
	Arg string
	// LabelNL and LabelEN name the choice.
	LabelNL, LabelEN string
	// ListTool, when set, lists the choices (a connector.ListResult).
	ListTool string
}

// Options configure a Server. Zero values mean defaults.
type Options struct {
	// Platforms in display order; Invoke is required: it runs one
	// connector tool by full name (the MCP server's Invoke).
	Platforms []Platform
	Invoke    invoke.Invoker
	// Status, when set, serves the Laadstatus pages and the warnings.
	Status func() loadstatus.Snapshot
	// Cluster, when set, says how this replica shares the platforms'
	// limits with the others (several replicas on Redis), one line each;
	// Warn marks a line a reader should notice (Redis unreachable).
	Cluster func() []ClusterLine
	// Version is shown in the footer.
	Version string
	Logger  *slog.Logger
	// Registerer receives the page metrics (nil: none).
	Registerer prometheus.Registerer
	// Wait is how long a page waits for the platforms (default 8 s).
	Wait time.Duration
	// CallTimeout bounds a page's platform call, which goes on in the
	// background after the page is sent (default 90 s).
	CallTimeout time.Duration
	// MaxInFlight bounds the page's platform calls at once (default 32).
	MaxInFlight int
	// PageSize is the number of results per platform (default 10).
	PageSize int
	// ListTTL is how long filter choices are kept (default 1 h).
	ListTTL time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Cite, when set, serves the Citeer link of every result and
	// document (/cite): its citation as RIS, BibTeX or CSL-JSON.
	Cite *cite.Service
	// Follow, when set, saves the search as a watch for the page's
	// reader (POST /volg, the search page's "Volg deze zoekopdracht") and
	// returns its feed's path; Feed serves the feeds (GET /watch/{feed}).
	Follow func(r *http.Request, f FollowSearch) (feedPath string, err error)
	Feed   http.HandlerFunc
}

// FollowSearch is a search page's search as a watch takes it: the terms,
// the platforms the reader picked (nil: the default ones), one
// organisation when every platform filter named the same, and the period.
type FollowSearch struct {
	Query, Organization, DateFrom, DateTo string
	Platforms                             []string
}

// ClusterLine is one line of the status page's replica section.
type ClusterLine struct {
	Text string // English, as the cluster package words it
	Warn bool
}

// Server serves the pages. Build it with [New].
type Server struct {
	o     Options
	byID  map[string]*Platform
	pages map[string]*template.Template
	calls *calls
	lists *lists
	reqs  *prometheus.CounterVec
}

// New returns a Server. It panics without Invoke (a programmer error).
func New(o Options) *Server {
	if o.Invoke == nil {
		panic("web.New: nil Invoke")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Wait <= 0 {
		o.Wait = 8 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 90 * time.Second
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 32
	}
	if o.PageSize <= 0 {
		o.PageSize = 10
	}
	if o.ListTTL <= 0 {
		o.ListTTL = time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{o: o, byID: map[string]*Platform{}, pages: map[string]*template.Template{}}
	for i := range o.Platforms {
		s.byID[o.Platforms[i].ID] = &s.o.Platforms[i]
	}
	s.calls = newCalls(o.MaxInFlight, o.CallTimeout, o.Invoke)
	s.lists = &lists{s: s, m: map[string]*list{}, fetching: map[string]*pending{}}
	for _, page := range []string{"search", "fragment", "document", "status", "limited", "follow"} {
		t := template.New("").Funcs(funcs)
		template.Must(t.ParseFS(templateFS, "templates/layout.html", "templates/results.html", "templates/"+page+".html"))
		s.pages[page] = t
	}
	s.reqs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "besluitbron_web_requests_total", Help: "Page requests by page and HTTP status.",
	}, []string{"page", "code"})
	if o.Registerer != nil {
		o.Registerer.MustRegister(s.reqs)
	}
	return s
}

// Routes adds the pages to mux. [Server.Guard] puts them behind the
// Host, Origin and client-limit rules (guard.go).
func (s *Server) Routes(mux *http.ServeMux) {
	for _, rt := range s.routes() {
		mux.HandleFunc(rt.pattern, rt.handler)
	}
}

// handleStatic serves the embedded stylesheet and script.
func (s *Server) handleStatic() http.HandlerFunc {
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}
}

// page is what every template gets.
type page struct {
	Lang      string
	Title     string
	Path      string
	Query     url.Values
	Version   string
	HasStatus bool
	// HasCite: the pages offer a Citeer link (Options.Cite is set).
	HasCite bool
	Now     time.Time
	Data    any
	// names are the platforms' Dutch names by id, on a Dutch page.
	names map[string]string
	// byID are the platforms shown, for a row that names its platform
	// by id (the Laadstatus's).
	byID map[string]*Platform
}

// name is platform id's name in the page's language: its Dutch name on
// a Dutch page where the manifest gives one, else title.
func (p *page) name(id, title string) string {
	if n := p.names[id]; n != "" {
		return n
	}
	return title
}

// T returns a text in the page's language.
func (p *page) T(key string, args ...any) string { return tr(p.Lang, key, args...) }

// N returns a text about n things in the page's language: key+".0" for
// none and key+".1" for one when those exist ("1 resultaat", not
// "1 resultaten"), else key formatted with n.
func (p *page) N(key string, n int) string {
	if n == 0 || n == 1 {
		if k := fmt.Sprintf("%s.%d", key, n); hasMessage(k) {
			if s := tr(p.Lang, k); !strings.Contains(s, "%") {
				return s // the form names the number in words ("geen 429")
			}
			return tr(p.Lang, k, n)
		}
	}
	return tr(p.Lang, key, n)
}

func (s *Server) newPage(w http.ResponseWriter, r *http.Request, title string) *page {
	lang := language(w, r)
	q := r.URL.Query()
	q.Del("lang")
	p := &page{Lang: lang, Path: r.URL.Path, Query: q, Version: s.o.Version, HasStatus: s.o.Status != nil, HasCite: s.o.Cite != nil, Now: s.o.Now(), byID: s.byID}
	p.Title = p.T(title)
	if lang == "nl" {
		for id, pl := range s.byID {
			if pl.TitleNL != "" {
				if p.names == nil {
					p.names = map[string]string{}
				}
				p.names[id] = pl.TitleNL
			}
		}
	}
	return p
}

// render writes a page; a template error is a 500 and logged (it is a
// bug, never the visitor's fault).
func (s *Server) render(w http.ResponseWriter, name, tmpl string, status int, p *page) {
	s.renderAs(w, name, tmpl, name, status, p)
}

// renderAs is render counted in the metrics as page label (a refusal
// counts against the page asked for).
func (s *Server) renderAs(w http.ResponseWriter, name, tmpl, label string, status int, p *page) {
	var b strings.Builder
	if err := s.pages[name].ExecuteTemplate(&b, tmpl, p); err != nil {
		s.o.Logger.Error("web: template", "page", name, "error", err)
		s.reqs.WithLabelValues(label, "500").Inc()
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(b.String()))
	s.reqs.WithLabelValues(label, fmt.Sprint(status)).Inc()
}

// language picks nl or en: ?lang= (remembered in a cookie), else the
// cookie, else Dutch.
func language(w http.ResponseWriter, r *http.Request) string {
	if l := r.URL.Query().Get("lang"); l == "nl" || l == "en" {
		http.SetCookie(w, &http.Cookie{Name: "lang", Value: l, Path: "/", MaxAge: 365 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode})
		return l
	}
	if c, err := r.Cookie("lang"); err == nil && (c.Value == "nl" || c.Value == "en") {
		return c.Value
	}
	return "nl"
}

var funcs = template.FuncMap{
	// span writes a number of seconds as a duration ("8m20s").
	"span": func(s float64) string { return time.Duration(s * float64(time.Second)).Round(time.Second).String() },
	// num writes a number of units without trailing zeros.
	"num": func(f float64) string { return fmt.Sprint(f) },
	// mul100 is a share as a percentage.
	"mul100": func(f float64) float64 { return f * 100 },
	"link": func(path string, q url.Values, kv ...string) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = append([]string(nil), vs...)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		if len(v) == 0 {
			return path
		}
		return path + "?" + v.Encode()
	},
	"date":     func(lang, iso string) string { return formatDate(lang, iso) },
	"citelink": citeLink,
	"stamp":    func(lang, ts string) string { return formatStamp(lang, ts) },
	"when":     func(lang string, t, now time.Time) string { return formatWhen(lang, t, now) },
	"ms":       func(ms int64) string { return fmt.Sprintf("%d ms", ms) },
	"add":      func(a, b int) int { return a + b },
	"sub":      func(a, b int) int { return a - b },
	"deref":    func(n *int) int { return *n },
	"secs":     func(ms int64) float64 { return float64(ms) / 1000 },
	"mins":     func(secs float64) int { return int(secs / 60) },
	"pair":     func(p *page, s *section) sectionView { return sectionView{P: p, S: s} },
	"limit":    formatLimit,
	"clock":    func(t time.Time) string { return t.In(amsterdam).Format("15:04:05") },
	"sources":  func(p *page, ss []loadstatus.Source) sourcesView { return sourcesView{P: p, Sources: ss} },
	"doclink": func(p *page, pl *Platform, it connector.Item) string {
		v := url.Values{"p": {pl.ID}, "id": {it.ID}}
		if it.Type != "" && contains(pl.DocumentCategories, it.Type) {
			v.Set("soort", it.Type)
		}
		back := p.Path
		if len(p.Query) > 0 {
			back += "?" + p.Query.Encode()
		}
		v.Set("terug", back)
		return "/document?" + v.Encode()
	},
	// readable says whether a result has a full text to show: a platform
	// whose document tool names the categories it reads (OpenTK: Document,
	// Verslag) has none for its other results (activities, commitments),
	// which link to their page instead of to an error.
	"readable": func(pl *Platform, it connector.Item) bool {
		return pl.DocumentTool != "" && (len(pl.DocumentCategories) == 0 || it.Type == "" || contains(pl.DocumentCategories, it.Type))
	},
	// plain shows a snippet as one line of plain text.
	"plain": plainText,
	// pname is a platform's name in the page's language.
	"pname": func(p *page, id, title string) string { return p.name(id, title) },
	// kind names a result type of platform pl in people's words.
	"kind": func(lang string, pl *Platform, t string) string { return pl.typeWord(lang, t, true) },
	// kindlow names it inside a phrase ("nieuwste vergadering").
	"kindlow": func(lang string, pl *Platform, t string) string { return pl.typeWord(lang, t, false) },
	// platform is the platform of an id (nil when none is shown).
	"platform":  func(p *page, id string) *Platform { return p.byID[id] },
	"notes":     func(p *page, s *section) []noteView { return viewNotes(p.Lang, s.Platform.Title, s.Notes) },
	"reason":    statusReason,
	"limitfrom": limitFrom,
	"limitnote": limitNote,
	"origins":   limitOrigins,
	"users":     func(p *page, q loadstatus.Quota) string { return joinAnd(p, q.Titles()) },
	"charts":    quotaCharts,
	"clustered": func(qs []loadstatus.Quota) bool {
		for _, q := range qs {
			if q.Cluster != "" {
				return true
			}
		}
		return false
	},
	// idlink opens a record a document mentions by id, on the same
	// platform, with the same way back.
	"idlink": func(p *page, d *documentData, id string) string {
		v := url.Values{"p": {d.Platform.ID}, "id": {id}}
		if d.Back != "" {
			v.Set("terug", d.Back)
		}
		return "/document?" + v.Encode()
	},
	// techv is a technical message for the "tech" disclosure: the
	// platform's or connector's own words (English), under a summary in
	// the page's language, closed by default.
	"techv": func(p *page, key, text string) techView { return techView{P: p, Key: key, Text: text} },
	"int":   func(n int64) int { return int(n) },
	"has": func(list []string, v string) bool {
		for _, x := range list {
			if x == v {
				return true
			}
		}
		return false
	},
}

// formatLimit words a limit of units per perSeconds: "10 per 30 seconden",
// "60 per minuut".
func formatLimit(p *page, units, perSeconds float64) string {
	switch {
	case perSeconds == 1:
		return p.T("st.per.s1", units)
	case perSeconds == 60:
		return p.T("st.per.m1", units)
	case perSeconds > 60 && perSeconds == float64(int(perSeconds/60))*60:
		return p.T("st.per.m", units, perSeconds/60)
	}
	return p.T("st.per.s", units, perSeconds)
}

// statusReason says in the page's language what a platform's last check
// found; the English Message stays for /status.json and the tool.
func statusReason(p *page, s loadstatus.Status) string {
	switch s.Reason {
	case loadstatus.Answered:
		return p.T("reason.answered", s.LatencyMS)
	case loadstatus.AnsweredSlowly:
		return p.T("reason.answered_slowly", num(p.Lang, float64(s.LatencyMS)/1000))
	case loadstatus.ServerError:
		return p.T("reason.server_error", s.HTTPStatus)
	case loadstatus.Got429, loadstatus.NoRoom, loadstatus.Refused, loadstatus.NoAnswer, loadstatus.NotChecked:
		return p.T("reason." + string(s.Reason))
	}
	return p.T("st.msg." + string(s.State))
}

// limitFrom says where a quota's limit comes from, in the page's
// language: the admin's key, the platform's publication (and where),
// a measurement, BesluitBron's own choice, or nothing known. A manifest
// that said nothing reads as loadstatus filled it in.
func limitFrom(p *page, q loadstatus.Quota) string {
	switch from := q.Origin(); from {
	case loadstatus.LimitAdmin:
		return p.T("st.src.admin", q.Source)
	case connector.LimitPublished:
		return p.T("st.from.published", q.LimitWhere)
	case connector.LimitMeasured, connector.LimitPolite:
		return p.T("st.from." + from)
	}
	return p.T("st.from.unknown")
}

// limitNote is the manifest's note on a quota's limit in the page's
// language: the Dutch one on the Dutch page, the English one on the
// English page, and none where that language has none (an English note
// on the Dutch page would be the only English there).
func limitNote(p *page, q loadstatus.Quota) string {
	if q.LimitFrom == loadstatus.LimitAdmin {
		return ""
	}
	if p.Lang == "en" {
		return q.LimitNote
	}
	return q.LimitNoteNL
}

// originGroup is one line of the page's summary of where the limits come
// from: its words and the quotas in it.
type originGroup struct {
	Label  string
	Quotas []string
}

// limitOrigins groups the quotas by where their limits come from, in a
// fixed order: published, measured, BesluitBron's choice, the admin's,
// unknown; a group without quotas is left out.
func limitOrigins(p *page, qs []loadstatus.Quota) []originGroup {
	order := []string{connector.LimitPublished, connector.LimitMeasured, connector.LimitPolite, loadstatus.LimitAdmin, connector.LimitUnknown}
	by := map[string][]string{}
	for _, q := range qs {
		from := q.Origin()
		if !slices.Contains(order, from) {
			from = connector.LimitUnknown
		}
		by[from] = append(by[from], q.Quota)
	}
	var out []originGroup
	for _, o := range order {
		if len(by[o]) > 0 {
			out = append(out, originGroup{Label: p.T("st.group." + o), Quotas: by[o]})
		}
	}
	return out
}

// joinAnd lists names as "A, B en C".
func joinAnd(p *page, names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + p.T("and") + " " + names[len(names)-1]
}

// techView is a technical message and the page it is shown on.
type techView struct {
	P         *page
	Key, Text string
}

// sectionView pairs a results section with its page (texts, language).
type sectionView struct {
	P *page
	S *section
}

// sourcesView pairs a list of sources with its page.
type sourcesView struct {
	P       *page
	Sources []loadstatus.Source
}

var dutchMonths = []string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"}

func formatDate(lang, iso string) string {
	t, err := time.Parse("2006-01-02", iso)
	if err != nil {
		return iso
	}
	if lang == "en" {
		return t.Format("2 January 2006")
	}
	return fmt.Sprintf("%d %s %d", t.Day(), dutchMonths[t.Month()-1], t.Year())
}

// amsterdam is the time zone the pages show instants in.
var amsterdam = func() *time.Location {
	if l, err := time.LoadLocation("Europe/Amsterdam"); err == nil {
		return l
	}
	return time.UTC
}()

// formatStamp shows an RFC 3339 instant as a Dutch (or English) date and
// time in Amsterdam; anything else as is.
func formatStamp(lang, ts string) string {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return ts
	}
	t = t.In(amsterdam)
	return formatDate(lang, t.Format("2006-01-02")) + ", " + t.Format("15:04")
}

func formatWhen(lang string, t, now time.Time) string {
	if t.IsZero() {
		return tr(lang, "never")
	}
	d := now.Sub(t)
	unit, n := "ago.d", int(d.Hours()/24)
	switch {
	case d < time.Minute:
		unit, n = "ago.s", int(d.Seconds())
	case d < 2*time.Hour:
		unit, n = "ago.m", int(d.Minutes())
	case d < 48*time.Hour:
		unit, n = "ago.h", int(d.Hours())
	}
	if n == 1 {
		return tr(lang, unit+"1")
	}
	return tr(lang, unit, n)
}

// statusOf returns a platform's Laadstatus, if the job has one.
func (s *Server) statusOf(id string) (loadstatus.Status, bool) {
	if s.o.Status == nil {
		return loadstatus.Status{}, false
	}
	return s.o.Status().Platform(id)
}

// lists keeps filter choices (municipalities, courts) for ListTTL.
type lists struct {
	s        *Server
	mu       sync.Mutex
	m        map[string]*list
	fetching map[string]*pending // the running call per list
}

type list struct {
	at    time.Time // when items were fetched (zero: never)
	retry time.Time // after a failure: not asked again before
	items []choice
}

type choice struct{ Value, Label string }
