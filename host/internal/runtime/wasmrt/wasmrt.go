package wasmrt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/wasmabi"
)

// Options configure one connector module. The zero value of each field
// means its default.
type Options struct {
	// ID is the connector id the admin configured; the module's manifest
	// must declare the same.
	ID string
	// Wasm is the module's bytes.
	Wasm []byte
	// PoolSize is the number of instances kept warm between calls
	// (default 4).
	PoolSize int
	// MaxInstances bounds the instances, hence the concurrent calls
	// (default PoolSize). Instances beyond PoolSize are made when calls
	// need them and closed when their call ends, so their memory returns:
	// a call waiting at a platform's limit holds an instance, and the
	// pool grows with the calls waiting instead of deciding who waits.
	MaxInstances int
	// Wanted reports whether calls wait to get an instance (the host's
	// admission, in front of Call). While one does, an instance beyond
	// PoolSize is kept for it when its call ends, not closed: under a
	// flood each call would otherwise pay a fresh instantiation (copying
	// the module's data, running the guest's init), CPU the calls at the
	// platform's limit and a newcomer need. Nil: calls never wait.
	Wanted func() bool
	// MemoryLimitMB caps each instance's linear memory (default 256).
	MemoryLimitMB int
	// CallTimeout bounds one tool call, upstream waits included (default
	// 60s). The time the call waits for its MCP client's answer to a
	// client feature (a person choosing) does not count; that wait has
	// its own bound, ClientWait.
	CallTimeout time.Duration
	// Grant are the client features the admin granted the connector
	// (elicitation, sampling, roots); the host functions of any other
	// answer "not granted", naming the key to add.
	Grant []string
	// Client returns the MCP client of the call in ctx, nil when none
	// (see clientcall.Options.Client). Nil asks the call's connector.Host.
	Client func(ctx context.Context) connector.Client
	// ClientWait bounds one wait for the client's answer (default
	// clientcall.DefaultMaxWait, five minutes).
	ClientWait time.Duration
	// MaxOutputBytes caps a call's result (default 16 MiB).
	MaxOutputBytes int
	// CompilationCache, when set, keeps compiled code across restarts.
	CompilationCache wazero.CompilationCache
	// CacheDir, when set (the compilation cache's directory), keeps what a
	// load learned about a module (record.go): a later start of the same
	// executable with the same module and memory limit answers the
	// manifest from it and makes the first instance in the background;
	// calls wait for it.
	CacheDir string
	// SHA256 is the hex sha256 of Wasm when the caller has it (the host
	// does, to check the config's pin); empty, Load computes it.
	SHA256 string
	// Pinned says the admin pinned SHA256 (connectors.<id>.sha256): then
	// a load from a record returns only once the module itself has
	// answered the recorded manifest, so that a manifest edited in the
	// record is refused at start and never served. What runs is made
	// from the pinned bytes either way; an unpinned connector is listed
	// from its record at once and checked in the background.
	Pinned bool
	// Logger receives the guest's log lines and stderr (default slog.Default).
	Logger *slog.Logger
}

// Connector is a loaded WebAssembly connector.
type Connector struct {
	id       string
	sha256   string
	opts     Options
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
	manifest connector.Manifest
	gate     *clientcall.Gate
	// Instrumented reports that the module runs with package wasmbudget's
	// loop budget instead of wazero's per-loop exit to Go.
	Instrumented bool
	// abi is the module's ABI version: 1 (JSON payloads) or 2 (package
	// wasmabi's).
	abi uint32

	// ready is closed once the first instance is made (at once, or in
	// the background after a load from a record); readyErr is why it
	// could not be, and fails every call.
	ready    chan struct{}
	readyErr error
	// loadedFromRecord: Load took the manifest from a record.
	loadedFromRecord bool

	slots chan struct{} // one token per instance that may exist
	// making admits instantiations one per core: a burst of calls
	// instantiated all at once would share the CPU and all be ready
	// late, so the first calls would reach the platform only after the
	// last instance is made; in turn, instances come out one after the
	// other and calls flow to the platform while the rest are made.
	making chan struct{}
	idle   chan *instance // instantiated, ready
	// idleMem is the linear memory of the idle instances.
	idleMem atomic.Int64
	mu      sync.Mutex
	closed  bool
}

