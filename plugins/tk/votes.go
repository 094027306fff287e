package tk

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Votes: tk_get_votes answers how the Kamer decided on a motion, an
// amendment or a bill, and how each fractie (or, in a roll-call vote,
// each member) voted. The facts it rests on, and where they come from:
//
//   - A decision is a Besluit (BesluitSoort, BesluitTekst, StemmingsSoort,
//     Status, Opmerking, AgendapuntZaakBesluitVolgorde), linked to the
//     cases it decided (navigation Zaak, a collection), to its votes
//     (Stemming, a collection) and to its agenda item (Agendapunt, whose
//     Activiteit has the date): field and navigation names from the
//     platform's entity model as typed by several independent clients
//     (pydantic, Go and Rust models of the OData v2.0 API) and tkconv's
//     SyncFeed reader (berthubert/tkconv tkconv.cc); upstreams.md §3.
//   - A vote is a Stemming: Soort ("Voor", "Tegen", "Niet deelgenomen"),
//     ActorNaam, ActorFractie, FractieGrootte, Vergissing, Persoon_Id,
//     Fractie_Id, Verwijderd. A vote per fractie counts FractieGrootte
//     seats; in a roll-call vote (StemmingsSoort "Hoofdelijk") every row
//     is one member's vote, with Persoon_Id set: tkconv's getVoteDetail
//     (tkserv.cc) counts them the same way.
//   - A motion usually has two decisions: "Ingediend" when it is tabled,
//     and the vote (BesluitSoort "Stemmen - aangenomen" / "Stemmen -
//     verworpen"), tkconv's comment on /stemmingen.html; a motion may
//     also be held (aangehouden) or withdrawn.
//   - The query goes to the Besluit set with Zaak/any(...) as filter and
//     Stemming, Zaak and Agendapunt($expand=Activiteit) expanded: the
//     query public clients send the live service (an expansion two deep,
//     nested $select), so that one request answers a case.

var kamerstukPattern = regexp.MustCompile(`(?i)^(?:kst-|kamerstuk(?:ken)?\s+(?:ii\s+)?(?:\d{4}\s*/\s*\d{2,4}\s*,?\s*)?)?(\d{1,2}\s?\d{3})(?:[\s-]+([0-9A-Z]{1,10}))?\s*(?:,\s*)?(?:nr\.?|no\.?|-)\s*(\d{1,5})$`)

// votesRef is what an id argument of tk_get_votes names.
type votesRef struct {
	kind       string // document, zaak, guid, kamerstuk
	value      string // the number or GUID, normalised
	dossier    int
	toevoeging string
	volgnummer int
}

// ParseVotesID reads the id argument of tk_get_votes: a document number
// (2025D12345), a case number (2025Z01234), an Id (GUID) of a Document or
// Zaak from tk_search, or a kamerstuk (36800-VII-14, "36800 VII, nr. 14",
// kst-36800-VII-14, "Kamerstukken II 2025/26, 36800-VII, nr. 14").
func ParseVotesID(id string) (votesRef, error) {
	s := strings.Join(strings.Fields(id), " ")
	if s == "" {
		return votesRef{}, fmt.Errorf("argument \"id\": empty; pass a document number (2025D12345), a case number (2025Z01234), a kamerstuk (36800-VII-14) or an Id from tk_search")
	}
	if len(s) > 120 {
		return votesRef{}, fmt.Errorf("argument \"id\": %d bytes, more than 120; pass a document number, a case number or a kamerstuk", len(s))
	}
	up := strings.ToUpper(s)
	switch {
	case documentNummer.MatchString(up):
		return votesRef{kind: "document", value: up}, nil
	case zaakNummer.MatchString(up):
		return votesRef{kind: "zaak", value: up}, nil
	case guidPattern.MatchString(s):
		return votesRef{kind: "guid", value: strings.ToLower(s)}, nil
	}
	if m := kamerstukPattern.FindStringSubmatch(s); m != nil {
		dossier, _ := strconv.Atoi(strings.ReplaceAll(m[1], " ", ""))
		nr, _ := strconv.Atoi(m[3])
		if dossier > 0 && nr > 0 {
			return votesRef{kind: "kamerstuk", dossier: dossier, toevoeging: strings.ToUpper(m[2]), volgnummer: nr,
				value: kamerstukLabel(dossier, strings.ToUpper(m[2]), nr)}, nil
		}
	}
	return votesRef{}, fmt.Errorf("argument \"id\": %q is not a document number (2025D12345), a case number (2025Z01234), a kamerstuk (36800-VII-14 or \"36800 VII, nr. 14\") or an Id (GUID) from tk_search", clip(s, 60))
}

