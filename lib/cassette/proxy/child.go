package proxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// OfflineKey is the placeholder API key a replayed child gets when it
// has none, so that clients which insist on a key start (Blackbox's value).
const OfflineKey = "blackbox-offline-placeholder"

// ChildEnv is the child's environment: env with ANTHROPIC_BASE_URL and
// OPENAI_BASE_URL pointing at the proxy; offline runs also get a
// placeholder key where none is set.
func ChildEnv(env []string, proxyURL string, offline bool) []string {
	out := make([]string, 0, len(env)+4)
	keys := map[string]bool{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL":
			continue
		case "ANTHROPIC_API_KEY", "OPENAI_API_KEY":
			if v == "" {
				continue
			}
			keys[k] = true
		}
		out = append(out, kv)
	}
	out = append(out, "ANTHROPIC_BASE_URL="+proxyURL, "OPENAI_BASE_URL="+proxyURL+"/v1")
	if offline {
		for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
			if !keys[k] {
				out = append(out, k+"="+OfflineKey)
			}
		}
	}
	return out
}

// Upstream picks the parent's base URL for the given variable, else def.
func Upstream(env []string, name, def string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(env[i], "="); k == name && v != "" {
			return v
		}
	}
	return def
}

// RunChild runs argv to its end with the given environment and streams
// and returns its exit code (128+signal when a signal ended it). SIGTERM
// is passed on; SIGINT is not (a terminal sends Ctrl-C to the whole
// process group, and an interactive Claude Code reads a second one as
// "exit"), but it no longer stops cc-cassette before the child. The error
// is only for a child that could not start.
func RunChild(argv []string, dir string, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(argv) == 0 {
		return 1, errors.New("no command after --")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sig:
				if s == syscall.SIGTERM {
					_ = cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return 1, err
		}
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}
