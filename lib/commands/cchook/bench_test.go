package cchook

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// BenchmarkHookProcess measures what a hook costs Claude Code before every
// tool call it matches: the whole-process time of `cc-hook run` on a
// PreToolUse payload with a 20-rule file (none matching, so every rule of
// the event is compiled and tried), against the floor of a Python hook,
// `python3 -c "import json, dataclasses"`, in the same run. It reports
// both per-process times and their ratio (target <= 0.3).
func BenchmarkHookProcess(b *testing.B) {
	py, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 not installed")
	}
	dir := golden.Build(b, "cc-hook")
	bin := filepath.Join(dir, "cc-hook")
	var rules strings.Builder
	rules.WriteString("rules:\n")
	for i := range 20 {
		fmt.Fprintf(&rules, "  - name: r%d\n    events: [PreToolUse]\n    matcher: Bash\n    if: '.tool_input.command // \"\" | test(\"^forbidden-%d\\\\b\")'\n    decision: deny\n    reason: forbidden %d\n", i, i, i)
	}
	rulesPath := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(rulesPath, []byte(rules.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	payload, err := os.ReadFile("../../../testdata/hooks/payloads/PreToolUse.json")
	if err != nil {
		b.Fatal(err)
	}
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Stdin = bytes.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v: %s", name, err, out.String())
		}
		d := time.Since(start)
		if name == bin && out.Len() != 0 {
			b.Fatalf("cc-hook answered %q; the benchmark wants no match", out.String())
		}
		return d
	}
	run(bin, "run", rulesPath) // warm the page cache
	run(py, "-c", "import json, dataclasses")
	var hook, python time.Duration
	b.ResetTimer()
	for range b.N {
		hook += run(bin, "run", rulesPath)
		python += run(py, "-c", "import json, dataclasses")
	}
	b.ReportMetric(float64(hook.Microseconds())/float64(b.N)/1000, "ms/cc-hook")
	b.ReportMetric(float64(python.Microseconds())/float64(b.N)/1000, "ms/python")
	b.ReportMetric(float64(hook)/float64(python), "ratio")
}
