package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// A tools/call that must wait at a platform's limit becomes a task
// (serve/tasks; the extension io.modelcontextprotocol/tasks) when its
// client declared the extension: the call answers with a CreateTaskResult
// as soon as it is known to wait, runs on without its POST, and the client
// polls tasks/get. A call with room answers at once, as without the
// extension, unless its tool says its own work takes long
// (connector.Tool.Task): then it is a task from its start.
//
// taskCalls, the innermost receiving middleware, starts such a call on a
// context of its own (the request's values, none of its cancellation)
// with a taskCall in it; the tool handler equips the call's record from
// it (newInfo): its waits at a limit stop the call's deadline
// (callinfo.QueueOffClock), and its place there or at the admission to the
// connector's instances is reported to the taskCall. The middleware waits
// for whichever comes first: the call's answer (returned as it is), a
// wait of at least tasks.MinPoll (the task is created and its handle
// returned; a shorter wait would answer before the client's first poll),
// or the end of the POST (the call is cancelled, as every call whose
// client has gone).
//
// tasks/get, tasks/update and tasks/cancel are the go-sdk's custom
// methods (mcp.AddReceivingCustomMethod): its transports accept them
// beside the standard methods, and their answers are written as any
// other. taskCalls hands their handlers the request's extra (the token of
// an authenticated client, the client's address), from which the owner
// of a task is read as a call's is charged (callinfo.ChargedTo).

// Methods of the extension.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// errTaskCancelled is the cause of a task's call ended by tasks/cancel.
var errTaskCancelled = errors.New("tasks/cancel")

// taskCapabilities advertises the extension on an address's server.
func taskCapabilities(o *mcp.ServerOptions) {
	o.Capabilities = &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Extensions: map[string]any{tasks.Extension: map[string]any{}}}
}

