package nativert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Options configure one native connector. The zero value of each optional
// field means its default.
type Options struct {
	// ID is the connector id the admin configured; the process's manifest
	// must declare the same.
	ID string
	// Path is the connector's native binary.
	Path string
	// SHA256 is the hex sha256 every start of Path must match (go-plugin's
	// SecureConfig). Required: the host pins what it checked at load, so a
	// binary replaced on disk is refused at the next restart instead of
	// run.
	SHA256 string
	// PoolSize bounds the calls in flight in the process (default 4).
	PoolSize int
	// MemoryLimitMB is the process's Go soft memory limit, GOMEMLIMIT
	// (default 256). Unlike WebAssembly's hard cap, the Go runtime only
	// works harder to stay under it.
	MemoryLimitMB int
	// CallTimeout bounds one tool call, upstream waits and a restart
	// included (default 60s). The time the call waits for its MCP
	// client's answer to a client feature does not count; that wait has
	// its own bound, ClientWait.
	CallTimeout time.Duration
	// Grant are the client features the admin granted the connector; the
	// process's requests for any other are answered "not granted",
	// naming the key to add.
	Grant []string
	// Client returns the MCP client of the call in ctx, nil when none
	// (see clientcall.Options.Client). Nil asks the call's connector.Host.
	Client func(ctx context.Context) connector.Client
	// ClientWait bounds one wait for the client's answer (default
	// clientcall.DefaultMaxWait, five minutes).
	ClientWait time.Duration
	// StartTimeout bounds a process's start: exec, handshake and manifest
	// (default 15s).
	StartTimeout time.Duration
	// Logger receives the process's log lines, its stderr and the restarts
	// (default slog.Default).
	Logger *slog.Logger
}

var sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Connector is a native connector: one supervised go-plugin process at a
// time. A crashed process is replaced at the next call, after a backoff
// that grows with consecutive crashes; the calls it had in flight fail.
//
// A Connector is safe for concurrent use. Its zero value is not usable;
// call [Load].
type Connector struct {
	id       string
	o        Options
	manifest connector.Manifest
	slots    chan struct{} // one token per call in flight
	start    starter
	gate     *clientcall.Gate

	mu       sync.Mutex
	cur      process       // nil while no process runs
	starting chan struct{} // closed when the start in progress ends
	crashes  int           // consecutive lost processes and failed starts
	retryAt  time.Time     // no start before this
	lastErr  error         // why the last process was lost or failed to start
	closed   bool
}

// Load starts the connector's process and checks it: the handshake (magic
// cookie and ABI version), the binary's checksum, and the manifest (valid,
// with the configured id). The error names the connector.
func Load(ctx context.Context, o Options) (*Connector, error) {
	if !sha256Pattern.MatchString(o.SHA256) {
		return nil, fmt.Errorf("loading connector %q: sha256 %q: want 64 lower-case hex digits", o.ID, o.SHA256)
	}
	c := newConnector(o, nil)
	c.start = c.launch
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// newConnector applies the defaults; start is the seam tests replace.
func newConnector(o Options, start starter) *Connector {
	if o.PoolSize <= 0 {
		o.PoolSize = 4
	}
	if o.MemoryLimitMB <= 0 {
		o.MemoryLimitMB = 256
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 60 * time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 15 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Connector{id: o.ID, o: o, slots: make(chan struct{}, o.PoolSize), start: start,
		gate: clientcall.New(clientcall.Options{ID: o.ID, Grant: o.Grant, Client: o.Client, MaxWait: o.ClientWait})}
}

// load starts the first process and keeps its manifest.
func (c *Connector) load(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.StartTimeout)
	defer cancel()
	p, err := c.get(ctx)
	if err != nil {
		c.Close(ctx)
		return fmt.Errorf("loading connector %q: %w", c.id, err)
	}
	m, err := p.Describe(ctx)
	if err == nil {
		err = c.check(m)
	}
	if err != nil {
		c.Close(ctx)
		return fmt.Errorf("loading connector %q: %w", c.id, err)
	}
	c.manifest = m
	return nil
}

// check validates a process's manifest.
func (c *Connector) check(m connector.Manifest) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if m.ID != c.id {
		return fmt.Errorf("process declares id %q, configured as %q", m.ID, c.id)
	}
	return nil
}

// SHA256 is the hex sha256 the binary is pinned to.
func (c *Connector) SHA256() string { return c.o.SHA256 }

// Describe returns a copy of the manifest read at load.
func (c *Connector) Describe(context.Context) (connector.Manifest, error) {
	return c.manifest.Clone(), nil
}

// Call runs one tool call in the process, starting one first if none runs.
// A process that dies during the call fails the call with an error naming
// the connector (the host reports it as a tool error) and is replaced at
// the next call.
func (c *Connector) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	// The call's deadline stops while it waits for its client's answer.
	ctx, cancel := clientcall.WithDeadline(ctx, c.o.CallTimeout)
	defer cancel()
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return connector.CallResult{}, c.ctxErr(ctx, fmt.Sprintf("all %d call slots busy", c.o.PoolSize))
	}
	defer func() { <-c.slots }()
	if ctx.Err() != nil {
		// Ended in the instant it got its slot: it sends the process nothing.
		return connector.CallResult{}, c.ctxErr(ctx, "")
	}
	p, err := c.get(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return connector.CallResult{}, c.ctxErr(ctx, "waiting for its process")
		}
		return connector.CallResult{}, fmt.Errorf("connector %q: %w", c.id, err)
	}
	// The process's client feature requests go through the gate, which
	// checks the grant and finds the call's client.
	res, err := p.Call(ctx, req, c.gate.Host(h))
	if err == nil {
		c.succeeded(p)
		if ctx.Err() != nil {
			// The process answered after the deadline (or after the
			// client left): the bound holds as in the WebAssembly runtime.
			return connector.CallResult{}, c.ctxErr(ctx, "")
		}
		return res, nil
	}
	if ctx.Err() != nil {
		return connector.CallResult{}, c.ctxErr(ctx, "")
	}
	if perr := p.ping(); perr != nil {
		c.lost(p, err)
		return connector.CallResult{}, fmt.Errorf("connector %q: its process died during the call and will be restarted (%v)", c.id, err)
	}
	return connector.CallResult{}, fmt.Errorf("connector %q: %w", c.id, err)
}

// ctxErr says why a call's context ended, in the WebAssembly runtime's
// words.
func (c *Connector) ctxErr(ctx context.Context, while string) error {
	if while != "" {
		while = " " + while
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("connector %q: call stopped after its %s deadline%s", c.id, c.o.CallTimeout, while)
	}
	return fmt.Errorf("connector %q: call canceled%s: %w", c.id, while, ctx.Err())
}

// Close ends the process (gracefully, then by force); calls in flight
// fail, and later calls fail at once.
func (c *Connector) Close(context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	p := c.cur
	c.cur = nil
	c.mu.Unlock()
	if p != nil {
		p.kill()
	}
	return nil
}

var _ connector.Connector = (*Connector)(nil)
