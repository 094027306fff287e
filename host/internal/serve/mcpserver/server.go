package mcpserver

import (
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
	"github.com/besluitbron/besluitbron/internal/tracing"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Platform is one loaded connector as the MCP layer presents it: the
// invoke path's platform (the one the engine runs), and how its names
// look to clients.
type Platform struct {
	*invoke.Platform
	// ToolPrefix, when set, replaces "<id>_" before the connector's tool
	// and prompt names as clients see them ("" for none). The host's own
	// code keeps calling tools by "<id>_<tool>" (see [invoke.Engine.Invoke]).
	ToolPrefix *string
	// ResourceBase, when set, replaces "besluitbron://<id>/" at the start
	// of the connector's resource URIs as clients see them.
	ResourceBase string
	// Behind, when set, estimates where a call still waiting for an
	// instance of the connector, behind more others waiting there, will
	// wait at the platform's limit (Limit, Refill, Position and ETA of the
	// tasks.Wait); ok is false when it cannot tell. An MCP task waiting
	// for an instance names its place and expected start by it.
	Behind func(more int) (w tasks.Wait, ok bool)
	// Grant are the client features the admin granted the connector
	// (connectors.<id>.grant). The runtimes check a tool's asking; the
	// host reads it here for what it asks itself, a prompt's form
	// (connector.Prompt.Ask).
	Grant []string
}

// Options configure a Server.
type Options struct {
	// Name and Version are the serverInfo the clients see.
	Name    string
	Version string
	// Platforms are the enabled connectors, in the order tools are listed.
	Platforms []Platform
	// HostTools are added to the unified address.
	HostTools []invoke.HostTool
	// HostResources are added to the unified address (subscribe.go).
	HostResources []HostResource
	// HostTemplates are families of resources the host serves on the
	// unified address, each read (and subscribed to) as its caller
	// (subscribe.go).
	HostTemplates []HostTemplate
	// Instructions for clients.
	Instructions string
	Logger       *slog.Logger
	// Engine is the invoke path every tool call takes: the MCP edge turns
	// its answers into MCP results. The host builds it first (its
	// features call it directly); when nil, New builds one over
	// Platforms with Memo and Observe.
	Engine *invoke.Engine
	// Observe, when set and Engine is nil, sees every tool call.
	Observe invoke.Observer
	// Memo, when set and Engine is nil, keeps whole tool results while
	// the cached answers they were built from stay fresh.
	Memo *memo.Store
	// Now is the clock the cache's validity is read on, for the ttlMs of
	// resource reads (cacheable.go); nil: the system's.
	Now func() time.Time
	// RequestStateKey seals the requestState of multi-round calls of MCP
	// 2026-07-28 clients (requeststate.go); replicas given one key would
	// answer each other's rounds. Empty: a random key for this process.
	RequestStateKey []byte
	// Tasks, when set, lets a tool call that must wait at a platform's
	// limit become an MCP task for a client that declared the tasks
	// extension, and serves tasks/get, tasks/update and tasks/cancel
	// (tasks.go); nil: no tasks.
	Tasks *tasks.Store
	// Tracing, when set, gives every tool call its span ("tools/call
	// <tool>"), a child of the trace context the client sent in the
	// request's _meta; nil: no traces.
	Tracing *tracing.Provider
}

// Server holds the MCP servers of every address.
type Server struct {
	o       Options
	unified *mcp.Server
	per     map[string]*mcp.Server
	tools   map[string]*toolEntry // by "<id>_<tool>", whatever the prefix
	names   map[string]string     // exposed tool and prompt names → owner
	prompts map[string]connector.Prompt
	ids     []string
	// posts are the streamable POSTs running now (cancel.go).
	posts posts
	// lastLive is the live sessions' table of the last Handler.
	lastLive atomic.Pointer[live]
	// lastResumer is the orphaned calls' table of the last Handler.
	lastResumer atomic.Pointer[resumer]
	// watches are each address's subscribable resources ("": unified).
	watches map[string]*watch
	// taskRuns are the calls running as tasks here, by task id (tasks.go).
	taskRuns sync.Map
	// state seals the requestState of multi-round calls (requeststate.go).
	state *stateCodec
}

type toolEntry struct {
	platform *Platform
	t        *invoke.Tool
	name     string // as clients see it
}

// New registers every platform's tools, resources and prompts.
func New(o Options) (*Server, error) {
	if o.Name == "" {
		o.Name = "besluitbron"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Engine == nil {
		var ps []*invoke.Platform
		for _, p := range o.Platforms {
			ps = append(ps, p.Platform)
		}
		e, err := invoke.New(invoke.Options{Platforms: ps, Memo: o.Memo, Logger: o.Logger, Observe: o.Observe})
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		o.Engine = e
	}
	s := &Server{o: o, per: map[string]*mcp.Server{}, tools: map[string]*toolEntry{}, names: map[string]string{}, prompts: map[string]connector.Prompt{},
		watches: map[string]*watch{"": newWatch()}}
	impl := &mcp.Implementation{Name: o.Name, Title: "BesluitBron", Version: o.Version}
	sdkLog := sdkLogger(o.Logger)
	uo := &mcp.ServerOptions{Instructions: o.Instructions, Logger: sdkLog, CompletionHandler: s.complete, SetCacheable: s.setCacheable}
	if subscribable(o) {
		subscriptionOptions(uo, s.watches[""])
		if len(o.HostTemplates) > 0 {
			s.templateSubscriptions(uo)
		}
	}
	if o.Tasks != nil {
		taskCapabilities(uo)
	}
	var err error
	if s.state, err = newStateCodec(o.RequestStateKey, o.Now); err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	fixedLists(uo, len(o.Platforms) > 0 && slices.ContainsFunc(o.Platforms, func(p Platform) bool { return len(p.Manifest.Prompts) > 0 }))
	s.unified = mcp.NewServer(impl, uo)
	s.unified.AddReceivingMiddleware(boundErrors, s.followPost, listenCaller, s.taskCalls)
	if err := s.addTasks(s.unified); err != nil {
		return nil, err
	}
	for i := range o.Platforms {
		p := &o.Platforms[i]
		id := p.Manifest.ID
		if _, dup := s.per[id]; dup {
			return nil, fmt.Errorf("mcpserver: connector %q loaded twice", id)
		}
		s.ids = append(s.ids, id)
		oo := &mcp.ServerOptions{Instructions: p.Manifest.Description, Logger: sdkLog, CompletionHandler: s.complete, SetCacheable: s.setCacheable}
		if slices.ContainsFunc(p.Manifest.Resources, func(r connector.ResourceTemplate) bool { return r.Subscribable }) {
			s.watches[id] = newWatch()
			subscriptionOptions(oo, s.watches[id])
		}
		if o.Tasks != nil {
			taskCapabilities(oo)
		}
		fixedLists(oo, len(p.Manifest.Prompts) > 0)
		one := mcp.NewServer(&mcp.Implementation{Name: o.Name + "-" + id, Title: "BesluitBron: " + p.Manifest.Title, Version: o.Version}, oo)
		one.AddReceivingMiddleware(boundErrors, s.followPost, listenCaller, s.taskCalls)
		if err := s.addTasks(one); err != nil {
			return nil, err
		}
		s.per[id] = one
		for _, t := range p.Manifest.Tools {
			e, err := s.entry(p, t)
			if err != nil {
				return nil, err
			}
			mt := &mcp.Tool{
				Name:        e.name,
				Title:       t.Title,
				Description: describe(p.Manifest, t),
				InputSchema: t.InputSchema,
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true), Title: t.Title},
			}
			h := s.toolHandler(e)
			one.AddTool(mt, h)
			s.unified.AddTool(mt, h)
		}
		for _, r := range p.Manifest.Resources {
			if err := s.addResource(p, r, one); err != nil {
				return nil, err
			}
		}
		for _, pr := range p.Manifest.Prompts {
			if err := s.addPrompt(p, pr, one); err != nil {
				return nil, err
			}
		}
	}
	for _, hr := range o.HostResources {
		s.addHostResource(hr)
	}
	for _, ht := range o.HostTemplates {
		s.addHostTemplate(ht)
	}
	for _, ht := range o.HostTools {
		if _, dup := s.tools[ht.Name]; dup {
			return nil, fmt.Errorf("mcpserver: host tool %q clashes with a connector tool", ht.Name)
		}
		if err := s.claim(ht.Name, "the host"); err != nil {
			return nil, err
		}
		as, err := invoke.NewArgSchema(ht.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: host tool %q: input schema: %w", ht.Name, err)
		}
		s.unified.AddTool(hostToolDef(ht), s.hostToolHandler(ht, as))
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// fixedLists advertises the tools (and, when the address has any, the
// prompts) without listChanged: the host registers every tool and prompt
// before any client connects and never changes them while it runs, so
// it never sends notifications/tools/list_changed or
// prompts/list_changed, and a client (the conformance suite's
// server-stateless, which waits for one on a subscriptions/listen
// stream) should not expect any. The go-sdk would otherwise infer
// {"listChanged": true} from the first tool added.
func fixedLists(o *mcp.ServerOptions, prompts bool) {
	if o.Capabilities == nil {
		// The go-sdk's default when none are given.
		o.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	}
	o.Capabilities.Tools = &mcp.ToolCapabilities{}
	if prompts {
		o.Capabilities.Prompts = &mcp.PromptCapabilities{}
	}
}

// subscribable says whether the unified address has a resource that
// can be subscribed to.
func subscribable(o Options) bool {
	for _, hr := range o.HostResources {
		if hr.Subscribable {
			return true
		}
	}
	for _, ht := range o.HostTemplates {
		if ht.Subscribe != nil {
			return true
		}
	}
	for _, p := range o.Platforms {
		for _, r := range p.Manifest.Resources {
			if r.Subscribable {
				return true
			}
		}
	}
	return false
}

// describe appends the cost note, so the assistant sees what a call costs
// and can take the cheaper route.
func describe(m connector.Manifest, t connector.Tool) string {
	d := t.Description
	if t.CostNote != "" {
		d += "\n\nCost: " + t.CostNote
	}
	return d
}

func (s *Server) entry(p *Platform, t connector.Tool) (*toolEntry, error) {
	full := p.Manifest.ID + "_" + t.Name
	it, ok := s.o.Engine.Tool(full)
	if !ok {
		return nil, fmt.Errorf("connector %q tool %q: not in the invoke path's table (build the engine from the same platforms)", p.Manifest.ID, t.Name)
	}
	e := &toolEntry{platform: p, t: it, name: p.toolName(t.Name)}
	if err := s.claim(e.name, "connector "+strconv.Quote(p.Manifest.ID)); err != nil {
		return nil, err
	}
	s.tools[full] = e
	return e, nil
}

// claim reserves a tool or prompt name clients see; with tool prefixes
// set by the admin two connectors could otherwise collide.
func (s *Server) claim(name, owner string) error {
	if prev, dup := s.names[name]; dup {
		return fmt.Errorf("mcpserver: %s and %s both serve %q (see connectors.<id>.tool_prefix)", prev, owner, name)
	}
	s.names[name] = owner
	return nil
}

// Unified is the server of /mcp/unified/v1 (and of stdio).
func (s *Server) Unified() *mcp.Server { return s.unified }

// Connector returns the server of /mcp/<id>/v1.
func (s *Server) Connector(id string) (*mcp.Server, bool) {
	one, ok := s.per[id]
	return one, ok
}

// IDs lists the connector ids in order.
func (s *Server) IDs() []string { return append([]string(nil), s.ids...) }

// Engine is the invoke path the server's tool calls take.
func (s *Server) Engine() *invoke.Engine { return s.o.Engine }

// ToolNames lists every connector tool's full name, sorted.
func (s *Server) ToolNames() []string {
	var out []string
	for n := range s.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func platformOf(name string) string {
	id, _, _ := strings.Cut(name, "_")
	return id
}
