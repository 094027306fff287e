package nativert

import (
	"bytes"
	"context"
	"log/slog"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// logWriter turns go-plugin's log lines (its own, and the process's
// stderr, which go-plugin parses) into the host's slog records. Debug
// chatter stays out; a process's panic or fatal error arrives at error
// level.
type logWriter struct {
	log *slog.Logger
	id  string
}

// hclog returns the go-plugin logger writing through w.
func (w *logWriter) hclog() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:   "connector",
		Level:  hclog.Warn,
		Output: w,
	})
}

// maxLine caps one forwarded line, as the WebAssembly runtime caps stderr.
const maxLine = 16 << 10

// Write logs each line it is given; hclog writes one entry per call.
func (w *logWriter) Write(p []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimRight(p, "\n"), []byte("\n")) {
		s := string(line)
		if len(s) > maxLine {
			s = s[:maxLine] + "…"
		}
		level := slog.LevelWarn
		if strings.Contains(s, "[ERROR]") {
			level = slog.LevelError
		}
		w.log.Log(context.Background(), level, "native connector: "+strings.TrimSpace(stripStamp(s)), "connector", w.id)
	}
	return len(p), nil
}

// stripStamp drops hclog's leading timestamp; slog has its own.
func stripStamp(s string) string {
	if i := strings.Index(s, " ["); i > 0 && i < 40 {
		return s[i+1:]
	}
	return s
}
