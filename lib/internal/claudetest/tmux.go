package claudetest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Tmux is an interactive claude running in a pane of a private tmux
// server (its own socket under Root, so nothing touches the developer's
// tmux). Cleanup kills the server and the pane's process group.
type Tmux struct {
	e      *Env
	Socket string // tmux -S socket
	Name   string // tmux session name
	Pid    int    // the claude process (the pane's process)
}

// Interactive starts claude (no -p) in a 200x50 tmux pane and returns once
// the process runs; wait for its prompt with WaitScreen or WaitRegistry.
func (e *Env) Interactive(c Cmd) *Tmux {
	e.t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		e.t.Fatalf("claudetest: %v", errNoTmux)
	}
	dir, args := e.argv(c, false)
	e.mu.Lock()
	e.nfile++
	n := e.nfile
	e.mu.Unlock()
	s := &Tmux{e: e, Socket: filepath.Join(e.Root, fmt.Sprintf("tmux-%d.sock", n)), Name: fmt.Sprintf("cc%d", n)}
	line := "exec " + shellQuote(e.Bin)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	cmd := exec.Command(tmuxBin, "-S", s.Socket, "-f", "/dev/null", "new-session", "-d", "-s", s.Name,
		"-x", "200", "-y", "50", "-c", dir, line)
	// The server inherits this environment, and so does the pane.
	cmd.Env = append(e.Environ(), c.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("claudetest: tmux new-session: %v: %s", err, out)
	}
	e.t.Cleanup(s.kill)
	out, err := s.tmux("display-message", "-p", "-t", s.Name, "#{pane_pid}")
	if err != nil {
		e.t.Fatalf("claudetest: tmux pane pid: %v", err)
	}
	if s.Pid, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		e.t.Fatalf("claudetest: tmux pane pid %q: %v", out, err)
	}
	return s
}

func (s *Tmux) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", s.Socket}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %w: %s", args[0], err, out)
	}
	return string(out), nil
}

// Keys sends tmux key names (Enter, Escape, C-c, Up...) or text.
func (s *Tmux) Keys(keys ...string) {
	s.e.t.Helper()
	if _, err := s.tmux(append([]string{"send-keys", "-t", s.Name}, keys...)...); err != nil {
		s.e.t.Fatalf("claudetest: %v", err)
	}
}

// Type types text literally, then presses Enter after a short pause (sent
// together, the TUI takes the Enter as part of a paste).
func (s *Tmux) Type(text string) {
	s.e.t.Helper()
	if _, err := s.tmux("send-keys", "-t", s.Name, "-l", text); err != nil {
		s.e.t.Fatalf("claudetest: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	s.Keys("Enter")
}

// Choose picks the menu option whose line contains option: it moves the
// cursor (❯) with Up or Down until the screen shows it on that line, and
// only then presses Enter. A dialog draws before it takes keys, so keys
// sent blind on a loaded machine can be lost and pick the wrong option.
func (s *Tmux) Choose(option string, timeout time.Duration) {
	s.e.t.Helper()
	var scr string
	err := Poll(timeout, func() (bool, error) {
		scr = s.Screen()
		at, cursor := -1, -1
		for i, line := range strings.Split(scr, "\n") {
			if strings.Contains(line, option) {
				at = i
			}
			if strings.Contains(line, "❯") {
				cursor = i
			}
		}
		switch {
		case at < 0 || cursor < 0:
		case at == cursor:
			s.Keys("Enter")
			return true, nil
		case cursor < at:
			s.Keys("Down")
			time.Sleep(300 * time.Millisecond) // let it redraw before looking again
		default:
			s.Keys("Up")
			time.Sleep(300 * time.Millisecond)
		}
		return false, nil
	})
	if err != nil {
		s.e.t.Fatalf("claudetest: choosing %q: %v\nscreen:\n%s", option, err, scr)
	}
}

// Screen returns the visible pane text.
func (s *Tmux) Screen() string {
	out, err := s.tmux("capture-pane", "-p", "-t", s.Name)
	if err != nil {
		return ""
	}
	return out
}

// WaitScreen waits until the pane shows substr and returns the screen; on
// timeout the test fails with the last screen.
func (s *Tmux) WaitScreen(substr string, timeout time.Duration) string {
	s.e.t.Helper()
	var scr string
	if err := Poll(timeout, func() (bool, error) {
		scr = s.Screen()
		return strings.Contains(scr, substr), nil
	}); err != nil {
		s.e.t.Fatalf("claudetest: waiting for %q on screen: %v\nscreen:\n%s", substr, err, scr)
	}
	return scr
}

// WaitReady waits for the registry record (written during startup) and the
// input prompt on screen.
func (s *Tmux) WaitReady(timeout time.Duration) Registry {
	s.e.t.Helper()
	r := s.e.WaitRegistry(s.Pid, timeout, nil)
	s.WaitScreen("❯", timeout)
	return r
}

// Alive reports whether the claude process still exists.
func (s *Tmux) Alive() bool { return syscall.Kill(s.Pid, 0) == nil }

// WaitExit waits until the claude process is gone.
func (s *Tmux) WaitExit(timeout time.Duration) {
	s.e.t.Helper()
	if err := Poll(timeout, func() (bool, error) { return !s.Alive(), nil }); err != nil {
		s.e.t.Fatalf("claudetest: waiting for pid %d to exit: %v\nscreen:\n%s", s.Pid, err, s.Screen())
	}
}

// Exit types /exit and waits for the process to end.
func (s *Tmux) Exit(timeout time.Duration) {
	s.e.t.Helper()
	s.Type("/exit")
	s.WaitExit(timeout)
}

// Kill9 kills the claude process with SIGKILL (a crash: its registry
// files stay behind) and waits for it to be gone.
func (s *Tmux) Kill9() {
	s.e.t.Helper()
	_ = syscall.Kill(s.Pid, syscall.SIGKILL)
	s.WaitExit(5 * time.Second)
}

// kill ends the tmux server (SIGHUP to the pane) and then SIGKILLs the
// pane's process group, so nothing the session started survives the test.
func (s *Tmux) kill() {
	_, _ = s.tmux("kill-server")
	if s.Pid > 0 {
		_ = Poll(3*time.Second, func() (bool, error) { return !s.Alive(), nil })
		_ = syscall.Kill(-s.Pid, syscall.SIGKILL)
		_ = syscall.Kill(s.Pid, syscall.SIGKILL)
	}
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '-' || r == '_' || r == '.' || r == '=' || r == ',' || r == ':' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