// TasksDeclared reports whether the client of req declared the tasks
// extension: in the request's own _meta capabilities (a 2026-07-28
// request, on any address), or, for a session of an earlier protocol
// version, in the capabilities it sent with initialize (those versions
// declare capabilities once per session).
func TasksDeclared(req mcp.Request) bool {
	var meta map[string]any
	if p := req.GetParams(); p != nil {
		meta = p.GetMeta()
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return tasksDeclared(meta, ss)
}

func tasksDeclared(meta map[string]any, ss *mcp.ServerSession) bool {
	if tasks.Declared(meta) {
		return true
	}
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.ProtocolVersion >= firstAskingFreeVersion {
		return false
	}
	return tasks.ExtensionsDeclare(ip.Capabilities.Extensions)
}

// taskCall is what a call that may become a task shares between its
// record's hooks (on the call's goroutine) and the middleware.
type taskCall struct {
	store   *tasks.Store
	waiting chan struct{} // closed when the call first waits long enough
	ended   chan struct{} // closed when the call has returned

	mu       sync.Mutex
	wait     tasks.Wait
	signaled bool
	finished bool
	id       string // the task's, once created
	// ticket is the call's place in the queue for an instance while it
	// waits there (set: waiting), and behind the estimate of its wait at
	// the platform's limit after it (Platform.Behind, may be nil).
	ticket *admission.Ticket
	behind func(more int) (tasks.Wait, bool)

	// The questions put to the client through the task (taskClient):
	// asked counts them by feature, for the keys of unnamed ones.
	asked   map[string]int
	pending map[string]*pendingInput
}

type taskCallKey struct{}

func taskCallFrom(ctx context.Context) *taskCall {
	tc, _ := ctx.Value(taskCallKey{}).(*taskCall)
	return tc
}

// equip makes info's waits the task's: off the deadline's clock, and
// reported here.
func (tc *taskCall) equip(info *callinfo.Info) {
	info.QueueOffClock = true
	info.AtLimit = tc.atLimit
	info.OnQueued = tc.queued
	info.OnInstanceWait = tc.instanceWait
}

func (tc *taskCall) atLimit(limit string, refill time.Duration, done bool) {
	tc.mu.Lock()
	id := tc.id
	if !done {
		tc.wait = tasks.Wait{Limit: limit, Refill: refill}
	}
	tc.mu.Unlock()
	if done && id != "" {
		tc.store.Started(id)
	}
}

func (tc *taskCall) queued(position int, eta time.Duration) {
	tc.mu.Lock()
	tc.wait.Position, tc.wait.ETA, tc.wait.Instances = position, eta, 0
	w, id := tc.wait, tc.id
	tc.signalLocked(eta >= tasks.MinPoll)
	tc.mu.Unlock()
	if id != "" {
		tc.store.Queued(id, w)
	}
}

func (tc *taskCall) instanceWait(waiting int) {
	tc.mu.Lock()
	tc.wait = tasks.Wait{Instances: waiting}
	w, id := tc.wait, tc.id
	// How long is not known: every instance is held by a call that may
	// itself wait at the limit.
	tc.signalLocked(true)
	tc.mu.Unlock()
	if id != "" {
		tc.store.Queued(id, w)
	}
}

// instanceTicket is told that the call waits for an instance of its
// connector: the call is then a task (how long is not known: every
// instance is held by a call that may itself wait at the limit). Its
// place is numbered when a client asks (refresh), not here: numbering
// the fair order costs O(n log n) in the calls waiting, too much at every
// arrival of 10,000.
func (tc *taskCall) instanceTicket(t admission.Ticket) {
	w := tasks.Wait{Instances: t.Waiting()}
	if tc.behind != nil {
		// Its expected start, at the latest: behind every call waiting
		// for an instance (cheap, unlike its place). The task's life
		// counts from it (tasks.Options.MaxLife).
		if at, ok := tc.behind(w.Instances - 1); ok {
			w.ETA = at.ETA
		}
	}
	tc.mu.Lock()
	tc.ticket = &t
	tc.wait = w
	id := tc.id
	tc.signalLocked(true)
	tc.mu.Unlock()
	if id != "" {
		tc.store.Queued(id, w)
	}
}

// admitted records that the call waits for an instance no more.
func (tc *taskCall) admitted() {
	tc.mu.Lock()
	tc.ticket = nil
	tc.mu.Unlock()
}

// refresh numbers the place of a task waiting for an instance, when its
// client asks: its place in the admission's fair order, and where that
// puts it at the platform's limit (behind the calls waiting there and
// those ahead of it here) with the expected start. The task's record is
// changed (and shared) only when what it says changed.
func (tc *taskCall) refresh() {
	tc.mu.Lock()
	t, behind, id, old := tc.ticket, tc.behind, tc.id, tc.wait
	tc.mu.Unlock()
	if t == nil || id == "" {
		return
	}
	place, waiting := t.Place()
	if place == 0 {
		return // admitted meanwhile: its place at the limit follows
	}
	w := tasks.Wait{Instances: waiting, InstancePlace: place}
	if behind != nil {
		if at, ok := behind(place - 1); ok {
			w.Limit, w.Refill, w.Position, w.ETA = at.Limit, at.Refill, at.Position, at.ETA
		}
	}
	tc.mu.Lock()
	if tc.ticket != t || tc.wait != old {
		tc.mu.Unlock()
		return // the call moved on meanwhile; its own report stands
	}
	tc.wait = w
	tc.mu.Unlock()
	if w != old {
		tc.store.Queued(id, w)
	}
}

// signalLocked tells the middleware, once, that the call waits long
// enough to be a task.
func (tc *taskCall) signalLocked(long bool) {
	if long && !tc.signaled {
		tc.signaled = true
		close(tc.waiting)
	}
}

// callOutcome is what a call's handler returned.
type callOutcome struct {
	res mcp.Result
	err error
}

// taskCalls is the receiving middleware of the extension: it lets a
// tools/call of a declaring client become a task, and hands the tasks/
// methods the request's extra.
func (s *Server) taskCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch {
		case s.o.Tasks == nil:
			return next(ctx, method, req)
		case method == methodTasksGet || method == methodTasksUpdate || method == methodTasksCancel:
			return next(context.WithValue(ctx, taskExtraKey{}, req.GetExtra()), method, req)
		case method != "tools/call":
			return next(ctx, method, req)
		case !TasksDeclared(req):
			if e := s.calledTool(req); e != nil && e.t.Def.Task == connector.TaskRequired {
				return nil, taskRequired(e.name)
			}
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		owner := sessionOf(ctx, ss, req.GetExtra())
		if err := s.o.Tasks.Room(owner); err != nil {
			// No task could be kept: the call is an ordinary one.
			return next(ctx, method, req)
		}
		tc := &taskCall{store: s.o.Tasks, waiting: make(chan struct{}), ended: make(chan struct{})}
		req = leanRequest(req)
		cctx, cancel := context.WithCancelCause(context.WithValue(context.WithoutCancel(ctx), taskCallKey{}, tc))
		done := make(chan callOutcome, 1)
		if e := s.calledTool(req); e != nil && e.t.Def.Task != "" {
			// A tool whose own work takes long is a task at once
			// (connector.Tool.Task): the server is the sole decider.
			tc.mu.Lock()
			tc.signalLocked(true)
			tc.mu.Unlock()
		}
		run := func(cctx context.Context, release func()) {
			defer close(tc.ended)
			res, err := next(cctx, method, req)
			release()
			tc.mu.Lock()
			tc.finished = true
			id := tc.id
			tc.mu.Unlock()
			if id != "" {
				s.finishTask(id, res, err)
				s.taskRuns.Delete(id)
				cancel(nil)
				return
			}
			done <- callOutcome{res, err}
		}
		s.startTask(cctx, tc, owner, req, run)
		select {
		case o := <-done:
			cancel(nil)
			return o.res, o.err
		case <-ctx.Done():
			// The client has gone before the call waited: it ends, as
			// every call of a closed POST does.
			cancel(context.Cause(ctx))
			return nil, context.Cause(ctx)
		case <-tc.waiting:
		}
		tc.mu.Lock()
		if tc.finished {
			tc.mu.Unlock()
			o := <-done
			cancel(nil)
			return o.res, o.err
		}
		t, err := s.o.Tasks.Create(ctx, owner, tc.wait, cancel)
		if err == nil {
			tc.id = t.ID
			s.taskRuns.Store(t.ID, tc)
		}
		tc.mu.Unlock()
		if err != nil {
			s.o.Logger.Warn("tasks: the call waits without a task", "reason", err)
			select {
			case o := <-done:
				cancel(nil)
				return o.res, o.err
			case <-ctx.Done():
				cancel(context.Cause(ctx))
				return nil, context.Cause(ctx)
			}
		}
		return taskWire(t, "task"), nil
	}
}

