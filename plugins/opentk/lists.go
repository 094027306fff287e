package opentk

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// OpenTK has no JSON for these lists; its pages render them as tables
// (partials/commissies.html, partials/kamerleden.html). A page that yields
// no rows means the layout changed, which is an error, never an empty list.

var (
	rowRE     = regexp.MustCompile(`(?is)<tr[^>]*>(.*?)</tr>`)
	cellRE    = regexp.MustCompile(`(?is)<td[^>]*>(.*?)</td>`)
	hrefRE    = regexp.MustCompile(`(?i)href\s*=\s*["']([^"']*)["']`)
	sectionRE = regexp.MustCompile(`(?is)<h5[^>]*>(.*?)</h5>`)
)

// cell is one table cell: its text and its first link.
type cell struct{ text, href string }

// tableRows reads the data rows of every table in s (header rows have no
// <td>), each with the text of the nearest <h5> above it.
func tableRows(s string) (rows [][]cell, sections []string) {
	heads := sectionRE.FindAllStringSubmatchIndex(s, -1)
	for _, m := range rowRE.FindAllStringSubmatchIndex(s, -1) {
		var r []cell
		for _, c := range cellRE.FindAllStringSubmatch(s[m[2]:m[3]], -1) {
			x := cell{text: strings.Join(strings.Fields(HTMLText(c[1])), " ")}
			if h := hrefRE.FindStringSubmatch(c[1]); h != nil {
				x.href = html.UnescapeString(h[1])
			}
			r = append(r, x)
		}
		if len(r) == 0 {
			continue
		}
		section := ""
		for _, h := range heads {
			if h[0] < m[0] {
				section = strings.TrimSpace(HTMLText(s[h[2]:h[3]]))
			}
		}
		rows = append(rows, r)
		sections = append(sections, section)
	}
	return rows, sections
}

// linkParam reads a query parameter from a relative link like
// "commissie.html?id=…".
func linkParam(href, name string) string {
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	return u.Query().Get(name)
}

func fetchPage(ctx context.Context, h connector.Host, what, page string) (string, error) {
	resp, err := sdk.Get(ctx, h, strings.TrimRight(BaseURL, "/")+"/"+page, ServicePages, 1, connector.ClassList)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if err := checkStatus(what, resp); err != nil {
		return "", err
	}
	return mainPart(string(resp.Body)), nil
}

func decodeEmpty(raw json.RawMessage) error {
	var a struct{}
	return sdk.DecodeArgs(raw, &a)
}

func listCommittees(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	if err := decodeEmpty(raw); err != nil {
		return nil, err
	}
	page, err := fetchPage(ctx, h, "list_committees", "commissies.html")
	if err != nil {
		return nil, err
	}
	rows, sections := tableRows(page)
	out := sdk.ListResult{Platform: ID, List: "committees", Items: []sdk.Item{}}
	for i, r := range rows {
		if len(r) < 3 {
			return nil, fmt.Errorf("list_committees: OpenTK's committees page changed layout: row %d has %d cells, want 3", i+1, len(r))
		}
		id := linkParam(r[0].href, "id")
		if id == "" || r[0].text == "" {
			return nil, fmt.Errorf("list_committees: OpenTK's committees page changed layout: row %d has no committee link", i+1)
		}
		active := strings.EqualFold(sections[i], "Actief")
		out.Items = append(out.Items, sdk.Item{
			ID: id, Type: "commissie", Title: r[0].text, Date: sdk.ISODate(r[2].text), Organization: "Tweede Kamer",
			URL:   strings.TrimRight(BaseURL, "/") + "/commissie.html?id=" + url.QueryEscape(id),
			Extra: map[string]map[string]any{ID: {"afkorting": r[1].text, "active": active, "latest_activity": r[2].text}},
		})
	}
	if len(out.Items) == 0 {
		return nil, fmt.Errorf("list_committees: OpenTK's committees page has no committee rows; its layout may have changed")
	}
	out.Count = len(out.Items)
	return out, nil
}

func listMembers(ctx context.Context, h connector.Host, raw json.RawMessage) (any, error) {
	if err := decodeEmpty(raw); err != nil {
		return nil, err
	}
	page, err := fetchPage(ctx, h, "list_members", "kamerleden.html")
	if err != nil {
		return nil, err
	}
	rows, _ := tableRows(page)
	out := sdk.ListResult{Platform: ID, List: "members", Items: []sdk.Item{}}
	for i, r := range rows {
		if len(r) < 4 {
			return nil, fmt.Errorf("list_members: OpenTK's members page changed layout: row %d has %d cells, want 4", i+1, len(r))
		}
		if r[3].href == "" && strings.EqualFold(r[3].text, "Vacature") {
			continue
		}
		nummer := linkParam(r[3].href, "nummer")
		if nummer == "" || r[3].text == "" {
			return nil, fmt.Errorf("list_members: OpenTK's members page changed layout: row %d has no member link", i+1)
		}
		extra := map[string]any{"fractie": r[0].text, "seat": r[1].text}
		if r[2].text != "" {
			extra["titels"] = r[2].text
		}
		out.Items = append(out.Items, sdk.Item{
			ID: nummer, Type: "Tweede Kamerlid", Title: r[3].text, Organization: r[0].text,
			URL:   strings.TrimRight(BaseURL, "/") + "/persoon.html?nummer=" + url.QueryEscape(nummer),
			Extra: map[string]map[string]any{ID: extra},
		})
	}
	if len(out.Items) == 0 {
		return nil, fmt.Errorf("list_members: OpenTK's members page has no member rows; its layout may have changed")
	}
	out.Count = len(out.Items)
	return out, nil
}