// compile makes the connector's runtime (closing any earlier one) and
// compiles wasm on it. closeOnDone selects wazero's own termination
// checks, for modules that are not instrumented.
func (c *Connector) compile(ctx context.Context, wasm []byte, closeOnDone bool) (wazero.CompiledModule, error) {
	if c.runtime != nil {
		c.runtime.Close(ctx)
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(closeOnDone).
		WithMemoryLimitPages(uint32(c.opts.MemoryLimitMB) * 16) // 64 KiB pages
	if c.opts.CompilationCache != nil {
		cfg = cfg.WithCompilationCache(c.opts.CompilationCache)
	}
	c.runtime = wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, c.runtime); err != nil {
		return nil, err
	}
	if err := instantiateHostModule(ctx, c.runtime); err != nil {
		return nil, err
	}
	compiled, err := c.runtime.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("compiling: %w", err)
	}
	return compiled, nil
}

// Load compiles and checks a module: its ABI version, its manifest (valid,
// and with the configured id). The error names the connector.
//
// With a record of an earlier load of the same module (Options.CacheDir),
// Load checks the recorded manifest and returns; the module is compiled
// and its first instance made in the background, and the calls that come
// before it wait for it (Ready).
func Load(ctx context.Context, o Options) (*Connector, error) {
	if o.PoolSize <= 0 {
		o.PoolSize = 4
	}
	if o.MaxInstances < o.PoolSize {
		o.MaxInstances = o.PoolSize
	}
	if o.MemoryLimitMB <= 0 {
		o.MemoryLimitMB = 256
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 60 * time.Second
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = 16 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.SHA256 == "" {
		o.SHA256 = sha256hex(o.Wasm)
	}
	c := &Connector{
		id:     o.ID,
		sha256: o.SHA256,
		opts:   o,
		ready:  make(chan struct{}),
		slots:  make(chan struct{}, o.MaxInstances),
		making: make(chan struct{}, runtime.GOMAXPROCS(0)),
		idle:   make(chan *instance, o.MaxInstances),
		gate:   clientcall.New(clientcall.Options{ID: o.ID, Grant: o.Grant, Client: o.Client, MaxWait: o.ClientWait}),
	}
	recPath := c.recordPath(o.SHA256)
	if recPath != "" {
		if r := readRecord(recPath, o.ID); r != nil {
			// What runs is derived from the module's own bytes, never
			// taken from the record: a record that names other code is
			// refused here, before anything from it is used.
			run, err := c.recordedModule(r, recPath)
			if err != nil {
				return nil, err
			}
			if c.fromRecord(r) == nil {
				c.slots <- struct{}{} // the first instance's
				c.loadedFromRecord = true
				go c.warm(context.WithoutCancel(ctx), r, recPath, run)
				if o.Pinned {
					if err := c.Ready(ctx); err != nil {
						c.Close(context.WithoutCancel(ctx))
						return nil, fmt.Errorf("%w: %v", ErrRecordAltered, err)
					}
				}
				return c, nil
			}
		}
	}
	defer close(c.ready)
	rewritten, manifest, err := c.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading connector %q: %w", o.ID, err)
	}
	if recPath != "" {
		c.saveRecord(recPath, rewritten, manifest)
	}
	c.opts.Wasm = nil // compiled: the module's bytes are not needed again
	return c, nil
}

// fromRecord takes the ABI version, the manifest and the way of stopping
// a call from a record, checking them as a full load checks describe's
// answer.
func (c *Connector) fromRecord(r *loadRecord) error {
	if r.ABI != connector.ABIVersion && r.ABI != wasmabi.Version {
		return fmt.Errorf("ABI version %d", r.ABI)
	}
	var m connector.Manifest
	if err := json.Unmarshal(r.Manifest, &m); err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return err
	}
	if m.ID != c.id {
		return fmt.Errorf("module declares id %q", m.ID)
	}
	c.abi, c.manifest, c.Instrumented = r.ABI, m, r.Instrumented
	return nil
}