// VotesHint is extra.tk.votes of a search result or document that is
// voted on (a motion, an amendment; for a case also a bill): the call
// that answers how the Kamer voted, so that it is one step from a search.
// "" for other kinds or without a number.
func VotesHint(soort, nummer string, zaak bool) string {
	k := strings.ToLower(soort)
	voted := strings.Contains(k, "motie") || strings.Contains(k, "amendement") || zaak && strings.Contains(k, "wetgeving")
	if !voted || strings.TrimSpace(nummer) == "" {
		return ""
	}
	return `tk_get_votes {"id":"` + strings.TrimSpace(nummer) + `"}`
}

func kamerstukLabel(dossier int, toevoeging string, nr int) string {
	s := strconv.Itoa(dossier)
	if toevoeging != "" {
		s += "-" + toevoeging
	}
	return s + ", nr. " + strconv.Itoa(nr)
}

// votesDocSelect and votesDocExpand read a document's cases: what a
// document number, kamerstuk or Document Id leads to.
const (
	votesDocSelect = "Id,Soort,DocumentNummer,Titel,Onderwerp,Datum,Verwijderd"
	votesDocExpand = "Zaak($select=Id,Nummer,Soort,Titel,Onderwerp)"
)

// VotesDocumentURL is the request that resolves a document number,
// kamerstuk or Document Id to the document and its cases; "" for a case
// number, which needs none.
func VotesDocumentURL(base string, r votesRef) string {
	switch r.kind {
	case "document":
		return odataURL(base, "Document",
			param{"$filter", "DocumentNummer eq " + Literal(r.value) + " and Verwijderd eq false"},
			param{"$select", votesDocSelect}, param{"$expand", votesDocExpand}, param{"$top", "2"})
	case "kamerstuk":
		return odataURL(base, "Document",
			param{"$filter", "Verwijderd eq false and " + kamerstukFilter(r.dossier, r.toevoeging, r.volgnummer)},
			param{"$select", votesDocSelect}, param{"$expand", votesDocExpand}, param{"$top", "2"})
	case "guid":
		return odataURL(base, "Document("+r.value+")", param{"$select", votesDocSelect}, param{"$expand", votesDocExpand})
	}
	return ""
}

// kamerstukFilter selects a Kamerstuk's document by its number in the
// dossier and the dossier's number and addition (none: null or empty).
func kamerstukFilter(dossier int, toevoeging string, nr int) string {
	toev := "(k/Toevoeging eq null or k/Toevoeging eq '')"
	if toevoeging != "" {
		toev = "k/Toevoeging eq " + Literal(toevoeging)
	}
	return "Volgnummer eq " + strconv.Itoa(nr) + " and Kamerstukdossier/any(k:k/Nummer eq " + strconv.Itoa(dossier) + " and " + toev + ")"
}

// maxVoteZaken bounds the cases of one document asked about at once (a
// motion has one; the $filter must stay under the platform's 100 nodes).
const maxVoteZaken = 8

// maxDecisions is the page of decisions asked for: a case has a handful
// (tabled, held, voted, a re-vote).
const maxDecisions = 50

