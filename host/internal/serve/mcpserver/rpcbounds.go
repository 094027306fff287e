package mcpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// boundErrors keeps the go-sdk's own JSON-RPC errors short as well: they
// can quote what the client sent (a tools/call for a tool that does not
// exist names it whole). An unknown tool's name is cut and the error
// points at tools/list; any other JSON-RPC error message is cut at
// MaxErrorText with its code kept.
func boundErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil {
			return res, nil
		}
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return res, err
		}
		if method == "tools/call" && strings.HasPrefix(we.Message, "unknown tool ") {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				return res, &jsonrpc.Error{Code: we.Code, Message: "unknown tool " + quoteName(p.Name) + ": tools/list names the tools of this address", Data: we.Data}
			}
		}
		if msg := err.Error(); len(msg) > MaxErrorText {
			return res, &jsonrpc.Error{Code: we.Code, Message: clipText(msg, MaxErrorText), Data: we.Data}
		}
		return res, err
	}
}
