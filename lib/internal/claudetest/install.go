package claudetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Version is the Claude Code release the suite is written against.
const Version = "2.1.328"

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// CacheDir is where the CLI is installed: $CCPIPE_CLAUDE_CACHE, else
// ~/.cache/ccpipe/claude-code.
func CacheDir() (string, error) {
	if d := os.Getenv("CCPIPE_CLAUDE_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("claudetest: cache dir: %w", err)
	}
	return filepath.Join(home, ".cache", "ccpipe", "claude-code"), nil
}

// platformPackage is the npm optional dependency that holds the native binary.
func platformPackage() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	return "claude-code-" + runtime.GOOS + "-" + arch
}

// Binary returns the path of the claude binary of Version, installing it
// with npm into CacheDir the first time (once per machine: a file lock
// keeps parallel test processes from installing twice).
// $CCPIPE_CLAUDE_BIN, when set, names a binary to use instead.
func Binary() (string, error) {
	binOnce.Do(func() { binPath, binErr = findOrInstall() })
	return binPath, binErr
}

func findOrInstall() (string, error) {
	if b := os.Getenv("CCPIPE_CLAUDE_BIN"); b != "" {
		return b, checkVersion(b)
	}
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(cache, "node_modules", "@anthropic-ai", platformPackage(), "claude")
	if checkVersion(bin) == nil {
		return bin, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("claudetest: install: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(cache, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("claudetest: install: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("claudetest: install lock: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	if checkVersion(bin) == nil {                        // another process installed it meanwhile
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("claudetest: install Claude Code %s: npm not found: %w", Version, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", cache, "--save-exact", "--no-audit", "--no-fund",
		"@anthropic-ai/claude-code@"+Version)
	cmd.Dir = cache
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("claudetest: npm install @anthropic-ai/claude-code@%s: %w\n%s", Version, err, tail(out, 2000))
	}
	if err := checkVersion(bin); err != nil {
		return "", fmt.Errorf("claudetest: after npm install: %w", err)
	}
	return bin, nil
}

// checkVersion runs bin --version and wants Version in its output.
func checkVersion(bin string) error {
	if _, err := os.Stat(bin); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = append(cleanEnviron(os.Environ()), "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", bin, err)
	}
	if !strings.HasPrefix(strings.TrimSpace(string(out)), Version+" ") {
		return fmt.Errorf("%s --version printed %q, want %s", bin, strings.TrimSpace(string(out)), Version)
	}
	return nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// cleanEnviron drops the variables that would make the CLI talk to the
// real API, read the developer's config or think it runs inside another
// Claude Code or tmux session.
func cleanEnviron(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE_") || k == "CLAUDECODE" ||
			k == "XDG_RUNTIME_DIR" || k == "TMUX" || k == "TMUX_PANE" ||
			strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "GOOGLE_") || strings.HasPrefix(k, "VERTEX_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// errNoTmux is returned when an interactive session is asked for without tmux.
var errNoTmux = errors.New("tmux not found in PATH (apt-get install tmux)")