// load compiles the module, makes its first instance and reads the ABI
// version and manifest from it. It returns the rewritten module (nil when
// it runs uninstrumented) and describe's output.
func (c *Connector) load(ctx context.Context) (rewritten, manifest []byte, err error) {
	o := c.opts
	fail := func(err error) ([]byte, []byte, error) {
		if c.runtime != nil {
			c.runtime.Close(ctx)
		}
		return nil, nil, err
	}
	// A module that imports the interrupt check runs instrumented: its
	// loops stop it at its deadline at native speed. Any other runs with
	// wazero's own checks, which leave native code at every loop.
	wasm, stats, ierr := wasmbudget.Instrument(o.Wasm, checkBudget)
	if ierr == nil {
		compiled, err := c.compile(ctx, wasm, false)
		if err == nil {
			c.compiled, c.Instrumented, rewritten = compiled, true, wasm
		} else {
			o.Logger.Warn("connector: the instrumented module does not compile; running it with wazero's slower termination checks",
				"connector", o.ID, "error", err, "loops", stats.Loops)
		}
	} else if !errors.Is(ierr, wasmbudget.ErrNoImport) {
		o.Logger.Warn("connector: cannot instrument the module; running it with wazero's slower termination checks",
			"connector", o.ID, "error", ierr)
	}
	if c.compiled == nil {
		compiled, err := c.compile(ctx, o.Wasm, true)
		if err != nil {
			return fail(err)
		}
		c.compiled = compiled
	}
	if err := c.checkExports(); err != nil {
		return fail(err)
	}
	c.slots <- struct{}{}
	inst, abi, out, err := c.first(ctx)
	if err != nil {
		<-c.slots
		return fail(err)
	}
	var m connector.Manifest
	err = json.Unmarshal(out, &m)
	if err != nil {
		err = fmt.Errorf("describe: manifest is not valid JSON: %v", err)
	} else if err = m.Validate(); err == nil && m.ID != o.ID {
		err = fmt.Errorf("module declares id %q, configured as %q", m.ID, o.ID)
	}
	if err != nil {
		inst.mod.Close(ctx)
		<-c.slots
		return fail(err)
	}
	c.abi, c.manifest = abi, m
	c.park(inst)
	return rewritten, out, nil
}

var warmSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// warm does in the background what a load from a record skipped: compile
// run (the module, or its rewrite with the loop budget, made from the
// module's bytes by Load), make the first instance, and check that it
// answers the recorded ABI version and manifest. Calls wait for it. When
// it fails, the calls fail with its error, and the record is removed so
// that the next start loads in full and reports the error there.
func (c *Connector) warm(ctx context.Context, r *loadRecord, recPath string, run []byte) {
	defer close(c.ready)
	// As many at once as there are processors: the connectors become
	// ready one after another instead of all at the end.
	warmSlots <- struct{}{}
	defer func() { <-warmSlots }()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed { // closed before its turn came: nothing to make
		<-c.slots
		c.readyErr = fmt.Errorf("connector %q: closed", c.id)
		return
	}
	err := c.warmUp(ctx, r, run)
	c.opts.Wasm = nil
	if err == nil {
		return
	}
	if c.runtime != nil {
		c.runtime.Close(ctx)
		c.runtime = nil
	}
	<-c.slots
	c.readyErr = fmt.Errorf("loading connector %q: %w", c.id, err)
	c.opts.Logger.Error("connector: loading in the background failed; its calls fail until a restart", "connector", c.id, "error", err)
	os.Remove(recPath)
}

func (c *Connector) warmUp(ctx context.Context, r *loadRecord, run []byte) error {
	compiled, err := c.compile(ctx, run, !r.Instrumented)
	if err != nil {
		return err
	}
	c.compiled = compiled
	if err := c.checkExports(); err != nil {
		return err
	}
	inst, abi, out, err := c.first(ctx)
	if err != nil {
		return err
	}
	if abi != c.abi || !sameManifest(out, r.Manifest) {
		inst.mod.Close(ctx)
		return errors.New("the module answers another ABI version or manifest than at its last load")
	}
	c.park(inst)
	return nil
}

// checkExports refuses a module that is not a connector.
func (c *Connector) checkExports() error {
	for _, name := range []string{"_initialize", "besluitbron_abi_version", "besluitbron_describe", "besluitbron_call"} {
		if _, ok := c.compiled.ExportedFunctions()[name]; !ok {
			return fmt.Errorf("module does not export %s: not a BesluitBron connector (build with the sdk, -buildmode=c-shared)", name)
		}
	}
	return nil
}