// leanRequest is req keeping of its extra only what the call reads
// beyond this middleware: the authenticated client (TokenInfo), the
// client's address (ClientHeader, for a client without a session) and
// when the client limits checked the request (inbound.CheckedHeader, for
// the call's trace). A task's call keeps req for as long as the task
// waits, and the POST's parsed headers (about 1.1 KB a task) and its
// stream's CloseSSEStream (followPost, outside, has taken it already)
// would stay with it.
func leanRequest(req mcp.Request) mcp.Request {
	r, ok := req.(*mcp.CallToolRequest)
	if !ok || r.Extra == nil {
		return req
	}
	lean := *r
	extra := &mcp.RequestExtra{TokenInfo: r.Extra.TokenInfo}
	for _, k := range leanHeaders {
		if v := r.Extra.Header.Get(k); v != "" {
			if extra.Header == nil {
				extra.Header = make(http.Header, len(leanHeaders))
			}
			extra.Header.Set(k, v)
		}
	}
	lean.Extra = extra
	return &lean
}

// leanHeaders are the request headers a task's call reads (leanRequest).
var leanHeaders = []string{ClientHeader, inbound.CheckedHeader}

// finishTask records the outcome of a task's call: a result (a tool error
// included) completes it, a JSON-RPC error fails it.
func (s *Server) finishTask(id string, res mcp.Result, err error) {
	if err != nil {
		code := jsonrpc.CodeInternalError
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			code = int(we.Code)
		}
		s.o.Tasks.Fail(id, code, invoke.ClipText(err.Error(), invoke.MaxErrorText))
		return
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		s.o.Tasks.Fail(id, jsonrpc.CodeInternalError, "the call's result could not be written: "+merr.Error())
		return
	}
	s.o.Tasks.Complete(id, b, resultTooBig)
}

// resultTooBig is the tool error kept instead of a result the task store
// has no room for.
func resultTooBig(size, room int64) json.RawMessage {
	res := toolError(fmt.Sprintf("the result (%d bytes) is larger than the room this client has left in the task store (%d bytes); call the tool again without the tasks extension, or with narrower arguments", size, room), callinfo.Summary{Cache: callinfo.Bypass})
	b, _ := json.Marshal(res)
	return b
}

