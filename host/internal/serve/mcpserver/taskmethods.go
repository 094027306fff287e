package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
)

// taskParams are the params of tasks/get and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// updateParams are the params of tasks/update.
type updateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// taskResult is a Task on the wire: the CreateTaskResult of a tools/call
// (resultType "task") and the answer of tasks/get (resultType
// "complete"), with the result or error of a finished one inlined.
type taskResult struct {
	mcp.ResultBase
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          int64           `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *taskError      `json:"error,omitempty"`
	// InputRequests are an input_required task's questions.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// taskError is a failed task's JSON-RPC error.
type taskError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// ackResult is the empty acknowledgement of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

func taskWire(t tasks.Task, resultType string) *taskResult {
	r := &taskResult{ResultType: resultType, TaskID: t.ID, Status: t.Status, StatusMessage: t.Message,
		CreatedAt: t.Created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.Updated.UTC().Format(time.RFC3339Nano),
		TTLMs: t.TTL.Milliseconds(), PollIntervalMs: t.Poll.Milliseconds()}
	switch t.Status {
	case tasks.Completed:
		r.Result = t.Result
	case tasks.Failed:
		r.Error = &taskError{Code: t.ErrCode, Message: t.ErrMessage}
	case tasks.InputRequired:
		r.InputRequests = t.InputRequests
	}
	return r
}

// taskExtraKey carries a tasks/ request's extra from taskCalls to its
// handler (the go-sdk hands a custom method's handler its params only).
type taskExtraKey struct{}

// addTasks registers the extension's methods on srv, when tasks are on.
func (s *Server) addTasks(srv *mcp.Server) error {
	if s.o.Tasks == nil {
		return nil
	}
	return errors.Join(
		mcp.AddReceivingCustomMethod(srv, methodTasksGet, s.tasksGet),
		mcp.AddReceivingCustomMethod(srv, methodTasksUpdate, s.tasksUpdate),
		mcp.AddReceivingCustomMethod(srv, methodTasksCancel, s.tasksCancel),
	)
}

// taskOwner checks a tasks/ request: the client declared the extension
// (else -32021, the extension's "Protocol Errors") and named a task; it
// returns who the request is charged to, the owner its task must have.
func taskOwner(ctx context.Context, method string, ss *mcp.ServerSession, meta map[string]any, id string) (string, error) {
	if !tasksDeclared(meta, ss) {
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}}})
		return "", &jsonrpc.Error{Code: tasks.CodeMissingCapability, Data: data, Message: fmt.Sprintf(
			"Missing required client capability: %s is for clients that declare the extension %s (in the request's _meta %s, or in initialize's capabilities)",
			method, tasks.Extension, tasks.MetaClientCapabilities)}
	}
	if id == "" {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": params.taskId is missing; give the taskId the tools/call answered with"}
	}
	extra, _ := ctx.Value(taskExtraKey{}).(*mcp.RequestExtra)
	// A 2026-07-28 request names its task in the Mcp-Name header too, for
	// routing (the extension's "Streamable HTTP: Routing Headers"); a
	// header that disagrees with the body is refused as the transport's
	// "Server Validation" has it (HeaderMismatch), so a load balancer
	// routing by it and the server never act on two different tasks.
	if extra != nil && extra.Header != nil && extra.Header.Get(inbound.ProtocolVersionHeader) >= inbound.FirstModernVersion {
		if n := extra.Header.Get("Mcp-Name"); n != "" {
			if v, ok := inbound.DecodeHeaderValue(n); !ok || v != id {
				return "", &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: fmt.Sprintf(
					"%s: the Mcp-Name header %s does not match params.taskId %s", method, invoke.QuoteName(n), invoke.QuoteName(id))}
			}
		}
	}
	return sessionOf(ctx, ss, extra), nil
}

// notFound is the error of a task id this client has no task under.
func notFound(method, id string, err error) error {
	if errors.Is(err, tasks.ErrNotFound) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: failed to retrieve task %s: %v", method, invoke.QuoteName(id), err)}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("%s: %v", method, err)}
}

func (s *Server) tasksGet(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*taskResult, error) {
	owner, err := taskOwner(ctx, methodTasksGet, ss, p.GetMeta(), p.TaskID)
	if err != nil {
		return nil, err
	}
	if v, ok := s.taskRuns.Load(p.TaskID); ok {
		// A task waiting for an instance has its place numbered now.
		// (Another client's id finds its call here too; refreshing it
		// changes nothing that client could read: Get checks the owner.)
		v.(*taskCall).refresh()
	}
	t, err := s.o.Tasks.Get(ctx, owner, p.TaskID)
	if err != nil {
		return nil, notFound(methodTasksGet, p.TaskID, err)
	}
	return taskWire(t, "complete"), nil
}

// tasksUpdate hands a task's call the client's answers to its questions
// (taskCall.deliver) and acknowledges with an empty result ("Task Update
// Requests"): the task's new state is for the next tasks/get. Answers for
// keys not outstanding are ignored. A task held by another replica has
// no call here to answer; its answers are ignored the same way.
func (s *Server) tasksUpdate(ctx context.Context, ss *mcp.ServerSession, p *updateParams) (*ackResult, error) {
	owner, err := taskOwner(ctx, methodTasksUpdate, ss, p.GetMeta(), p.TaskID)
	if err != nil {
		return nil, err
	}
	if _, err := s.o.Tasks.Get(ctx, owner, p.TaskID); err != nil {
		return nil, notFound(methodTasksUpdate, p.TaskID, err)
	}
	if v, ok := s.taskRuns.Load(p.TaskID); ok {
		v.(*taskCall).deliver(p.InputResponses)
	}
	return &ackResult{ResultType: "complete"}, nil
}

// tasksCancel ends a task's call: its context is cancelled, and the
// acknowledgement waits until the call has returned, so that when the
// client reads it the call has left the fair queue (the scheduler lets a
// cancelled call go in the same instant) and can no longer be sent to
// the platform. A task whose call runs on another replica is cancelled
// there (with Redis on: tasks.Forwarder), with the same acknowledgement.
func (s *Server) tasksCancel(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	owner, err := taskOwner(ctx, methodTasksCancel, ss, p.GetMeta(), p.TaskID)
	if err != nil {
		return nil, err
	}
	if err := s.cancelTask(ctx, owner, p.TaskID); err != nil {
		return nil, notFound(methodTasksCancel, p.TaskID, err)
	}
	return &ackResult{ResultType: "complete"}, nil
}

// cancelTask cancels owner's task id and returns once its call has
// returned, here or on the replica holding it.
func (s *Server) cancelTask(ctx context.Context, owner, id string) error {
	local, err := s.o.Tasks.Cancel(ctx, owner, id, errTaskCancelled)
	if err != nil {
		return err
	}
	if local {
		s.awaitCall(ctx, id)
	}
	return nil
}

// awaitCall waits until the call of task id, if it runs here, has
// returned, or ctx ends.
func (s *Server) awaitCall(ctx context.Context, id string) {
	if v, ok := s.taskRuns.Load(id); ok {
		select {
		case <-v.(*taskCall).ended:
		case <-ctx.Done():
		}
	}
}

// CancelForwarded cancels owner's task id for another replica, which
// received the tasks/cancel (upstream/cluster's TaskRecords.ServeCancels
// calls it): found once the call, which ran here, has returned (a task
// already finished is found too, and stays as it is); not found when this
// replica holds no such task of owner. It never forwards again.
func (s *Server) CancelForwarded(ctx context.Context, owner, id string) (found bool, err error) {
	if s.o.Tasks == nil {
		return false, nil
	}
	found, err = s.o.Tasks.CancelHere(owner, id, errTaskCancelled)
	if errors.Is(err, tasks.ErrNotFound) {
		return false, nil
	}
	if found {
		s.awaitCall(ctx, id)
	}
	return found, err
}