// first makes the first instance (its slot taken) and reads the ABI
// version and describe's output from it. On error the instance is closed.
func (c *Connector) first(ctx context.Context) (*instance, uint32, []byte, error) {
	inst, err := c.instantiate(ctx)
	if err != nil {
		return nil, 0, nil, err
	}
	res, err := inst.mod.ExportedFunction("besluitbron_abi_version").Call(ctx)
	if err != nil {
		inst.mod.Close(ctx)
		return nil, 0, nil, fmt.Errorf("reading ABI version: %w", err)
	}
	// Version 1 is still served: a module built with an older sdk
	// keeps working, with JSON payloads.
	abi := uint32(res[0])
	if abi != connector.ABIVersion && abi != wasmabi.Version {
		inst.mod.Close(ctx)
		return nil, 0, nil, &connector.ABIError{Connector: c.id, Got: abi, Want: wasmabi.Version}
	}
	out, err := c.run(ctx, inst.mod.ExportedFunction("besluitbron_describe"), "besluitbron_describe", nil, nil, abi == wasmabi.Version)
	if err != nil {
		inst.mod.Close(ctx)
		return nil, 0, nil, fmt.Errorf("describe: %w", err)
	}
	return inst, abi, out, nil
}

// Ready waits until the connector's first instance is made (at once after
// a full load) and returns why it could not be.
func (c *Connector) Ready(ctx context.Context) error {
	select {
	case <-c.ready:
		return c.readyErr
	case <-ctx.Done():
		return fmt.Errorf("still loading: %w", ctx.Err())
	}
}

// PoolStats describes the instance pool.
type PoolStats struct {
	Instances   int   // live instances (idle or busy)
	Idle        int   // instances waiting for a call
	MemoryBytes int64 // linear memory of the idle instances
	Size        int   // the instances kept warm (PoolSize)
	Max         int   // the most instances (MaxInstances)
}

// PoolStats reports the pool's current state. Busy instances' memory is not
// read (it belongs to a running call).
func (c *Connector) PoolStats() PoolStats {
	return PoolStats{Instances: len(c.slots), Size: c.opts.PoolSize, Max: cap(c.slots), Idle: len(c.idle), MemoryBytes: c.idleMem.Load()}
}

// park makes an instance idle, recording its memory while no call runs on
// it (a scrape never touches an instance).
func (c *Connector) park(in *instance) {
	in.mem = int64(in.mod.Memory().Size())
	c.idleMem.Add(in.mem)
	c.idle <- in
}

// unpark takes note that an idle instance is in use again.
func (c *Connector) unpark(in *instance) *instance {
	c.idleMem.Add(-in.mem)
	return in
}

// SHA256 is the hex sha256 of the module bytes.
func (c *Connector) SHA256() string { return c.sha256 }

// Describe returns a copy of the manifest read at load.
func (c *Connector) Describe(context.Context) (connector.Manifest, error) {
	return c.manifest.Clone(), nil
}

// instance is one module instance and the stderr it writes.
type instance struct {
	mod    api.Module
	call   api.Function // besluitbron_call, looked up once: each lookup builds a call engine
	stderr *logWriter
	clock  *guestClock
	mem    int64 // linear memory when it was last parked
}

// guestClock is an instance's WASI clock. It tells the guest nothing of
// the real time: each reading advances it by a millisecond (wazero's fake
// clock), and a sleep advances it by exactly the time asked. The sleep
// itself is real (a connector may pace itself, and a test fixture may
// take its time), bounded by the running call's context: a call past its
// deadline is stopped in its sleep as in its loops. Outside a call
// (_initialize, describe) a sleep returns at once.
type guestClock struct {
	t    atomic.Int64
	call atomic.Pointer[context.Context]
}

func (c *guestClock) nanotime() int64 {
	return c.t.Add(int64(time.Millisecond)) - int64(time.Millisecond)
}

func (c *guestClock) nanosleep(ns int64) {
	if ns <= 0 {
		return
	}
	if p := c.call.Load(); p != nil {
		ctx := *p
		t := time.NewTimer(time.Duration(ns))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			panic(ctx.Err()) // trapped like the interrupt check's stop
		}
	}
	c.t.Add(ns)
}

// during makes ctx the call a sleep is bounded by, until the returned
// function runs.
func (c *guestClock) during(ctx context.Context) func() {
	c.call.Store(&ctx)
	return func() { c.call.Store(nil) }
}

