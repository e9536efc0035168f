package extract

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDomainDeps keeps the layering: the extraction library never reaches
// for the command plumbing or the flag package.
func TestDomainDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/ccpipe/ccpipe/lib/extract").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "flag" || dep == "github.com/ccpipe/ccpipe/lib/cli" || strings.HasPrefix(dep, "github.com/ccpipe/ccpipe/lib/commands") {
			t.Errorf("lib/extract depends on %s", dep)
		}
	}
}