// taskClient is the MCP client of a call that may become a task: asked as
// usual until the call is a task; after, through the task (the
// extension's input_required): the task's status becomes input_required
// with the question in its inputRequests, the call waits for the
// client's tasks/update, and goes on with the answer. A task has a
// goroutine of its own and no connection, so it can wait for a person
// where a 2026-07-28 call without a task cannot (mrtr.go runs that one
// again instead); the wait ends with the task (tasks/cancel, its
// maximum life).
type taskClient struct {
	tc    *taskCall
	inner callinfo.Client
}

// client wraps the call's client.
func (tc *taskCall) client(inner callinfo.Client) callinfo.Client { return taskClient{tc, inner} }

// isTask reports whether the call has become a task.
func (c taskClient) isTask() bool {
	c.tc.mu.Lock()
	defer c.tc.mu.Unlock()
	return c.tc.id != ""
}

// declarer is a client that can say which features it declared
// (sessionClient, and roundTrip through it).
type declarer interface{ declared(feature string) bool }

// viaTask asks question through the task: nil and an error when the
// client did not declare feature.
func (c taskClient) viaTask(ctx context.Context, feature, key string, question mcp.InputRequest, fits func(mcp.InputResponse) bool) (mcp.InputResponse, error) {
	if d, ok := c.inner.(declarer); !ok || !d.declared(feature) {
		return nil, connector.Unsupported(feature)
	}
	return c.tc.await(ctx, feature, key, question, fits)
}

// Elicit implements callinfo.Client.
func (c taskClient) Elicit(ctx context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	if !c.isTask() {
		return c.inner.Elicit(ctx, req)
	}
	schema := req.RequestedSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	a, err := c.viaTask(ctx, connector.FeatureElicitation, req.Key, &mcp.ElicitParams{Mode: "form", Message: req.Message, RequestedSchema: schema},
		func(a mcp.InputResponse) bool { _, ok := a.(*mcp.ElicitResult); return ok })
	if err != nil {
		return connector.ElicitResult{}, err
	}
	return elicitAnswer(a.(*mcp.ElicitResult))
}

// CreateMessage implements callinfo.Client.
func (c taskClient) CreateMessage(ctx context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	if !c.isTask() {
		return c.inner.CreateMessage(ctx, req)
	}
	p, err := sampleParams(req)
	if err != nil {
		return connector.SampleResult{}, err
	}
	a, err := c.viaTask(ctx, connector.FeatureSampling, "", p, func(a mcp.InputResponse) bool {
		r, ok := a.(*mcp.CreateMessageWithToolsResult)
		return ok && len(r.Content) == 1
	})
	if err != nil {
		return connector.SampleResult{}, err
	}
	r := a.(*mcp.CreateMessageWithToolsResult)
	return sampleAnswer(&mcp.CreateMessageResult{Content: r.Content[0], Model: r.Model, Role: r.Role, StopReason: r.StopReason})
}

// ListRoots implements callinfo.Client.
func (c taskClient) ListRoots(ctx context.Context) (connector.RootsResult, error) {
	if !c.isTask() {
		return c.inner.ListRoots(ctx)
	}
	a, err := c.viaTask(ctx, connector.FeatureRoots, "", &mcp.ListRootsParams{}, func(a mcp.InputResponse) bool {
		_, ok := a.(*mcp.ListRootsResult)
		return ok
	})
	if err != nil {
		return connector.RootsResult{}, err
	}
	return rootsAnswer(a.(*mcp.ListRootsResult)), nil
}

// pendingInput is a question a task's call waits on.
type pendingInput struct {
	question mcp.InputRequest
	fits     func(mcp.InputResponse) bool
	answer   chan mcp.InputResponse // buffered: one answer
}