// BesluitURL asks for the decisions on cases, by number (2025Z01234) or,
// with byID, by Zaak Id, with their votes, cases and meeting.
func BesluitURL(base string, zaken []string, byID bool) string {
	var or []string
	for _, z := range zaken {
		if byID {
			or = append(or, "z/Id eq "+z)
		} else {
			or = append(or, "z/Nummer eq "+Literal(z))
		}
	}
	return odataURL(base, "Besluit",
		param{"$filter", "Verwijderd eq false and Zaak/any(z:" + strings.Join(or, " or ") + ")"},
		param{"$select", "Id,BesluitSoort,BesluitTekst,StemmingsSoort,Status,Opmerking,AgendapuntZaakBesluitVolgorde"},
		param{"$expand", "Stemming($select=Id,Soort,FractieGrootte,ActorNaam,ActorFractie,Vergissing,Persoon_Id,Fractie_Id,Verwijderd)," +
			"Zaak($select=Id,Nummer,Soort,Titel,Onderwerp)," +
			"Agendapunt($select=Id,Onderwerp;$expand=Activiteit($select=Id,Nummer,Soort,Datum,Onderwerp))"},
		param{"$top", strconv.Itoa(maxDecisions)},
		param{"$count", "true"},
	)
}

// GetVotesArgs are the arguments of tk_get_votes.
type GetVotesArgs struct {
	ID string `json:"id"`
}

// VotesResult is tk_get_votes' answer: the document and cases asked
// about, every decision on them (oldest first), and for the latest one
// with votes its outcome on top.
type VotesResult struct {
	Platform string `json:"platform"`
	// ID is the argument as read (a number, a kamerstuk, an Id).
	ID       string         `json:"id"`
	Document *VotesDocument `json:"document,omitempty"`
	Zaken    []VotesZaak    `json:"zaken"`
	// Outcome, Date and Summary repeat the latest decision that was
	// voted on, the answer to "how did it end".
	Outcome   string     `json:"outcome,omitempty"`
	Date      string     `json:"date,omitempty"`
	Summary   string     `json:"summary"`
	URL       string     `json:"url,omitempty"`
	Decisions []Decision `json:"decisions"`
	Notes     []string   `json:"notes,omitempty"`
}

// VotesDocument is the document an id named.
type VotesDocument struct {
	ID     string `json:"id"`
	Nummer string `json:"nummer,omitempty"`
	Soort  string `json:"soort,omitempty"`
	Title  string `json:"title,omitempty"`
	Date   string `json:"date,omitempty"`
	URL    string `json:"url,omitempty"`
}

// VotesZaak is a case decided on.
type VotesZaak struct {
	ID     string `json:"id"`
	Nummer string `json:"nummer,omitempty"`
	Soort  string `json:"soort,omitempty"`
	Title  string `json:"title,omitempty"`
	URL    string `json:"url,omitempty"`
}

// Decision is one Besluit with its votes.
type Decision struct {
	ID string `json:"id"`
	// Date is the date of the meeting (Activiteit) that decided.
	Date           string `json:"date,omitempty"`
	Meeting        string `json:"meeting,omitempty"`
	MeetingURL     string `json:"meeting_url,omitempty"`
	BesluitSoort   string `json:"besluit_soort,omitempty"`
	BesluitTekst   string `json:"besluit_tekst,omitempty"`
	StemmingsSoort string `json:"stemmings_soort,omitempty"`
	Status         string `json:"status,omitempty"`
	Opmerking      string `json:"opmerking,omitempty"`
	// Zaken are the numbers of the cases this decision is about.
	Zaken []string `json:"zaken,omitempty"`
	// Outcome is aangenomen, verworpen, aangehouden, ingetrokken or
	// empty, read from BesluitSoort and BesluitTekst.
	Outcome string `json:"outcome,omitempty"`
	// Hoofdelijk is a roll-call vote: Leden holds each member's vote.
	Hoofdelijk bool          `json:"hoofdelijk,omitempty"`
	Totals     *VoteTotals   `json:"totals,omitempty"`
	Fracties   []FractieVote `json:"fracties,omitempty"`
	Leden      []LidVote     `json:"leden,omitempty"`
	Summary    string        `json:"summary"`
}

