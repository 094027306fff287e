package nativert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/native"
)

// goPluginProcess is a connector process started by go-plugin.
type goPluginProcess struct {
	connector.Connector // the session from native.Plugin.GRPCClient
	client              *plugin.Client
	grpc                *plugin.GRPCClient
	id                  int
}

// pingTimeout bounds the health check after a failed call, so that a
// frozen process counts as lost instead of freezing the caller.
const pingTimeout = 2 * time.Second

func (p *goPluginProcess) exited() bool { return p.client.Exited() }
func (p *goPluginProcess) kill()        { p.client.Kill() }
func (p *goPluginProcess) pid() int     { return p.id }

func (p *goPluginProcess) ping() error {
	if p.client.Exited() {
		return errors.New("exited")
	}
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	_, err := grpc_health_v1.NewHealthClient(p.grpc.Conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: plugin.GRPCServiceName})
	return err
}

// launch starts the binary under go-plugin: the checksum is checked
// against the pinned sha256 (a fresh SecureConfig each time: its hash
// keeps state), the process gets no environment but its memory limit and
// temporary directory, and the handshake must name the magic cookie and
// connector.ABIVersion.
func (c *Connector) launch(ctx context.Context) (process, error) {
	sum, err := hex.DecodeString(c.o.SHA256)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.o.Path)
	cmd.Env = []string{fmt.Sprintf("GOMEMLIMIT=%dMiB", c.o.MemoryLimitMB)}
	if d := os.Getenv("TMPDIR"); d != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+d)
	}
	dieWithHost(cmd)
	logs := &logWriter{log: c.o.Logger, id: c.id}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  native.Handshake(),
		Plugins:          plugin.PluginSet{native.PluginName: &native.Plugin{}},
		Cmd:              cmd,
		SecureConfig:     &plugin.SecureConfig{Checksum: sum, Hash: sha256.New()},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     c.o.StartTimeout,
		SkipHostEnv:      true,
		Logger:           logs.hclog(),
	})
	fail := func(err error) (process, error) {
		client.Kill()
		return nil, c.startErr(err)
	}
	rpc, err := client.Client()
	if err != nil {
		return fail(err)
	}
	raw, err := rpc.Dispense(native.PluginName)
	if err != nil {
		return fail(err)
	}
	conn, ok := raw.(connector.Connector)
	gc, ok2 := rpc.(*plugin.GRPCClient)
	if !ok || !ok2 {
		return fail(fmt.Errorf("go-plugin dispensed %T over %T, want a connector over gRPC", raw, rpc))
	}
	p := &goPluginProcess{Connector: conn, client: client, grpc: gc}
	if cmd.Process != nil {
		p.id = cmd.Process.Pid
	}
	m, err := conn.Describe(ctx)
	if err == nil {
		err = c.check(m)
	}
	if err != nil {
		return fail(err)
	}
	return p, nil
}

var pluginVersion = regexp.MustCompile(`[Pp]lugin version: (\d+)`)

// startErr explains go-plugin's start failures in an admin's terms.
func (c *Connector) startErr(err error) error {
	var abi *connector.ABIError
	msg := err.Error()
	switch {
	case errors.Is(err, plugin.ErrChecksumsDoNotMatch):
		got := "unreadable"
		if b, rerr := os.ReadFile(c.o.Path); rerr == nil {
			s := sha256.Sum256(b)
			got = hex.EncodeToString(s[:])
		}
		return fmt.Errorf("binary %s has sha256 %s, pinned %s: it changed on disk since the host checked it; restart the host after an upgrade, with the new sha256 in the config", c.o.Path, got, c.o.SHA256)
	case errors.As(err, &abi):
		abi.Connector = c.id
		return abi
	case errors.Is(err, connector.ErrABIMismatch):
		return fmt.Errorf("connector %q: %w", c.id, err)
	case strings.Contains(msg, "incompatible API version"):
		if m := pluginVersion.FindStringSubmatch(msg); m != nil {
			if v, perr := strconv.ParseUint(m[1], 10, 32); perr == nil {
				return &connector.ABIError{Connector: c.id, Got: uint32(v), Want: connector.ABIVersion}
			}
		}
	case strings.Contains(msg, "Unrecognized remote plugin message"), strings.Contains(msg, "exited before we could connect"):
		first, _, _ := strings.Cut(msg, "\n")
		if strings.HasSuffix(first, "message: ") || strings.Contains(first, "exited before") {
			first = "it exited without answering"
		} else {
			first = "its first line was " + strings.TrimPrefix(first, "Unrecognized remote plugin message: ")
		}
		return fmt.Errorf("%s is not a BesluitBron native connector: it did not answer go-plugin's handshake (%s); build it from a main package whose main calls native.Main() (package github.com/besluitbron/besluitbron/sdk/native)", c.o.Path, first)
	case errors.Is(err, fs.ErrPermission), strings.Contains(msg, "exec format error"):
		return fmt.Errorf("starting %s: %w (a connector for runtime = \"process\" is a native executable built with go build; a .wasm module needs runtime = \"wasm\")", c.o.Path, err)
	}
	return fmt.Errorf("starting %s: %w", c.o.Path, err)
}

var _ process = (*goPluginProcess)(nil)
