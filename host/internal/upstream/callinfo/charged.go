package callinfo

import "github.com/besluitbron/besluitbron/sched"

// Caller is what is known of where a call comes from, as the layer that
// receives it learns it: the MCP edge knows a session id or only the
// client's address, the page and the maintenance jobs are the public
// session. [ChargedTo] turns it into the one name the fair scheduler, the
// instance admission and the shared quotas count the call against.
type Caller struct {
	// Public marks the shared public session: the search page and the
	// maintenance jobs, whose usage the scheduler does not count.
	Public bool
	// Session is the MCP session id (for an HTTP+SSE client, its
	// ?sessionid=), "" when the protocol has none.
	Session string
	// Address is the client's address as the inbound limits saw it, for
	// a client without a session; "" for a local client (stdio).
	Address string
	// Local marks a client on the standard streams: one user, one
	// session for the process's life.
	Local bool
	// Named is the configured client ([clients.<name>]) whose API key
	// the request carried (server.auth = "keys"): all its sessions are
	// one client, whose usage outlives them.
	Named string
	// Subject is the sub of the OAuth access token the request carried
	// (server.auth = "oauth"): the client, across its sessions.
	Subject string
}

// The names ChargedTo gives callers that carry no session id.
const (
	// AddressPrefix precedes the address of an HTTP client without a
	// session (it is charged as one session per address).
	AddressPrefix = "client:"
	// Stdio is the one session of a client on the standard streams.
	Stdio = "stdio"
	// Anonymous is an HTTP caller with neither a session nor an
	// address (a request the inbound layer did not see).
	Anonymous = "anonymous"
	// NamedPrefix precedes the name of a configured client that
	// authenticated with its API key.
	NamedPrefix = "key:"
	// SubjectPrefix precedes the subject of an OAuth access token.
	SubjectPrefix = "oauth:"
)

// ChargedTo is who a call is charged to: the public session, the named
// client or OAuth subject that authenticated, the MCP session, the
// client's address, or the process's one local client. It is the only
// place that decides it; the MCP edge calls it when a call arrives (and
// stores the answer in Info.Session), the client limits ask it for an
// authenticated client's buckets, and every layer below reads
// [Info.ChargedTo].
//
// An authenticated client wins over its session: the scheduler and the
// limits count it across all its sessions, and a new session (a
// reconnect) starts from the usage the client already has.
func ChargedTo(c Caller) string {
	switch {
	case c.Public:
		return sched.PublicSession
	case c.Named != "":
		return NamedPrefix + c.Named
	case c.Subject != "":
		return SubjectPrefix + c.Subject
	case c.Session != "":
		return c.Session
	case c.Address != "":
		return AddressPrefix + c.Address
	case c.Local:
		return Stdio
	}
	return Anonymous
}

// Label is a caller's bounded metrics label: a named client's name (only
// configured names authenticate), "oauth" for every OAuth subject
// (subjects are unbounded), Anonymous for everyone else.
func Label(c Caller) string {
	switch {
	case c.Public:
		return sched.PublicSession
	case c.Named != "":
		return c.Named
	case c.Subject != "":
		return "oauth"
	}
	return Anonymous
}

// ChargedTo is who the call is charged to ([ChargedTo] of its record): the
// public session when Public, else its Session, Anonymous when it has
// none. A nil record is Anonymous.
func (i *Info) ChargedTo() string {
	if i == nil {
		return Anonymous
	}
	return ChargedTo(Caller{Public: i.Public, Session: i.Session})
}

// Public is the record of a call of the shared public session (the
// search page, the Laadstatus checks and other maintenance), whose usage
// the scheduler does not count.
func Public() *Info {
	return &Info{Session: sched.PublicSession, Public: true}
}
