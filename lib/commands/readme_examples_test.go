package commands_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands"
)

// TestReadmeExamples runs every `$ command` of the README's Commands
// section on the bundled corpus, as a reader would (each command its own
// process, through sh), and compares its whole output with what the
// README shows under it.
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Commands\n")
	if !ok {
		t.Fatal("README has no Commands section")
	}
	_, block, _ := strings.Cut(section, "```console\n")
	block, _, _ = strings.Cut(block, "```")

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, c := range commands.All {
		if err := os.Symlink(exe, filepath.Join(bin, c.Name)); err != nil {
			t.Fatal(err)
		}
	}
	td, _ := filepath.Abs("../../testdata")
	work := t.TempDir()
	if err := os.Symlink(td, filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"CLAUDE_CONFIG_DIR=" + td + "/corpus/claude", "TZ=UTC", "NO_COLOR=1"}

	// Each example is a "$ " line and the lines under it, up to the next.
	var examples [][2]string
	for _, l := range strings.Split(block, "\n") {
		if cmd, ok := strings.CutPrefix(l, "$ "); ok {
			examples = append(examples, [2]string{cmd, ""})
		} else if len(examples) > 0 {
			examples[len(examples)-1][1] += l + "\n"
		}
	}
	for _, ex := range examples {
		cmd, want := ex[0], strings.TrimRight(ex[1], "\n")
		c := exec.Command("sh", "-c", cmd)
		c.Dir, c.Env = work, env
		out, err := c.Output()
		if err != nil {
			t.Errorf("%s: %v", cmd, err)
		}
		if got := strings.TrimRight(string(out), "\n"); got != want {
			t.Errorf("%s\nprints\n%s\nthe README shows\n%s", cmd, got, want)
		}
	}
	if len(examples) < 8 {
		t.Errorf("%d examples found", len(examples))
	}
}