// VoteTotals counts seats (votes per fractie) or members (roll call).
type VoteTotals struct {
	Voor            int `json:"voor"`
	Tegen           int `json:"tegen"`
	NietDeelgenomen int `json:"niet_deelgenomen"`
	// Result is "voor" when voor outnumbers tegen, "tegen" when the
	// reverse, "gelijk" on a tie.
	Result string `json:"result"`
}

// FractieVote is one party group's vote: its Soort when it voted as one,
// "verdeeld" when its members split in a roll call, with the seats (or
// members) on each side.
type FractieVote struct {
	Fractie         string `json:"fractie"`
	FractieID       string `json:"fractie_id,omitempty"`
	Soort           string `json:"soort"`
	Zetels          int    `json:"zetels"`
	Voor            int    `json:"voor"`
	Tegen           int    `json:"tegen"`
	NietDeelgenomen int    `json:"niet_deelgenomen"`
	// Vergissing: the fractie declared afterwards it voted by mistake;
	// the vote as cast still counts.
	Vergissing bool `json:"vergissing,omitempty"`
}

// LidVote is one member's vote in a roll call.
type LidVote struct {
	Naam       string `json:"naam"`
	PersoonID  string `json:"persoon_id,omitempty"`
	Fractie    string `json:"fractie,omitempty"`
	Soort      string `json:"soort"`
	Vergissing bool   `json:"vergissing,omitempty"`
}

// besluit, stemming, agendapunt, activiteit and zaakRef are the platform's
// records as the votes request returns them.
type besluit struct {
	ID             string      `json:"Id"`
	BesluitSoort   string      `json:"BesluitSoort"`
	BesluitTekst   string      `json:"BesluitTekst"`
	StemmingsSoort string      `json:"StemmingsSoort"`
	Status         string      `json:"Status"`
	Opmerking      string      `json:"Opmerking"`
	Volgorde       *int        `json:"AgendapuntZaakBesluitVolgorde"`
	Stemming       []stemming  `json:"Stemming"`
	StemmingNext   string      `json:"Stemming@odata.nextLink"`
	Zaak           []zaakRef   `json:"Zaak"`
	Agendapunt     *agendapunt `json:"Agendapunt"`
	Verwijderd     *bool       `json:"Verwijderd"`
}

type stemming struct {
	ID             string `json:"Id"`
	Soort          string `json:"Soort"`
	FractieGrootte *int   `json:"FractieGrootte"`
	ActorNaam      string `json:"ActorNaam"`
	ActorFractie   string `json:"ActorFractie"`
	Vergissing     *bool  `json:"Vergissing"`
	PersoonID      string `json:"Persoon_Id"`
	FractieID      string `json:"Fractie_Id"`
	Verwijderd     *bool  `json:"Verwijderd"`
}

type agendapunt struct {
	ID         string      `json:"Id"`
	Onderwerp  string      `json:"Onderwerp"`
	Activiteit *activiteit `json:"Activiteit"`
}

type activiteit struct {
	ID        string `json:"Id"`
	Nummer    string `json:"Nummer"`
	Soort     string `json:"Soort"`
	Datum     string `json:"Datum"`
	Onderwerp string `json:"Onderwerp"`
}

type zaakRef struct {
	ID        string `json:"Id"`
	Nummer    string `json:"Nummer"`
	Soort     string `json:"Soort"`
	Titel     string `json:"Titel"`
	Onderwerp string `json:"Onderwerp"`
}

// votesDoc is a document as the resolving request returns it.
type votesDoc struct {
	ID             string    `json:"Id"`
	Soort          string    `json:"Soort"`
	DocumentNummer string    `json:"DocumentNummer"`
	Titel          string    `json:"Titel"`
	Onderwerp      string    `json:"Onderwerp"`
	Datum          string    `json:"Datum"`
	Verwijderd     *bool     `json:"Verwijderd"`
	Zaak           []zaakRef `json:"Zaak"`
}

