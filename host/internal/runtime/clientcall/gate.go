package clientcall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// DefaultMaxWait bounds one request's wait for its answer: a person
// reading a question and choosing, or a client's model writing.
const DefaultMaxWait = 5 * time.Minute

// Options configure a connector's gate.
type Options struct {
	// ID is the connector's id, named in the errors.
	ID string
	// Grant are the features the admin granted the connector (the host
	// has checked them against the manifest and the known names).
	Grant []string
	// Client returns the MCP client of the call in ctx, or nil when it has
	// none. It is called once per request, before the grant is checked:
	// the host records there that the call's result depends on its client.
	// Nil means the call's connector.Host is asked whether it is a
	// connector.Client.
	Client func(ctx context.Context) connector.Client
	// MaxWait bounds one request's wait (default DefaultMaxWait).
	MaxWait time.Duration
}

// Gate checks and forwards one connector's client feature requests.
type Gate struct {
	o       Options
	granted map[string]bool
}

// New returns the gate of one connector.
func New(o Options) *Gate {
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	g := &Gate{o: o, granted: map[string]bool{}}
	for _, f := range o.Grant {
		g.granted[f] = true
	}
	return g
}

// Granted reports whether feature is granted.
func (g *Gate) Granted(feature string) bool { return g.granted[feature] }

// ask runs one request of feature: the grant, the client, the bounded
// wait with the call's deadline stopped, and the error as the connector
// sees it (always a *connector.ClientError).
func (g *Gate) ask(ctx context.Context, h connector.Host, feature string, do func(context.Context, connector.Client) error) *connector.ClientError {
	var c connector.Client
	if g.o.Client != nil {
		c = g.o.Client(ctx)
	} else {
		c, _ = h.(connector.Client)
	}
	switch {
	case !g.granted[feature]:
		return connector.NotGranted(feature, g.o.ID)
	case c == nil:
		return connector.NoClient(feature)
	}
	resume := Pause(ctx)
	defer resume()
	wctx, cancel := context.WithTimeout(ctx, g.o.MaxWait)
	defer cancel()
	err := do(wctx, c)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return &connector.ClientError{Kind: connector.ClientFailed, Feature: feature, Message: fmt.Sprintf("%s: the call ended while waiting for the client: %v", feature, ctx.Err())}
	case errors.Is(wctx.Err(), context.DeadlineExceeded):
		return &connector.ClientError{Kind: connector.ClientFailed, Feature: feature, Message: fmt.Sprintf("%s: no answer from the client within %s", feature, g.o.MaxWait)}
	}
	return connector.AsClientError(feature, err)
}

// Elicit forwards an elicitation of the connector's call (h is the call's
// host) to the call's client.
func (g *Gate) Elicit(ctx context.Context, h connector.Host, req connector.ElicitRequest) (connector.ElicitResult, error) {
	if err := req.Validate(); err != nil {
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureElicitation, Message: err.Error()}
	}
	var res connector.ElicitResult
	if err := g.ask(ctx, h, connector.FeatureElicitation, func(ctx context.Context, c connector.Client) (err error) {
		res, err = c.Elicit(ctx, req)
		return err
	}); err != nil {
		return connector.ElicitResult{}, err
	}
	switch res.Action {
	case connector.ElicitAccept, connector.ElicitDecline, connector.ElicitCancel:
	default:
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation,
			Message: fmt.Sprintf("elicitation: the client answered action %q: want accept, decline or cancel", clip(res.Action, 40))}
	}
	return res, nil
}

// CreateMessage forwards a sampling request.
func (g *Gate) CreateMessage(ctx context.Context, h connector.Host, req connector.SampleRequest) (connector.SampleResult, error) {
	if err := req.Validate(); err != nil {
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureSampling, Message: err.Error()}
	}
	var res connector.SampleResult
	if err := g.ask(ctx, h, connector.FeatureSampling, func(ctx context.Context, c connector.Client) (err error) {
		res, err = c.CreateMessage(ctx, req)
		return err
	}); err != nil {
		return connector.SampleResult{}, err
	}
	return res, nil
}

// ListRoots forwards roots/list.
func (g *Gate) ListRoots(ctx context.Context, h connector.Host) (connector.RootsResult, error) {
	var res connector.RootsResult
	if err := g.ask(ctx, h, connector.FeatureRoots, func(ctx context.Context, c connector.Client) (err error) {
		res, err = c.ListRoots(ctx)
		return err
	}); err != nil {
		return connector.RootsResult{}, err
	}
	if res.Roots == nil {
		res.Roots = []connector.Root{}
	}
	return res, nil
}

// Host is h with the gate's client features: what a runtime hands a
// connector that runs in the host's process or answers through it. It
// keeps h's optional methods (progress, kept texts).
func (g *Gate) Host(h connector.Host) connector.Host {
	return &gatedHost{Host: h, g: g}
}

type gatedHost struct {
	connector.Host
	g *Gate
}

func (h *gatedHost) Elicit(ctx context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	return h.g.Elicit(ctx, h.Host, req)
}

func (h *gatedHost) CreateMessage(ctx context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	return h.g.CreateMessage(ctx, h.Host, req)
}

func (h *gatedHost) ListRoots(ctx context.Context) (connector.RootsResult, error) {
	return h.g.ListRoots(ctx, h.Host)
}

// Progress passes progress on when h reports it.
func (h *gatedHost) Progress(ctx context.Context, done, total float64, msg string) {
	if p, ok := h.Host.(connector.Progresser); ok {
		p.Progress(ctx, done, total, msg)
	}
}

// TextPage reads a kept text when h keeps them; otherwise nothing is kept.
func (h *gatedHost) TextPage(ctx context.Context, key connector.TextKey, n int) (connector.TextPage, bool, error) {
	if ts, ok := h.Host.(connector.TextStore); ok {
		return ts.TextPage(ctx, key, n)
	}
	return connector.TextPage{}, false, nil
}

// PutText keeps a text when h keeps them; otherwise it declines silently,
// as a host without a store does.
func (h *gatedHost) PutText(ctx context.Context, t connector.ExtractedText) error {
	if ts, ok := h.Host.(connector.TextStore); ok {
		return ts.PutText(ctx, t)
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

var (
	_ connector.Client     = (*gatedHost)(nil)
	_ connector.Progresser = (*gatedHost)(nil)
	_ connector.TextStore  = (*gatedHost)(nil)
)
