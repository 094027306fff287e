//go:build linux

package nativert

import (
	"os/exec"
	"syscall"
)

// dieWithHost asks the kernel to kill the process when the host dies, so
// a crashed host leaves no orphaned connectors behind.
func dieWithHost(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