func (c *Connector) instantiate(ctx context.Context) (*instance, error) {
	stderr := &logWriter{}
	clock := &guestClock{}
	cfg := wazero.NewModuleConfig().
		WithNanotime(clock.nanotime, sys.ClockResolution(1)).
		WithNanosleep(clock.nanosleep).
		WithName("").
		WithStartFunctions(). // reactor: no _start
		WithStderr(stderr).
		WithStdout(stderr).
		// The only environment a guest gets: its memory limit, which the
		// Go runtime reads, so its collector works harder as the heap
		// nears the cap instead of growing into a trap.
		WithEnv("GOMEMLIMIT", fmt.Sprintf("%dMiB", c.opts.MemoryLimitMB*3/4))
	mod, err := c.runtime.InstantiateModule(withReservedMemory(ctx), c.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiating: %w", err)
	}
	if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
		mod.Close(ctx)
		return nil, fmt.Errorf("initialising: %w (%s)", err, firstLine(stderr.take()))
	}
	return &instance{mod: mod, call: mod.ExportedFunction("besluitbron_call"), stderr: stderr, clock: clock}, nil
}

// acquire returns an idle instance or makes a new one, waiting while all
// MaxInstances instances are busy.
func (c *Connector) acquire(ctx context.Context) (*instance, error) {
	if err := c.Ready(ctx); err != nil {
		return nil, err
	}
	select {
	case mod := <-c.idle:
		return c.unpark(mod), nil
	default:
	}
	select {
	case mod := <-c.idle:
		return c.unpark(mod), nil
	case c.slots <- struct{}{}:
		// Waiting for a turn to instantiate, an instance that frees up
		// is taken instead.
		select {
		case c.making <- struct{}{}:
		case mod := <-c.idle:
			<-c.slots
			return c.unpark(mod), nil
		case <-ctx.Done():
			<-c.slots
			return nil, fmt.Errorf("waiting for a turn to make an instance: %w", ctx.Err())
		}
		mod, err := c.instantiate(ctx)
		<-c.making
		if err != nil {
			<-c.slots
			return nil, err
		}
		return mod, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("all %d instances busy: %w", c.opts.MaxInstances, ctx.Err())
	}
}

func (c *Connector) release(ctx context.Context, in *instance, healthy bool) {
	if s := in.stderr.take(); s != "" {
		c.opts.Logger.Warn("connector wrote to stderr", "connector", c.id, "text", clip(s, 1000))
	}
	// A linear memory never shrinks: an instance that grew past half its
	// limit (a very long document) would hold that memory while idle, so
	// it is closed and the next call gets a fresh one.
	keep := healthy && !in.mod.IsClosed() && in.mod.Memory().Size() <= uint32(c.opts.MemoryLimitMB)<<19
	if keep {
		// Counting the idle instances and parking one is one step:
		// calls ending together would otherwise each see room in the
		// warm pool and all stay (the idle channel holds MaxInstances,
		// so parking never blocks under the lock).
		c.mu.Lock()
		keep = !c.closed && (len(c.idle) < c.opts.PoolSize || c.opts.Wanted != nil && c.opts.Wanted())
		if keep {
			c.park(in)
		}
		c.mu.Unlock()
		if keep {
			return
		}
	}
	// Broken, closing, grown, or beyond the warm pool: its memory goes back.
	in.mod.Close(context.WithoutCancel(ctx))
	<-c.slots
}

// Call runs one tool call on a pooled instance. Any failure of the guest
// (trap, exit, deadline, memory, malformed output) is returned as an error
// naming the connector, and the instance is discarded.
func (c *Connector) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return connector.CallResult{}, fmt.Errorf("connector %q: closed", c.id)
	}
	// The call's deadline stops while it waits for its client's answer.
	ctx, cancel := clientcall.WithDeadline(ctx, c.opts.CallTimeout)
	defer cancel()
	_, keepsTexts := h.(connector.TextStore)
	in, err := c.encodeRequest(req, keepsTexts)
	if err != nil {
		return connector.CallResult{}, err
	}
	inst, err := c.acquire(ctx)
	if err != nil {
		return connector.CallResult{}, fmt.Errorf("connector %q: %w", c.id, err)
	}
	if ctx.Err() != nil {
		// The call ended while it waited for an instance, or in the
		// instant it got one (a select takes either when both are
		// ready): it runs nothing, so its guest fetches nothing.
		c.release(ctx, inst, true)
		return connector.CallResult{}, c.describeErr(ctx, ctx.Err(), "")
	}
	done := inst.clock.during(ctx)
	out, err := c.invokeFn(ctx, inst.call, "besluitbron_call", in, h)
	done()
	if err != nil {
		headline := firstLine(inst.stderr.buf2())
		c.release(ctx, inst, false)
		return connector.CallResult{}, c.describeErr(ctx, err, headline)
	}
	res, err := c.decodeResult(out)
	if err != nil {
		c.release(ctx, inst, false)
		return connector.CallResult{}, fmt.Errorf("connector %q: malformed result: %v", c.id, err)
	}
	c.release(ctx, inst, true)
	if err := ctx.Err(); err != nil {
		// The guest answered after its deadline (or after its client
		// left): the bound holds whether or not the runtime stopped it in
		// time, which on a busy machine it may not have.
		return connector.CallResult{}, c.describeErr(ctx, err, "")
	}
	return res, nil
}

