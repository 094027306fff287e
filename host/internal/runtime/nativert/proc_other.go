//go:build !linux

package nativert

import "os/exec"

// dieWithHost does nothing where the kernel cannot tie a child's life to
// its parent's; go-plugin still ends the process when the host closes it.
func dieWithHost(*exec.Cmd) {}
