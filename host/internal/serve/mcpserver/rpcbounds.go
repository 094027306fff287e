package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
)

// boundErrors keeps the go-sdk's own JSON-RPC errors short as well: they
// can quote what the client sent (a tools/call for a tool that does not
// exist names it whole). An unknown tool's name is cut and the error
// points at tools/list; any other JSON-RPC error message is cut at
// invoke.MaxErrorText with its code kept.
//
// A resource URI holding a control character is refused before the go-sdk
// sees it (invalid params, naming the character): the go-sdk's "Resource
// not found" error quotes the URI into its data with Go's %q, whose \x01
// is no JSON, and the answer that cannot be written ended the sender's
// session half alive (issue 27). Any error data that is not valid JSON is
// dropped for the same reason.
func boundErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if err := checkURI(method, req); err != nil {
			return nil, err
		}
		res, err := next(ctx, method, req)
		if err == nil {
			return res, nil
		}
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return res, err
		}
		if len(we.Data) > 0 && !json.Valid(we.Data) {
			we = &jsonrpc.Error{Code: we.Code, Message: we.Message}
			err = we
		}
		if method == "tools/call" && strings.HasPrefix(we.Message, "unknown tool ") {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				return res, &jsonrpc.Error{Code: we.Code, Message: "unknown tool " + invoke.QuoteName(p.Name) + ": tools/list names the tools of this address", Data: we.Data}
			}
		}
		if msg := err.Error(); len(msg) > invoke.MaxErrorText {
			return res, &jsonrpc.Error{Code: we.Code, Message: invoke.ClipText(msg, invoke.MaxErrorText), Data: we.Data}
		}
		return res, err
	}
}

// checkURI refuses a resources/read, resources/subscribe or
// resources/unsubscribe whose URI holds a control character.
func checkURI(method string, req mcp.Request) error {
	var uri string
	switch p := req.GetParams().(type) {
	case *mcp.ReadResourceParams:
		uri = p.URI
	case *mcp.SubscribeParams:
		uri = p.URI
	case *mcp.UnsubscribeParams:
		uri = p.URI
	default:
		return nil
	}
	for i, r := range uri {
		if unicode.IsControl(r) {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
				"%s: the uri holds a control character (%U at byte %d); a resource URI is printable text, as resources/list and resources/templates/list give them",
				method, r, i)}
		}
	}
	return nil
}
