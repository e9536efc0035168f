//go:build unix

package rules

import (
	"os/exec"
	"syscall"
)

// killGroup makes the command a process group leader and its
// cancellation kill the whole group: `sh -c 'sleep 1000 | cat'` leaves
// nothing behind.
func killGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}
