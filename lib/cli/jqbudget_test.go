package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/jq"
)

// A --jq that never ends or grows without end stops within its budget
// (every command's: one Output, lib/jq.Guard) with one clear error and
// exit 1, never a hang or an out-of-memory death (issue 36).
func TestJQBudget(t *testing.T) {
	defer func(b jq.Budget) { jq.DefaultBudget = b }(jq.DefaultBudget)
	short := jq.Budget{Timeout: 300 * time.Millisecond, MaxHeap: 1 << 30}
	small := jq.Budget{Timeout: time.Minute, MaxHeap: 64 << 20}
	for _, c := range []struct {
		budget     jq.Budget
		expr, want string
	}{
		{short, "def f: f; f", "cc-test: --jq: record 1: stopped: still running after 300ms"},
		{small, "[range(1e9)]", "cc-test: --jq: record 1: stopped: used more than 64 MiB of memory"},
		{short, "last(range(1e12))", "cc-test: --jq: record 1: stopped: still running after 300ms"},
	} {
		jq.DefaultBudget = c.budget
		c2, _ := testCommand(func(env *Env, args []string) error {
			return env.Out.Write(map[string]any{"a": 1})
		})
		// No wall-clock bound here: under -race on a loaded machine the
		// memory case takes many seconds to reach 64 MiB; a hang is the
		// test binary's timeout.
		code, out, errs := call(c2, nil, "--jq", c.expr)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("--jq %q: exit %d, stdout %q, stderr %q; want 1, nothing, %q", c.expr, code, out, errs, c.want)
		}
	}
	// A budget that is not reached changes nothing.
	c2, _ := testCommand(func(env *Env, args []string) error {
		for i := 0; i < 3; i++ {
			if err := env.Out.Write(map[string]any{"a": i}); err != nil {
				return err
			}
		}
		return nil
	})
	if code, out, errs := call(c2, nil, "--jq", ".a"); code != 0 || out != "0\n1\n2\n" || errs != "" {
		t.Errorf("--jq .a: exit %d, %q, %q", code, out, errs)
	}
}
