//go:build linux

package commands_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestHookNeverExits2ByAccident is issue 13 item 2: under an address-space
// limit (ulimit -v), a runaway jq condition, a 300 MB payload or a rule
// file that is /dev/zero end cc-hook with the failure policy (exit 1, or
// the policy's reply), never with the Go runtime's out-of-memory status 2,
// which Claude Code reads as a deliberate block.
func TestHookNeverExits2ByAccident(t *testing.T) {
	if testing.Short() {
		t.Skip("runs cc-hook under ulimit -v")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	// The real binary, not this test one: a cgo binary's threads each
	// reserve an 8 MB stack and, under ulimit -v, pthread_create fails
	// with SIGABRT (status 2). cc-hook must stay free of cgo (no net, no
	// os/user), which the build below checks.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to build cc-hook")
	}
	deps, err := exec.Command(gobin, "list", "-deps", "../../cmd/cc-hook").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range strings.Fields(string(deps)) {
		if d == "runtime/cgo" || d == "net" || d == "os/user" {
			t.Errorf("cc-hook depends on %s: it needs cgo or threads that fail under ulimit -v", d)
		}
	}
	bin := golden.Build(t, "cc-hook")
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rule := func(cond string) string {
		return "rules:\n  - events: [PreToolUse]\n    if: '" + cond + "'\n    decision: deny\n    reason: no\n"
	}
	payload := write("p.json", `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`+"\n")
	deny := write("deny.yaml", rule("true"))
	runaway := write("runaway.yaml", rule("def f: [f]; f"))
	grow := write("grow.yaml", rule(`[repeat("x" * 1000)] | length > 0`))
	deep := write("deep.yaml", rule(strings.Repeat("(", 700_000)+"true"+strings.Repeat(")", 700_000)))
	badRe := write("badre.yaml", rule(`.tool_input.command | test("[a-")`))
	big := `(printf '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"'; head -c 300000000 /dev/zero | tr '\0' a; printf '"}}\n')`
	cases := []struct {
		name, cmd string
		want      int
		stdout    string // a substring, "" for none
		stderr    string
	}{
		{"baseline", "cc-hook run " + deny + " < " + payload, 0, `"permissionDecision":"deny"`, ""},
		{"runaway if", "cc-hook run " + runaway + " < " + payload, 1, "", "if: stopped:"},
		{"growing if", "cc-hook run " + grow + " < " + payload, 1, "", "if: stopped:"},
		{"runaway if, on-error block", "cc-hook run --on-error block " + runaway + " < " + payload, 0, `"permissionDecision":"deny"`, "if: stopped:"},
		{"300 MB payload", big + " | cc-hook run " + deny, 1, "", "payload over 32 MiB: refused"},
		{"700k nested parens: run", "cc-hook run " + deep + " < " + payload, 1, "", "nested deeper than 256 levels"},
		{"700k nested parens: lint", "cc-hook lint " + deep, 1, "", "nested deeper than 256 levels"},
		{"regex literal that does not compile: lint", "cc-hook lint " + badRe, 1, "", `test: invalid regular expression: error parsing regexp: missing closing ]`},
		{"regex literal that does not compile: settings", "cc-hook settings " + badRe, 1, "", "invalid regular expression"},
		{"regex literal that does not compile: run", "cc-hook run " + badRe + " < " + payload, 1, "", "invalid regular expression"},
		{"rules are /dev/zero", "cc-hook run /dev/zero < " + payload, 1, "", "/dev/zero: skipped: a character device"},
		{"payload is /dev/zero", "cc-hook run " + deny + " < /dev/zero", 1, "", "no payload on stdin"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// 1 GB: Go's runtime alone reserves about 800 MB of address
			// space; below that any Go program dies (status 2) before main.
			cmd := exec.Command("bash", "-c", "ulimit -v 1000000; "+c.cmd)
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.want {
				t.Errorf("exit %d, want %d\nstdout: %.300s\nstderr: %.600s", code, c.want, stdout.String(), stderr.String())
			}
			if c.stdout != "" && !strings.Contains(stdout.String(), c.stdout) || c.stdout == "" && stdout.Len() > 0 {
				t.Errorf("stdout %.300q, want %q", stdout.String(), c.stdout)
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %.600q, want %q", stderr.String(), c.stderr)
			}
		})
	}
}