// encodeRequest is a call's input: JSON for a module of version 1; for
// version 2, package wasmabi's encoding with the arguments as json.Marshal
// left them in version 1 (compacted, "null" when there are none), and
// whether the call's host keeps texts.
func (c *Connector) encodeRequest(req connector.CallRequest, keepsTexts bool) ([]byte, error) {
	if c.abi != wasmabi.Version {
		return json.Marshal(req)
	}
	args := []byte("null")
	if len(req.Arguments) > 0 {
		var err error
		if args, err = wasmabi.CompactJSON(req.Arguments); err != nil {
			return nil, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: %w", err)
		}
	}
	req.Arguments = args
	return wasmabi.AppendCallRequest(make([]byte, 0, 16+len(req.Tool)+len(args)), req, keepsTexts), nil
}

// decodeResult reads a call's output. For version 2 the structured
// content is checked and compacted here, as version 1's json.Marshal in
// the guest and json.Unmarshal in the host did.
func (c *Connector) decodeResult(out []byte) (connector.CallResult, error) {
	var res connector.CallResult
	if c.abi != wasmabi.Version {
		err := json.Unmarshal(out, &res)
		return res, err
	}
	res, err := wasmabi.DecodeCallResult(out)
	if err != nil {
		return connector.CallResult{}, err
	}
	if res.Structured, err = wasmabi.CompactJSON(res.Structured); err != nil {
		return connector.CallResult{}, fmt.Errorf("structured content: %v", err)
	}
	return res, nil
}

func (c *Connector) describeErr(ctx context.Context, err error, headline string) error {
	var exit *sys.ExitError
	if headline != "" {
		headline = " (" + headline + ")"
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("connector %q: call stopped after its %s deadline", c.id, c.opts.CallTimeout)
	case ctx.Err() != nil:
		return fmt.Errorf("connector %q: call canceled: %w", c.id, ctx.Err())
	case errors.As(err, &exit):
		return fmt.Errorf("connector %q: module exited with code %d%s", c.id, exit.ExitCode(), headline)
	case strings.Contains(err.Error(), "wasm error: unreachable"):
		return fmt.Errorf("connector %q: module trapped, a fatal runtime error%s", c.id, headline)
	case strings.Contains(err.Error(), "wasm error:"):
		first, _, _ := strings.Cut(err.Error(), "\n")
		return fmt.Errorf("connector %q: module trapped: %s%s", c.id, first, headline)
	}
	return fmt.Errorf("connector %q: %v%s", c.id, err, headline)
}

// invokeFn runs one export with input in and returns the output it wrote.
func (c *Connector) invokeFn(ctx context.Context, f api.Function, fn string, in []byte, h connector.Host) ([]byte, error) {
	return c.run(ctx, f, fn, in, h, c.abi == wasmabi.Version)
}

// run is invokeFn for a module whose ABI version is being read (binary:
// version 2).
func (c *Connector) run(ctx context.Context, f api.Function, fn string, in []byte, h connector.Host, binary bool) ([]byte, error) {
	st := &callState{input: in, host: h, gate: c.gate, maxOutput: c.opts.MaxOutputBytes, logger: c.opts.Logger, id: c.id, binary: binary}
	res, err := f.Call(withState(ctx, st))
	if err != nil {
		return nil, err
	}
	if st.err != nil {
		return nil, st.err
	}
	if res[0] != 0 {
		return nil, fmt.Errorf("%s failed: %s", fn, clip(string(st.output), 500))
	}
	return st.output, nil
}

// Close closes every instance and the runtime; calls in flight fail.
func (c *Connector) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	<-c.ready // a load in the background finishes first
	if c.runtime == nil {
		return nil
	}
	return c.runtime.Close(ctx)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

var _ connector.Connector = (*Connector)(nil)
