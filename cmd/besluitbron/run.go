package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/besluitbron/besluitbron/host"
)

const usage = `usage: besluitbron <command> [flags]

commands:
  serve          serve MCP over streamable HTTP (and the health checks)
  stdio          serve MCP over stdin/stdout, for desktop clients
  check-config   validate a config file and the connectors it names
  cache          cache stats [--json] | cache clear <connector>: the saved platform caches
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
	case "serve", "stdio", "check-config":
	default:
		fmt.Fprintf(stderr, "besluitbron: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "plugins.toml", "config file")
	addr := fs.String("addr", "", "listen address (overrides server.addr)")
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
	if *addr != "" {
		cfg.Server.Addr = *addr
	}
	// On stdio, stdout carries the protocol: logs go to stderr only.
	logger := newLogger(stderr, cfg.Log.Level, cfg.Log.Format)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := host.New(ctx, &host.Options{Config: cfg, Version: version, Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "besluitbron: %v\n", err)
		return 1
	}
	defer h.Close(context.Background())
	switch cmd {
	case "check-config":
		fmt.Fprintf(stdout, "config ok: %d connector(s): %s\n", len(h.Connectors()), strings.Join(h.Connectors(), ", "))
		// The modules' digests, ready to paste: a pinned module that
		// changes on disk stops the start instead of running.
		fmt.Fprintf(stdout, "\nTo pin the modules (a changed file then stops the start), add each sha256 line under its table in %s:\n", *configPath)
		digests := h.ModuleDigests()
		for _, id := range h.Connectors() {
			fmt.Fprintf(stdout, "\n  [connectors.%s]\n  sha256 = %q\n", id, digests[id])
		}
		return 0
	case "stdio":
		if err := h.ServeStdio(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
		return 0
	}
	if err := h.ListenAndServe(ctx); err != nil {
		fmt.Fprintf(stderr, "besluitbron: %v\n", err)
		return 1
	}
	return 0
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