func getVotes(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	var a GetVotesArgs
	if err := sdk.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	ref, err := ParseVotesID(a.ID)
	if err != nil {
		return nil, err
	}
	base := BaseURL
	out := &VotesResult{Platform: ID, ID: ref.value, Zaken: []VotesZaak{}, Decisions: []Decision{}}
	var zaken []string
	var docZaken []zaakRef
	byID := false
	switch ref.kind {
	case "zaak":
		zaken = []string{ref.value}
	default:
		doc, found, err := votesDocument(ctx, h, base, ref)
		if err != nil {
			return nil, err
		}
		switch {
		case found:
			out.Document = &VotesDocument{ID: doc.ID, Nummer: doc.DocumentNummer, Soort: doc.Soort, Date: sdk.ISODate(doc.Datum), URL: DocumentPageURL(doc.DocumentNummer)}
			out.Document.Title, _ = titleAndContext(doc.Onderwerp, doc.Titel)
			for _, z := range doc.Zaak {
				if z.Nummer != "" && len(zaken) < maxVoteZaken {
					zaken = append(zaken, strings.ToUpper(z.Nummer))
					docZaken = append(docZaken, z)
				}
			}
			if len(doc.Zaak) > maxVoteZaken {
				out.Notes = append(out.Notes, fmt.Sprintf("The document belongs to %d cases; the decisions on the first %d were asked for.", len(doc.Zaak), maxVoteZaken))
			}
			if len(zaken) == 0 {
				out.Summary = "The platform links this document to no case (Zaak), so it has no decisions or votes of its own. Motions and amendments each have a case; a letter or report usually has one too, a few documents none."
				return out, nil
			}
		case ref.kind == "guid":
			// Not a document: the Id of a case, as tk_search entity=Zaak gives.
			zaken, byID = []string{ref.value}, true
		}
	}
	resp, err := sdk.Get(ctx, h, BesluitURL(base, zaken, byID), ServiceOData, 1, connector.ClassSearch)
	if err != nil {
		return nil, fmt.Errorf("get_votes: %w", err)
	}
	if err := sdk.CheckStatus(resp); err != nil {
		return nil, fmt.Errorf("get_votes: decisions: %w", err)
	}
	var c collection
	if err := sdk.DecodeJSON(resp, "get_votes", &c); err != nil {
		return nil, err
	}
	if c.Value == nil {
		return nil, fmt.Errorf("get_votes: the platform's response lacks value")
	}
	if c.hasMore(len(c.Value)) {
		out.Notes = append(out.Notes, fmt.Sprintf("The platform holds more than %d decisions on these cases; the first %d are shown.", maxDecisions, len(c.Value)))
	}
	var bs []besluit
	var dropped []string
	skipped := 0
	var bad error
	for i, rb := range c.Value {
		var b besluit
		d, err := sdk.DecodeLenient(rb, &b, "Id", "Stemming", "Zaak", "Agendapunt")
		if err != nil || b.ID == "" {
			if err == nil {
				err = fmt.Errorf("lacks Id")
			}
			if bad == nil {
				bad = fmt.Errorf("decision %d: %v", i+1, err)
			}
			skipped++
			continue
		}
		if b.Verwijderd != nil && *b.Verwijderd {
			continue
		}
		for _, f := range d {
			if !slices.Contains(dropped, f) {
				dropped = append(dropped, f)
			}
		}
		bs = append(bs, b)
	}
	if skipped > 0 {
		if len(bs) == 0 {
			return nil, fmt.Errorf("get_votes: no decision the platform sent could be read (%v)", bad)
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%d of the %d decisions the platform sent could not be read and were left out (%v).", skipped, len(c.Value), bad))
	}
	if len(dropped) > 0 {
		out.Notes = append(out.Notes, sdk.DroppedNote("The platform", "decisions", dropped))
	}
	sort.SliceStable(bs, func(i, j int) bool {
		di, dj := bs[i].date(), bs[j].date()
		if di != dj {
			return di < dj
		}
		return bs[i].order() < bs[j].order()
	})
	seenZaak := map[string]bool{}
	addZaak := func(z zaakRef) {
		key := strings.ToUpper(z.Nummer)
		if key == "" {
			key = strings.ToLower(z.ID)
		}
		if key == "" || seenZaak[key] {
			return
		}
		seenZaak[key] = true
		title, _ := titleAndContext(z.Onderwerp, z.Titel)
		out.Zaken = append(out.Zaken, VotesZaak{ID: z.ID, Nummer: z.Nummer, Soort: z.Soort, Title: title, URL: ZaakPageURL(z.Nummer)})
	}
	for _, z := range docZaken {
		addZaak(z)
	}
	var latest *Decision
	for _, b := range bs {
		d, notes := decision(b)
		out.Notes = append(out.Notes, notes...)
		for _, z := range b.Zaak {
			if asked(z, zaken, byID) {
				addZaak(z)
			}
		}
		out.Decisions = append(out.Decisions, d)
	}
	for i := range out.Decisions {
		if out.Decisions[i].Totals != nil {
			latest = &out.Decisions[i]
		}
	}
	if len(out.Zaken) > 0 {
		out.URL = out.Zaken[0].URL
	} else if out.Document != nil {
		out.URL = out.Document.URL
	}
	switch {
	case latest != nil:
		out.Outcome, out.Date, out.Summary = latest.Outcome, latest.Date, latest.Summary
		if last := out.Decisions[len(out.Decisions)-1]; last.ID != latest.ID && last.Outcome != "" {
			out.Notes = append(out.Notes, "A later decision without a vote followed the last vote: "+last.Summary)
		}
	case len(out.Decisions) > 0:
		last := out.Decisions[len(out.Decisions)-1]
		out.Outcome, out.Date = last.Outcome, last.Date
		out.Summary = "No vote recorded on this case yet. Latest decision: " + last.Summary
	case ref.kind == "guid" && byID:
		return nil, fmt.Errorf("get_votes: %s is neither a document's Id nor the Id of a case with decisions; pass a document number (2025D12345), case number (2025Z01234) or kamerstuk", ref.value)
	default:
		out.Summary = "No decision recorded on this case yet (a motion is decided at the Tuesday votes after its debate; the platform adds decisions within days)."
	}
	return out, nil
}

func asked(z zaakRef, zaken []string, byID bool) bool {
	for _, k := range zaken {
		if byID && strings.EqualFold(z.ID, k) || !byID && strings.EqualFold(z.Nummer, k) {
			return true
		}
	}
	return false
}

// votesDocument resolves a document number, kamerstuk or Id to the
// document and its cases. found is false only for an Id that names no
// document (it may name a case).
func votesDocument(ctx context.Context, h connector.Host, base string, ref votesRef) (*votesDoc, bool, error) {
	resp, err := sdk.Get(ctx, h, VotesDocumentURL(base, ref), ServiceOData, 1, ClassMetadata)
	if err != nil {
		return nil, false, fmt.Errorf("get_votes: %w", err)
	}
	if ref.kind == "guid" && (resp.Status == 404 || resp.Status == 204) {
		return nil, false, nil
	}
	if err := sdk.CheckStatus(resp); err != nil {
		return nil, false, fmt.Errorf("get_votes: looking up the document: %w", err)
	}
	entity := json.RawMessage(resp.Body)
	if ref.kind != "guid" {
		var c collection
		if err := sdk.DecodeJSON(resp, "get_votes", &c); err != nil {
			return nil, false, err
		}
		if c.Value == nil {
			return nil, false, fmt.Errorf("get_votes: the platform's response lacks value")
		}
		what := "document number " + ref.value
		if ref.kind == "kamerstuk" {
			what = "kamerstuk " + ref.value
		}
		switch len(c.Value) {
		case 0:
			return nil, false, fmt.Errorf("get_votes: the platform has no document with %s", what)
		case 1:
		default:
			return nil, false, fmt.Errorf("get_votes: the %s names more than one document; pass the document number (2025D12345) from tk_search", what)
		}
		entity = c.Value[0]
	}
	var d votesDoc
	if _, err := sdk.DecodeLenient(entity, &d, "Id", "Zaak"); err != nil {
		return nil, false, fmt.Errorf("get_votes: the platform's document is not the expected entity: %v", err)
	}
	if d.ID == "" {
		return nil, false, fmt.Errorf("get_votes: the platform's document lacks Id")
	}
	if d.Verwijderd != nil && *d.Verwijderd {
		return nil, false, fmt.Errorf("get_votes: document %s is marked deleted (Verwijderd) by the platform", ref.value)
	}
	return &d, true, nil
}

func (b *besluit) date() string {
	if b.Agendapunt != nil && b.Agendapunt.Activiteit != nil {
		return b.Agendapunt.Activiteit.Datum
	}
	return ""
}

func (b *besluit) order() int {
	if b.Volgorde != nil {
		return *b.Volgorde
	}
	return 0
}

// outcomeOf reads a decision's outcome from its kind and text.
func outcomeOf(soort, tekst string) string {
	s := strings.ToLower(soort + " " + tekst)
	for _, o := range []string{"aangenomen", "verworpen", "aangehouden", "ingetrokken", "vervallen"} {
		if strings.Contains(s, o) {
			return o
		}
	}
	return ""
}

// Vote kinds as the platform spells them (Stemming.Soort).
const (
	soortVoor  = "Voor"
	soortTegen = "Tegen"
	soortNiet  = "Niet deelgenomen"
)

// decision normalises one Besluit and counts its votes.
func decision(b besluit) (Decision, []string) {
	d := Decision{ID: b.ID, BesluitSoort: strings.TrimSpace(b.BesluitSoort), BesluitTekst: strings.TrimSpace(b.BesluitTekst),
		StemmingsSoort: b.StemmingsSoort, Status: b.Status, Opmerking: strings.TrimSpace(b.Opmerking)}
	d.Outcome = outcomeOf(b.BesluitSoort, b.BesluitTekst)
	if ap := b.Agendapunt; ap != nil && ap.Activiteit != nil {
		act := ap.Activiteit
		d.Date = sdk.ISODate(act.Datum)
		d.Meeting = strings.Join(nonEmpty(act.Soort, firstNonEmpty(act.Onderwerp, ap.Onderwerp)), ": ")
		d.MeetingURL = ActivityPageURL(act.Nummer, act.Soort)
	}
	for _, z := range b.Zaak {
		if z.Nummer != "" {
			d.Zaken = append(d.Zaken, z.Nummer)
		}
	}
	var notes []string
	var votes []stemming
	deleted := 0
	for _, s := range b.Stemming {
		if s.Verwijderd != nil && *s.Verwijderd {
			deleted++
			continue
		}
		votes = append(votes, s)
	}
	if deleted > 0 {
		notes = append(notes, fmt.Sprintf("Decision %s: %d vote records marked deleted (a corrected vote) were left out.", b.ID, deleted))
	}
	if b.StemmingNext != "" {
		notes = append(notes, fmt.Sprintf("Decision %s: the platform sent only part of its votes (a next link for Stemming); the totals count the %d sent.", b.ID, len(votes)))
	}
	if len(votes) > 0 {
		d.Hoofdelijk = strings.EqualFold(b.StemmingsSoort, "Hoofdelijk") || votes[0].PersoonID != ""
		t := &VoteTotals{}
		groups := map[string]*FractieVote{}
		var order []string
		unknown := map[string]bool{}
		for _, s := range votes {
			name := firstNonEmpty(s.ActorFractie, s.ActorNaam, s.FractieID)
			g, ok := groups[name]
			if !ok {
				g = &FractieVote{Fractie: name, FractieID: s.FractieID}
				groups[name] = g
				order = append(order, name)
			}
			n := 1
			if !d.Hoofdelijk {
				if s.FractieGrootte != nil {
					n = *s.FractieGrootte
				} else {
					notes = append(notes, fmt.Sprintf("Decision %s: the vote of %s has no FractieGrootte, counted as 0 seats.", b.ID, name))
					n = 0
				}
				g.Zetels += n
			} else {
				g.Zetels++
				d.Leden = append(d.Leden, LidVote{Naam: s.ActorNaam, PersoonID: s.PersoonID, Fractie: s.ActorFractie, Soort: s.Soort, Vergissing: s.Vergissing != nil && *s.Vergissing})
			}
			switch s.Soort {
			case soortVoor:
				g.Voor += n
				t.Voor += n
			case soortTegen:
				g.Tegen += n
				t.Tegen += n
			case soortNiet:
				g.NietDeelgenomen += n
				t.NietDeelgenomen += n
			default:
				unknown[s.Soort] = true
			}
			if s.Vergissing != nil && *s.Vergissing {
				g.Vergissing = true
			}
		}
		for k := range unknown {
			notes = append(notes, fmt.Sprintf("Decision %s: a vote of kind %q (not Voor, Tegen or Niet deelgenomen) was not counted.", b.ID, k))
		}
		sort.Strings(notes)
		for _, name := range order {
			g := groups[name]
			switch {
			case g.Voor == g.Zetels && g.Zetels > 0:
				g.Soort = soortVoor
			case g.Tegen == g.Zetels && g.Zetels > 0:
				g.Soort = soortTegen
			case g.NietDeelgenomen == g.Zetels:
				g.Soort = soortNiet
			default:
				g.Soort = "verdeeld"
			}
			d.Fracties = append(d.Fracties, *g)
		}
		switch {
		case t.Voor > t.Tegen:
			t.Result = "voor"
		case t.Tegen > t.Voor:
			t.Result = "tegen"
		default:
			t.Result = "gelijk"
		}
		d.Totals = t
		if d.Outcome == "aangenomen" && t.Result != "voor" || d.Outcome == "verworpen" && t.Result == "voor" {
			notes = append(notes, fmt.Sprintf("Decision %s: the platform says %s, but its vote records count %d voor and %d tegen.", b.ID, d.Outcome, t.Voor, t.Tegen))
		}
	}
	d.Summary = summarize(&d)
	return d, notes
}

// summarize says a decision in one line: what, when, the count, and who
// voted how ("Aangenomen. (2024-11-05), 85 voor – 62 tegen (seats): voor
// GL-PvdA, NSC, …; tegen PVV, VVD, JA21; niet deelgenomen FVD. Vergissing:
// BBB.").
func summarize(d *Decision) string {
	var b strings.Builder
	b.WriteString(firstNonEmpty(d.BesluitTekst, d.BesluitSoort, "Decision"))
	if d.Date != "" {
		b.WriteString(" (" + d.Date + ")")
	}
	if d.Totals == nil {
		return b.String()
	}
	unit := "seats"
	if d.Hoofdelijk {
		unit = "members, roll call"
	}
	fmt.Fprintf(&b, ", %d voor – %d tegen (%s):", d.Totals.Voor, d.Totals.Tegen, unit)
	sep := " "
	side := func(label string, pick func(*FractieVote) int) {
		var names []string
		for i := range d.Fracties {
			if k := pick(&d.Fracties[i]); k > 0 {
				name := d.Fracties[i].Fractie
				if d.Hoofdelijk || k != d.Fracties[i].Zetels {
					name += " " + strconv.Itoa(k)
				}
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			b.WriteString(sep + label + " " + strings.Join(names, ", "))
			sep = "; "
		}
	}
	side("voor", func(f *FractieVote) int { return f.Voor })
	side("tegen", func(f *FractieVote) int { return f.Tegen })
	side("niet deelgenomen", func(f *FractieVote) int { return f.NietDeelgenomen })
	b.WriteString(".")
	var mistaken []string
	for _, f := range d.Fracties {
		if f.Vergissing {
			mistaken = append(mistaken, f.Fractie)
		}
	}
	if len(mistaken) > 0 {
		b.WriteString(" Vergissing (declared to have voted by mistake; the vote counts as cast): " + strings.Join(mistaken, ", ") + ".")
	}
	return b.String()
}
