package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/besluitbron/besluitbron/internal/platformsim"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// faultFlags collects repeated -fault flags.
type faultFlags []string

func (f *faultFlags) String() string     { return strings.Join(*f, " ") }
func (f *faultFlags) Set(v string) error { *f = append(*f, v); return nil }

// run parses flags, starts the simulator and serves until SIGINT/SIGTERM
// (or, for tests, until the listener given by the -ready hook is closed).
func run(args []string, stdout, stderr io.Writer) int {
	return serve(context.Background(), args, stdout, stderr, nil)
}

// serve is run with a context and a hook that receives the bound address
// once the simulator listens (tests use it; nil in production).
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(addr string)) int {
	fs := flag.NewFlagSet("platformsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9100", "listen address (loopback by default)")
	data := fs.String("data", "testdata", "the repository's testdata directory")
	seed := fs.Uint64("seed", 1, "seed of fractional fault rates")
	logFormat := fs.String("log", "text", "request log format: text or json")
	quiet := fs.Bool("quiet", false, "do not log each request")
	envFile := fs.String("env", "", "once listening, write to this file the BESLUITBRON_ environment overrides that point BesluitBron's connectors at this simulator (shell syntax: set -a; . FILE; set +a), before printing \"serving on\"")
	var faults faultFlags
	fs.Var(&faults, "fault", "inject a fault: <platform>:<key>=<value>,… with keys latency, hang, error_rate, reset_rate, malformed_rate, storm429, retry_after, and for tk refuse_expand (platform drift: HTTP 400 for any $expand of HuidigeDocumentVersie); the platform zoek is zoek.officielebekendmakingen.nl (repeatable)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: platformsim [flags]\n\nServes the seven platforms' APIs from recorded data for an offline BesluitBron.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "platformsim: unexpected arguments %q\n", fs.Args())
		return 2
	}
	var h slog.Handler
	switch *logFormat {
	case "text":
		h = slog.NewTextHandler(stderr, nil)
	case "json":
		h = slog.NewJSONHandler(stderr, nil)
	default:
		fmt.Fprintf(stderr, "platformsim: -log %q: want text or json\n", *logFormat)
		return 2
	}
	if *quiet {
		h = slog.NewTextHandler(io.Discard, nil)
	}
	log := slog.New(h)
	sim, err := platformsim.New(platformsim.Options{DataDir: *data, Logger: log, Seed: *seed})
	if err != nil {
		fmt.Fprintf(stderr, "platformsim: %v (run from the repository root or pass -data)\n", err)
		return 1
	}
	defer sim.Close()
	for _, f := range faults {
		id, fault, err := platformsim.ParseFault(f)
		if err != nil {
			fmt.Fprintf(stderr, "platformsim: -fault %v\n", err)
			return 2
		}
		if err := sim.SetFault(id, fault); err != nil {
			fmt.Fprintf(stderr, "platformsim: -fault %q: %v\n", f, err)
			return 2
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "platformsim: -addr %q: %v\n", *addr, err)
		return 1
	}
	root := "http://" + ln.Addr().String()
	if *envFile != "" {
		if err := writeEnv(*envFile, root); err != nil {
			ln.Close()
			fmt.Fprintf(stderr, "platformsim: -env: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "platformsim serving on %s\n", root)
	urls := platformsim.BaseURLs(root)
	rewrites := platformsim.URLRewrites(root)
	for _, id := range platformsim.Platforms {
		fmt.Fprintf(stdout, "  connectors.%s.base_url = %q\n", id, urls[id])
		for _, rw := range rewrites[id] {
			fmt.Fprintf(stdout, "  connectors.%s.url_rewrites = [%q]\n", id, rw)
		}
	}
	for _, line := range platformsim.SortedFaults(sim.Faults()) {
		fmt.Fprintf(stdout, "  fault %s\n", line)
	}
	srv := &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "platformsim: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	sim.Close() // release hanging requests before shutting down
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	return 0
}

// writeEnv writes platformsim.EnvOverrides for root as shell assignments,
// each value single-quoted (the url_rewrites hold spaces and "=>"). The
// file is written whole under a temporary name and renamed, so a reader
// that waits for "serving on" never sees half of it.
func writeEnv(path, root string) error {
	var b strings.Builder
	b.WriteString("# BesluitBron's connectors pointed at the platform simulator on " + root + " (written by platformsim -env)\n")
	for _, kv := range platformsim.EnvOverrides(root) {
		k, v, _ := strings.Cut(kv, "=")
		if strings.Contains(v, "'") {
			return fmt.Errorf("%s: a value with a quote cannot be written for the shell", k)
		}
		fmt.Fprintf(&b, "%s='%s'\n", k, v)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
