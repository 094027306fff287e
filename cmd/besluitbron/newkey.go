package main

import (
	"fmt"
	"io"

	"github.com/besluitbron/besluitbron/host"
)

const newKeyUsage = `usage: besluitbron new-key <name>

Prints a fresh API key for the named client and the plugins.toml lines that
configure it: only the key's sha256 is kept there. Hand the key to the
client (it sends Authorization: Bearer <key>) and paste the lines into
plugins.toml; with server.auth = "keys" only the configured clients are
served. The key is shown once: the server cannot show it again.
`

// runNewKey is `besluitbron new-key <name>`.
func runNewKey(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
		fmt.Fprint(stdout, newKeyUsage)
		return 0
	}
	if len(args) != 1 {
		fmt.Fprintf(stderr, "besluitbron new-key: want one client name, got %d arguments\n\n%s", len(args), newKeyUsage)
		return 2
	}
	key, lines, env, err := host.NewClientKey(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "besluitbron new-key: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "key for %s (give it to the client; it is not stored anywhere):\n\n  %s\n\nadd to plugins.toml (and set server.auth = \"keys\" under [server]):\n\n%s\nor in the environment:\n\n  %s\n", args[0], key, lines, env)
	return 0
}
