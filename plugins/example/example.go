package example

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Plugin returns the connector.
func Plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: connector.Manifest{
			ID:           "example",
			Version:      "1.0.0",
			Title:        "Example (OpenBesluitvorming statistics)",
			Description:  "A minimal connector to copy: OpenBesluitvorming's document and organisation counts.",
			BaseURL:      "https://openbesluitvorming.nl",
			AllowedHosts: []string{"openbesluitvorming.nl"},
			// The platform's limit and the host it belongs to: the host's
			// scheduler keeps every request to openbesluitvorming.nl
			// under it, this connector's and obv's together.
			Services: []connector.Service{{Name: "api", Units: 60, Per: connector.Duration(time.Minute), Host: "openbesluitvorming.nl"}},
			// The platform caches its statistics for an hour; so do we.
			CacheClasses: []connector.CacheClass{{Name: "stats", TTL: connector.Duration(time.Hour)}},
			Tools: []connector.Tool{{
				Name:        "stats",
				Description: "How many documents and organisations OpenBesluitvorming holds.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
				CostNote:    "1 unit of a 60-per-minute limit; cached for an hour.",
			}},
		},
		Tools: map[string]sdk.ToolFunc{"stats": stats},
	}
}

// Stats is the tool's normalised result.
type Stats struct {
	Platform      string `json:"platform"`
	Documents     int    `json:"documents"`
	Organizations int    `json:"organizations"`
}

func stats(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
	var none struct{}
	if err := sdk.DecodeArgs(args, &none); err != nil {
		return nil, err
	}
	// The URL is built on the manifest's base URL; an admin's base_url
	// override is applied by the host.
	resp, err := sdk.Get(ctx, h, "https://openbesluitvorming.nl/api/stats", "api", 1, "stats")
	if err != nil {
		return nil, fmt.Errorf("stats: %w", err)
	}
	var body struct {
		DocumentCount     *int `json:"documentCount"`
		OrganizationCount *int `json:"organizationCount"`
	}
	if err := sdk.DecodeJSON(resp, "stats", &body); err != nil {
		return nil, err
	}
	if body.DocumentCount == nil || body.OrganizationCount == nil {
		return nil, fmt.Errorf("stats: the platform's response lacks documentCount or organizationCount")
	}
	return Stats{Platform: "obv", Documents: *body.DocumentCount, Organizations: *body.OrganizationCount}, nil
}
