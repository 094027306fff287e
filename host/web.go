package host

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/besluitbron/besluitbron/host/internal/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/web"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// webRoutes adds the search page, the document view and the Laadstatus
// pages.
func (h *Host) webRoutes(mux *http.ServeMux) { h.web.Routes(mux) }

// newWeb builds the pages' server (once, from statusTools during New: every
// Handler shares it, and with it the pages' running calls). Its calls go
// through the MCP server's internal path (Invoke), the server being
// created after it.
func (h *Host) newWeb() *web.Server {
	invoke := func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) mcpserver.Answer {
		return h.mcp.Invoke(ctx, info, tool, args)
	}
	o := web.Options{Invoke: invoke, Version: h.o.Version, Logger: h.log, Registerer: h.registry}
	if h.lstatus != nil {
		o.Status = h.lstatus.Snapshot
	}
	if h.cl.c != nil {
		o.Cluster = h.clusterLines
	}
	for _, p := range h.platforms {
		if wp, ok := webPlatform(p); ok {
			o.Platforms = append(o.Platforms, wp)
		}
	}
	return web.New(o)
}

// webPlatform describes a platform to the pages from its manifest: which
// search arguments exist, and how its document tool takes an id.
func webPlatform(p *platform) (web.Platform, bool) {
	tool := func(name string) (connector.Tool, bool) {
		i := slices.IndexFunc(p.manifest.Tools, func(t connector.Tool) bool { return t.Name == name })
		if i < 0 {
			return connector.Tool{}, false
		}
		return p.manifest.Tools[i], true
	}
	search, ok := tool("search")
	if !ok {
		return web.Platform{}, false
	}
	var ss schemaInfo
	_ = json.Unmarshal(search.InputSchema, &ss)
	wp := web.Platform{ID: p.id, Title: p.manifest.Title, TitleNL: p.manifest.TitleNL, Description: p.manifest.Description, DescriptionNL: p.manifest.DescriptionNL, SearchTool: p.id + "_search",
		Query: ss.has("query"), Dates: ss.has("date_from") && ss.has("date_to"), Offset: ss.has("offset"), MaxLimit: ss.max("limit")}
	// The manifest's organisation choice, when its search has the
	// argument (validation already checked the list tool exists).
	if mf := p.manifest.SearchFilter; mf != nil && ss.has(mf.Arg) {
		f := web.Filter{Arg: mf.Arg, LabelNL: mf.LabelNL, LabelEN: mf.LabelEN}
		if _, ok := tool(mf.ListTool); ok && mf.ListTool != "" {
			f.ListTool = p.id + "_" + mf.ListTool
		}
		wp.Filter = &f
	}
	if doc, ok := tool("get_document"); ok {
		var ds schemaInfo
		_ = json.Unmarshal(doc.InputSchema, &ds)
		if len(ds.Required) > 0 {
			wp.DocumentTool, wp.DocumentArg = p.id+"_get_document", ds.Required[0]
			if c, ok := ds.Properties["category"]; ok {
				wp.DocumentCategories = c.Enum
			}
		}
	}
	return wp, true
}

// schemaInfo is the part of a tool's JSON schema the pages read.
type schemaInfo struct {
	Properties map[string]struct {
		Enum    []string `json:"enum"`
		Maximum *int     `json:"maximum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func (s schemaInfo) has(name string) bool { _, ok := s.Properties[name]; return ok }

func (s schemaInfo) max(name string) int {
	if p, ok := s.Properties[name]; ok && p.Maximum != nil {
		return *p.Maximum
	}
	return 0
}
