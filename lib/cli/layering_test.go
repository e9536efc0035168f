package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDomainPackagesStayOutOfTheCLI keeps the layering of the anchors:
// lib/<domain> packages never import lib/cli or flag (they take options
// structs), and os.Exit lives only in cmd/*/main.go.
func TestDomainPackagesStayOutOfTheCLI(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		if strings.Contains(pkg, "/lib/commands") || strings.HasSuffix(pkg, "/lib/cli") || strings.Contains(pkg, "/cmd/") {
			continue
		}
		if strings.HasSuffix(pkg, "/lib/internal/golden") {
			continue // imported by tests only; owning the -update flag is its job
		}
		for _, imp := range strings.Fields(imports) {
			if imp == "flag" || strings.HasSuffix(imp, "/lib/cli") {
				t.Errorf("%s imports %s: domain packages take options, not flags", pkg, imp)
			}
		}
	}

	exitCall := regexp.MustCompile(`\bos\.Exit\(`)
	root, _ := filepath.Abs("../..")
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "bench/") || strings.Contains(rel, "/cmd/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if exitCall.Match(data) {
			t.Errorf("%s calls os.Exit: only cmd/*/main.go may", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