// await puts a question to the task's client and waits for its answer,
// the end of the call, or the end of the task.
func (tc *taskCall) await(ctx context.Context, feature, key string, question mcp.InputRequest, fits func(mcp.InputResponse) bool) (mcp.InputResponse, error) {
	tc.mu.Lock()
	if tc.asked == nil {
		tc.asked, tc.pending = map[string]int{}, map[string]*pendingInput{}
	}
	tc.asked[feature]++
	if key == "" {
		key = placeKey(feature, tc.asked[feature])
	}
	if _, dup := tc.pending[key]; dup {
		tc.mu.Unlock()
		return nil, &connector.ClientError{Kind: connector.ClientRefused, Feature: feature,
			Message: fmt.Sprintf("a question under the key %q is already waiting for the client", key)}
	}
	p := &pendingInput{question: question, fits: fits, answer: make(chan mcp.InputResponse, 1)}
	tc.pending[key] = p
	ok := tc.publishLocked()
	tc.mu.Unlock()
	if !ok {
		tc.mu.Lock()
		delete(tc.pending, key)
		tc.publishLocked()
		tc.mu.Unlock()
		return nil, &connector.ClientError{Kind: connector.ClientRefused, Feature: feature,
			Message: "the question does not fit in the room this client has left in the task store"}
	}
	select {
	case a := <-p.answer:
		return a, nil
	case <-ctx.Done():
		tc.mu.Lock()
		delete(tc.pending, key)
		tc.mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// publishLocked shows the task's outstanding questions (input_required),
// or none (working); false when the store had no room for them.
func (tc *taskCall) publishLocked() bool {
	if len(tc.pending) == 0 {
		tc.store.Resumed(tc.id)
		return true
	}
	reqs := mcp.InputRequestMap{}
	for k, p := range tc.pending {
		reqs[k] = p.question
	}
	b, err := json.Marshal(reqs)
	if err != nil {
		return false
	}
	return tc.store.InputRequired(tc.id, b)
}

// deliver hands a tasks/update's answers to the questions waiting under
// their keys. An answer for a key not outstanding, or not of its
// question's kind, is ignored ("Task Update Requests"); the task stays
// input_required until every question has its answer.
func (tc *taskCall) deliver(responses map[string]json.RawMessage) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	changed := false
	for k, raw := range responses {
		p, ok := tc.pending[k]
		if !ok {
			continue
		}
		var one mcp.InputResponseMap
		if err := json.Unmarshal([]byte(`{"a":`+string(raw)+`}`), &one); err != nil || one["a"] == nil || !p.fits(one["a"]) {
			continue
		}
		p.answer <- one["a"]
		delete(tc.pending, k)
		changed = true
	}
	if changed {
		tc.publishLocked()
	}
}

var _ callinfo.Client = taskClient{}

// startTask starts the call of a tools/call that may become a task. A
// call of a connector tool is first admitted to the connector's
// instances (admission.AcquireFunc), with no goroutine while it waits:
// run starts once it holds an instance, which it then hands to the invoke
// path (invoke.WithInstance). A task waiting for an instance therefore
// holds no goroutine, whose stack would be most of what it holds
// (BenchmarkWaitingTaskMemory). A call answered from a kept result needs
// no instance and is not admitted here; nor is a host tool (its calls
// are admitted on the platforms they reach). A call whose context ends
// while it waits runs without an instance: the invoke path sees the ended
// context and answers as for any call that did.
func (s *Server) startTask(ctx context.Context, tc *taskCall, owner string, req mcp.Request, run func(ctx context.Context, release func())) {
	none := func() {}
	p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
	var e *toolEntry
	if ok {
		e = s.exposedTool(p.Name)
	}
	if e == nil || e.platform.Admission == nil || s.o.Engine.Kept(e.t, p.Arguments) {
		go run(ctx, none)
		return
	}
	adm := e.platform.Admission
	tc.behind = e.platform.Behind
	adm.AcquireFunc(ctx, owner, tc.instanceTicket, func(release func(), err error) {
		tc.admitted()
		if err != nil {
			run(ctx, none)
			return
		}
		run(invoke.WithInstance(ctx, adm, release), release)
	})
}

// calledTool is the connector tool a tools/call names, or nil.
func (s *Server) calledTool(req mcp.Request) *toolEntry {
	p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
	if !ok {
		return nil
	}
	return s.exposedTool(p.Name)
}

// taskRequired is the error of a call to a tool that runs only as a task
// (connector.TaskRequired) from a client that did not declare the
// extension: MissingRequiredClientCapability (-32021) naming it.
func taskRequired(name string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}}})
	return &jsonrpc.Error{Code: tasks.CodeMissingCapability, Data: data, Message: fmt.Sprintf(
		"Missing required client capability: %s runs only as a task; declare the extension %s in the request's _meta %s",
		name, tasks.Extension, tasks.MetaClientCapabilities)}
}

// exposedTool is the connector tool clients call name, or nil.
func (s *Server) exposedTool(name string) *toolEntry {
	for _, e := range s.tools {
		if e.name == name {
			return e
		}
	}
	return nil
}
