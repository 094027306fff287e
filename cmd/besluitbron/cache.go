package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/besluitbron/besluitbron/host"
)

const cacheUsage = `usage: besluitbron cache <command> [--config plugins.toml]

commands:
  stats [--json]      entries, bytes, hits, misses and version discards per
                      platform and class, read from the saved caches
  clear <connector>   empty one platform's cache (the others are untouched)

Both work on the files under cache.dir, without a server. Figures are those
of each platform's last save: a running server saves every
cache.save_interval and at shutdown, and applies a clear within seconds.
`

// runCache is `besluitbron cache …`.
func runCache(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cacheUsage)
		return 2
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "stats", "clear":
	case "help", "--help", "-h":
		fmt.Fprint(stdout, cacheUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "besluitbron cache: unknown command %q\n\n%s", sub, cacheUsage)
		return 2
	}
	fs := flag.NewFlagSet("cache "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "plugins.toml", "config file")
	asJSON := false
	if sub == "stats" {
		fs.BoolVar(&asJSON, "json", false, "print JSON")
	}
	// Flags may follow the connector: `cache clear obv --config x`.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case sub == "stats" && len(pos) > 0:
		fmt.Fprintf(stderr, "besluitbron cache stats: unexpected argument %q\n", pos[0])
		return 2
	case sub == "clear" && len(pos) != 1:
		fmt.Fprintf(stderr, "besluitbron cache clear: name exactly one connector (got %d)\n", len(pos))
		return 2
	}
	cfg, err := host.LoadConfig(*configPath, nil)
	if err != nil {
		fmt.Fprintf(stderr, "besluitbron: %v\n", err)
		return 1
	}
	if sub == "clear" {
		r, err := host.ClearCache(cfg, pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "besluitbron cache clear: %v\n", err)
			return 1
		}
		if r.Saved {
			fmt.Fprintf(stdout, "cleared the cache of %s: %d entries (%s) saved %s by version %s removed from %s\n",
				r.Connector, r.Entries, mib(r.MemoryBytes), r.SavedAt.Format(time.RFC3339), r.Version, r.Dir)
		} else {
			fmt.Fprintf(stdout, "the cache of %s held nothing saved in %s\n", r.Connector, r.Dir)
		}
		fmt.Fprintf(stdout, "a running server empties its copy within seconds; a stopped one starts empty\n")
		return 0
	}
	reports := host.CacheReports(cfg, version)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			fmt.Fprintf(stderr, "besluitbron: %v\n", err)
			return 1
		}
		return 0
	}
	printReports(stdout, reports, cfg.Cache.SaveInterval)
	return 0
}

func printReports(w io.Writer, reports []host.CacheReport, every time.Duration) {
	fmt.Fprintf(w, "Saved caches, as of each platform's last save (a running server saves every %s and at shutdown).\n", every)
	fmt.Fprintf(w, "Entries and bytes are what a class holds now; hits, misses, stale serves and version discards count since the cache was created.\n")
	for _, r := range reports {
		var status []string
		switch {
		case r.Saved:
			status = append(status, fmt.Sprintf("saved %s by version %s, %s of %s in use",
				r.SavedAt.Format("2006-01-02 15:04 MST"), r.Version, mib(r.MemoryBytes), mib(uint64(r.CapacityBytes))))
		case r.Problem == "":
			status = append(status, "nothing saved")
		}
		if r.ClearPending {
			status = append(status, "clear requested, not yet applied by a server")
		}
		if r.Problem != "" {
			status = append(status, r.Problem)
		}
		fmt.Fprintf(w, "\n%s: %s\n", r.Connector, strings.Join(status, "; "))
		if len(r.Classes) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  class\tttl\tentries\tbytes\texpired\told version\thits\tmisses\tstale\tcoalesced\tversion discards\toversize")
		for _, c := range r.Classes {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", c.Class, ttl(c.TTL), c.Entries, mib(c.Bytes), c.Expired, c.OtherVersion,
				c.Hits, c.Misses, c.Stale, c.Coalesced, c.VersionDiscards, c.Oversize)
		}
		tw.Flush()
	}
}

func mib(b uint64) string {
	switch {
	case b < 1<<10:
		return fmt.Sprintf("%d B", b)
	case b < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func ttl(d time.Duration) string {
	switch {
	case d == 0:
		return "off"
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}
