package config_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

// Catches: a [server] cap or timeout missing its default (zero: no
// timeout, or every connection refused), a default that differs from the
// documented one, an override from the file or the environment not read.
func TestServerCapsAndTimeouts(t *testing.T) {
	cfg, err := config.Load("", []string{})
	if err != nil {
		t.Fatal(err)
	}
	want := config.Server{
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
		MaxConnections: 1000, MaxConnectionsPerIP: 64,
		MaxSessions: 2000, MaxSessionsPerIP: 50,
		MaxStreamsPerSession: 4, MaxStreamsPerIP: 64,
		SessionIdleTimeout: 10 * time.Minute, MaxBatch: 32,
	}
	got := cfg.Server
	if got.ReadHeaderTimeout != want.ReadHeaderTimeout || got.ReadTimeout != want.ReadTimeout ||
		got.WriteTimeout != want.WriteTimeout || got.IdleTimeout != want.IdleTimeout ||
		got.MaxConnections != want.MaxConnections || got.MaxConnectionsPerIP != want.MaxConnectionsPerIP ||
		got.MaxSessions != want.MaxSessions || got.MaxSessionsPerIP != want.MaxSessionsPerIP ||
		got.MaxStreamsPerSession != want.MaxStreamsPerSession || got.MaxStreamsPerIP != want.MaxStreamsPerIP ||
		got.SessionIdleTimeout != want.SessionIdleTimeout || got.MaxBatch != want.MaxBatch {
		t.Errorf("defaults = %+v\nwant %+v", got, want)
	}
	cfg, err = config.Load(write(t, "[server]\nread_timeout = \"1s\"\nread_header_timeout = \"1s\"\nmax_connections = 300\nmax_batch = 1\n"),
		[]string{"BESLUITBRON_SERVER__MAX_CONNECTIONS_PER_IP=200", "BESLUITBRON_SERVER__SESSION_IDLE_TIMEOUT=90s"})
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Server; s.ReadTimeout != time.Second || s.MaxConnections != 300 || s.MaxConnectionsPerIP != 200 || s.SessionIdleTimeout != 90*time.Second || s.MaxBatch != 1 {
		t.Errorf("overrides = %+v", s)
	}
}

// Catches: a cap of 0 or a non-positive timeout accepted (a server that
// refuses everything, or none of whose requests time out), a per-address
// cap above its total, a header timeout beyond the whole request's.
func TestServerCapsValidation(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`read_timeout = "0s"`, "server.read_timeout: must be positive"},
		{`write_timeout = "-1s"`, "server.write_timeout: must be positive"},
		{`idle_timeout = "0s"`, "server.idle_timeout"},
		{`session_idle_timeout = "0s"`, "server.session_idle_timeout"},
		{`read_header_timeout = "0s"`, "server.read_header_timeout"},
		{`read_header_timeout = "40s"`, "server.read_header_timeout 40s: at most read_timeout"},
		{`max_connections = 0`, "server.max_connections: must be at least 1"},
		{`max_connections_per_ip = 0`, "server.max_connections_per_ip: must be at least 1"},
		{`max_sessions = 0`, "server.max_sessions:"},
		{`max_sessions_per_ip = -1`, "server.max_sessions_per_ip:"},
		{`max_streams_per_session = 0`, "server.max_streams_per_session:"},
		{`max_streams_per_ip = 0`, "server.max_streams_per_ip:"},
		{`max_batch = 0`, "server.max_batch:"},
		{`event_store_mb = -1`, "server.event_store_mb: must be 0"},
		{`resume_grace = "0s"`, "server.resume_grace: must be positive"},
		{`max_tasks = 0`, "server.max_tasks: must be at least 1"},
		{`max_tasks = 10`, "server.max_tasks_per_client 1000: at most max_tasks (10)"},
		{`tasks_mb_per_client = 100`, "server.tasks_mb_per_client 100: at most tasks_mb (64)"},
		{`task_keep = "0s"`, "server.task_keep: must be positive"},
		{`task_max_life = "-1h"`, "server.task_max_life: must be positive"},
		{`stream_poll_after = "-1s"`, "server.stream_poll_after: must be 0s (never) or positive"},
		{`stream_retry = "2m"`, "server.stream_retry 2m0s: at most 1m"},
		{"max_connections = 10\nmax_connections_per_ip = 11", "server.max_connections_per_ip 11: at most max_connections (10)"},
		{"max_sessions = 10\nmax_sessions_per_ip = 11", "server.max_sessions_per_ip 11: at most max_sessions (10)"},
		{`max_connections = "many"`, "server.max_connections"},
		{`read_timeout = 30`, "server.read_timeout: want a duration"},
	} {
		_, err := config.Load(write(t, "[server]\n"+c.body+"\n"), []string{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error with %q", c.body, err, c.want)
		}
	}
}

// Catches: a [server] key missing from docs/operations.md or from the
// configuration reference's table (docs/configuration.md, README's until
// issue 31).
func TestServerKeysDocumented(t *testing.T) {
	keys := []string{"read_header_timeout", "read_timeout", "write_timeout", "idle_timeout",
		"max_connections", "max_connections_per_ip", "max_sessions", "max_sessions_per_ip",
		"max_streams_per_session", "max_streams_per_ip", "session_idle_timeout", "max_batch",
		"event_store_mb", "resume_grace", "stream_poll_after", "stream_retry",
		"max_tasks", "max_tasks_per_client", "tasks_mb", "tasks_mb_per_client", "task_keep", "task_max_life"}
	for _, doc := range []string{"../../../docs/operations.md", "../../../docs/configuration.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if !regexp.MustCompile("`(server\\.)?" + k + "`").Match(b) {
				t.Errorf("%s does not document server.%s", doc, k)
			}
		}
	}
}
