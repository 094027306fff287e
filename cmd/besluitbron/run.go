package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/besluitbron/besluitbron/host"
)

const usage = `usage: besluitbron <command> [flags]

commands:
  serve          serve MCP over streamable HTTP (and the health checks)
  stdio          serve MCP over stdin/stdout, for desktop clients
  check-config   validate a config file and load the connectors it names, as
                 serve would; prints a line per connector (-v: the log too)
  cache          cache stats [--json] | cache clear <connector>: the saved platform caches
  new-key        new-key <name>: a fresh API key for a named client, and its plugins.toml lines
  version        print the version
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, version)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	case "cache":
		return runCache(args, stdout, stderr)
	case "new-key":
		return runNewKey(args, stdout, stderr)
	case "serve", "stdio", "check-config":
	default:
		fmt.Fprintf(stderr, "besluitbron: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "plugins.toml", "config file")
	var addr *string
	if cmd != "stdio" {
		addr = fs.String("addr", "", "listen address host:port (overrides server.addr)")
	}
	verbose := false
	if cmd == "check-config" {
		fs.BoolVar(&verbose, "v", false, "also print the log of loading the connectors")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "besluitbron %s: unexpected argument %q\n", cmd, fs.Arg(0))
		return 2
	}
	cfg, err := host.LoadConfig(*configPath, nil)
	if err != nil {
		fmt.Fprintf(stderr, "besluitbron: %v\n", err)
		return 1
	}
	// Refused before the address is bound: nothing to serve is the
	// admin's first problem, whatever holds the port.
	if err := cfg.CheckServable(); err != nil {
		fmt.Fprintf(stderr, "besluitbron: %v\n", err)
		return 1
	}
	if addr != nil && *addr != "" {
		if err := host.CheckAddr(*addr); err != nil {
			fmt.Fprintf(stderr, "besluitbron: --addr %v\n", err)
			return 2
		}
		cfg.Server.Addr = *addr
	}
	// On stdio, stdout carries the protocol: logs go to stderr only.
	level := cfg.Log.Level
	if cmd == "check-config" && !verbose {
		// check-config's answer is its own summary on stdout; the
		// loading log (a line per connector, per shared quota, …) would
		// bury it. Warnings and errors still show.
		level = quieter(level, "warn")
	}
	logger := newLogger(stderr, level, cfg.Log.Format)
	for _, w := range cfg.Warnings { // variables meant for us but not read
		logger.Warn(w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var ln net.Listener
	if cmd == "serve" {
		// The address first: a port in use fails the start at once,
		// not after every connector has loaded.
		if ln, err = host.Listen(cfg.Server.Addr); err != nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
		defer ln.Close()
	}
	opts := &host.Options{Config: cfg, Version: version, Logger: logger}
	if cmd == "serve" {
		// Served while the connectors load: /healthz answers at once and
		// /readyz counts them (a first start compiles every module, a
		// minute and more on two cores); Serve returns a load error.
		h, err := host.Open(ctx, opts)
		if err != nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
		defer h.Close(context.Background())
		if err := h.Serve(ctx, ln); err != nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
		return 0
	}
	h, err := host.New(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "besluitbron: %v\n", err)
		return 1
	}
	defer h.Close(context.Background())
	switch cmd {
	case "check-config":
		if err := printCheck(ctx, stdout, *configPath, cfg.Server.Addr, h); err != nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
		return 0
	case "stdio":
		if err := h.ServeIO(ctx, stdin, stdout); err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
	}
	return 0
}

// printCheck is check-config's answer: a line per connector (id, module,
// tools, quotas, the client features it asked for and was granted, and
// the sha256 line to paste under its table to pin the
// module: a pinned module that changes on disk then stops the start),
// the start's warnings, then "config OK" with the number of tools
// /mcp/unified/v1 lists, as a client's tools/list does (the host's own
// besluitbron_* tools included).
func printCheck(ctx context.Context, w io.Writer, configPath, addr string, h *host.Host) error {
	listed, err := h.UnifiedTools(ctx)
	if err != nil {
		return err
	}
	own := 0
	for _, name := range listed {
		if strings.HasPrefix(name, "besluitbron_") {
			own++
		}
	}
	sums := h.Summary()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "connector\tmodule\ttools\tupstream quotas\tclient features\tpin (under [connectors.<id>])")
	tools := 0
	for _, s := range sums {
		n := plural(s.Tools, "tool")
		if s.Unified != s.Tools {
			n += fmt.Sprintf(" (%d on unified)", s.Unified)
		}
		tools += s.Tools
		mod := s.Module
		if s.Runtime != "wasm" {
			mod += " (" + s.Runtime + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\tsha256 = %q\n", s.ID, mod, n, quotasText(s.Quotas), s.ClientFeatures, s.SHA256)
	}
	tw.Flush()
	for _, warning := range h.Warnings() {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	for _, line := range []string{h.AuthSummary(), h.TracingSummary()} {
		if line != "" {
			fmt.Fprintln(w, line)
		}
	}
	// The address is not bound (a running server may hold it), only
	// tried: a busy one is worth knowing before serve.
	if ln, err := host.Listen(addr); err != nil {
		fmt.Fprintf(w, "note: %v (fine if that is this server, running)\n", err)
	} else {
		ln.Close()
	}
	fmt.Fprintf(w, "config OK: %s, %s with %s; /mcp/unified/v1 lists %s (%d of them BesluitBron's own besluitbron_*), serving on %s. To pin a module, paste its sha256 line under its [connectors.<id>] table.\n",
		configPath, plural(len(sums), "connector"), plural(tools, "tool"), plural(len(listed), "tool"), own, addr)
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// quotasText is "host 60/1m, shared with tk; other-host (no limit)".
func quotasText(qs []host.QuotaSummary) string {
	var parts []string
	for _, q := range qs {
		p := q.Name
		if q.Units == 0 {
			p += " (no limit)"
		} else {
			p += fmt.Sprintf(" %g/%s", q.Units, shortDuration(q.Per))
		}
		if len(q.SharedWith) > 0 {
			p += ", shared with " + strings.Join(q.SharedWith, ", ")
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// shortDuration writes 60s as "1m", 30s as "30s", 1h as "1h".
func shortDuration(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// quieter returns the less verbose of two slog level names.
func quieter(a, b string) string {
	var la, lb slog.Level
	_ = la.UnmarshalText([]byte(a))
	_ = lb.UnmarshalText([]byte(b))
	if la > lb {
		return a
	}
	return b
}

func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
