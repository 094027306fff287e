//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes dir's owner lock without waiting. It returns a release
// function, or ok=false when another process holds it. The lock ends
// with the process, so a crash never leaves it behind.
func lockDir(dir string) (release func(), ok bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}
