package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// ToolName is the watches' tool on the unified address.
const ToolName = "besluitbron_watch"

// toolArgs are besluitbron_watch's arguments.
type toolArgs struct {
	Action string `json:"action"`
	Query
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// Tool is besluitbron_watch: create, list and delete watches. The caller
// is the owner as the call's record names it (callinfo.Info.ChargedTo).
func (m *Manager) Tool() invoke.HostTool {
	enum, _ := json.Marshal(m.o.Platforms)
	schema := json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["create", "list", "delete"]},
    "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "create: as besluitbron_search."},
    "platforms": {"type": "array", "items": {"type": "string", "enum": %s}, "uniqueItems": true, "minItems": 1},
    "organization": {"type": "string", "minLength": 2, "maxLength": 200},
    "date_from": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    "date_to": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
    "id": {"type": "string", "minLength": 1, "maxLength": 64, "description": "delete: the watch's id."},
    "secret": {"type": "string", "minLength": 32, "maxLength": 32, "description": "list, delete: the secret of a feed address /watch/<secret>.atom."}
  },
  "required": ["action"],
  "additionalProperties": false
}`, enum))
	return invoke.HostTool{
		Name:  ToolName,
		Title: "Follow a search (watch)",
		Description: "Follow a search and learn what is new. create (query; platforms, organization, date_from, date_to as besluitbron_search) answers the resource besluitbron://watch/<id> and an Atom feed address. " +
			"Subscribe to the resource to be told of new results; read it (?since=<RFC 3339>) for those first seen since, newest first. " +
			"list: your watches and how fresh each is; delete: by id or secret. Only the creating client, or whoever has the feed address, may reach a watch.\n\n" +
			"Cost: no platform call. The server checks each search itself, at most every " + m.o.MinInterval.String() +
			", one check for identical watches, all within " + fmt.Sprintf("%g%%", m.o.Share*100) + " of each platform's limit (less often when many).",
		InputSchema: schema,
		Handler:     m.handle,
	}
}

// handle runs one besluitbron_watch call.
func (m *Manager) handle(_ context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
	free := callinfo.Summary{Cache: callinfo.Bypass}
	fail := func(format string, args ...any) invoke.Answer {
		return invoke.Failed(ToolName+": "+fmt.Sprintf(format, args...), free)
	}
	var a toolArgs
	dec := json.NewDecoder(bytes.NewReader(invoke.AbsentArgs(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return fail("invalid arguments: %v", err)
	}
	caller := info.ChargedTo()
	extra := func(allowed ...string) error {
		given := map[string]bool{"query": a.Query.Query != "", "platforms": a.Platforms != nil, "organization": a.Organization != "",
			"date_from": a.DateFrom != "", "date_to": a.DateTo != "", "id": a.ID != "", "secret": a.Secret != ""}
		for _, k := range []string{"query", "platforms", "organization", "date_from", "date_to", "id", "secret"} {
			if given[k] && !contains(allowed, k) {
				return fmt.Errorf("argument %q is not taken by action %s (it takes: %s)", k, a.Action, strings.Join(allowed, ", "))
			}
		}
		return nil
	}
	var out any
	switch a.Action {
	case "create":
		if err := extra("query", "platforms", "organization", "date_from", "date_to"); err != nil {
			return fail("%v", err)
		}
		w, err := m.Create(caller, a.Query)
		if err != nil {
			return fail("%v", err)
		}
		m.mu.Lock()
		v := m.view(w, w.Created, false)
		m.mu.Unlock()
		out = struct {
			View
			Secret string `json:"secret"`
			Next   string `json:"next"`
		}{v, w.Secret, "Subscribe to " + w.URI() + " (resources/subscribe) to be told of new results, and read it for them. " +
			"The feed address " + w.Feed() + " (on this server's address) is for a feed reader and is the watch's key: whoever has it can read and delete the watch, so share it only on purpose. " +
			"The first check records what the search finds now; what comes after is new."}
	case "list":
		if err := extra("secret"); err != nil {
			return fail("%v", err)
		}
		ws := m.List(caller, a.Secret)
		m.mu.Lock()
		views := []View{}
		for _, w := range ws {
			views = append(views, m.view(w, w.Created, false))
		}
		m.mu.Unlock()
		out = struct {
			Watches []View `json:"watches"`
			Note    string `json:"note"`
		}{views, fmt.Sprintf("%d watch(es) of yours. Each is checked at most every %s; new_count counts the results first seen since it was created.", len(views), m.o.MinInterval)}
	case "delete":
		if err := extra("id", "secret"); err != nil {
			return fail("%v", err)
		}
		if a.ID == "" && a.Secret == "" {
			return fail("action delete needs the watch's id, or its feed's secret")
		}
		w, err := m.Delete(caller, a.ID, a.Secret)
		if err != nil {
			return fail("%v", err)
		}
		out = map[string]string{"deleted": w.ID, "uri": w.URI(), "note": "Its feed address no longer answers."}
	case "":
		return fail("argument \"action\": required: create, list or delete")
	default:
		return fail("argument \"action\": %q is not an action (create, list or delete)", clip(a.Action, 40))
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fail("encoding the answer: %v", err)
	}
	return invoke.JSONAnswer(b, free)
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
