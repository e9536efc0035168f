package hooks

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the hot path light and the layers apart: lib/hooks (and
// the cc-hook binary, which runs before every matching tool call) must not
// pull in the transcript reader, the registry or compression code, and
// lib/hooks must not import the CLI plumbing.
func TestDeps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	deny := map[string][]string{
		"github.com/ccpipe/ccpipe/lib/hooks":       {"lib/cli", "lib/transcript", "lib/registry", "lib/sessions", "klauspost/compress", "\nflag\n"},
		"github.com/ccpipe/ccpipe/lib/hooks/rules": {"lib/cli", "lib/transcript", "lib/registry", "lib/sessions", "klauspost/compress"},
		"github.com/ccpipe/ccpipe/cmd/cc-hook":     {"lib/transcript", "lib/registry", "lib/sessions", "klauspost/compress"},
	}
	for pkg, bad := range deny {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		deps := "\n" + string(out)
		for _, b := range bad {
			if strings.Contains(deps, b) {
				t.Errorf("%s depends on %s", pkg, strings.TrimSpace(b))
			}
		}
	}
}
