package commands_test

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// run runs one command in this process, with the test's environment.
func run(t *testing.T, stdin string, name string, args ...string) string {
	t.Helper()
	for _, c := range commands.All {
		if c.Name != name {
			continue
		}
		var out, errb bytes.Buffer
		var in io.Reader = strings.NewReader(stdin)
		if stdin == "" {
			in = nil
		}
		if code := c.Run(args, in, &out, &errb); code != 0 {
			t.Fatalf("%s %v: exit %d: %s", name, args, code, errb.String())
		}
		return out.String()
	}
	t.Fatalf("no command %s", name)
	return ""
}

// answers are what a user asks of the config dir: the sessions (without
// the fields that name the file read), the usage per message and summed,
// a search, every tool result's local copy, and each session's page.
func answers(t *testing.T) map[string]string {
	t.Helper()
	list := run(t, "", "cc-sessions")
	a := map[string]string{
		"sessions":  run(t, "", "cc-sessions", "--jq", "[.session_id,.cwd,.title,.first_prompt,.started_at,.last_activity_at,.has_subagents,(.profiles|length)]|@tsv", "-r"),
		"usage":     run(t, list, "cc-extract", "usage", "--subagents"),
		"usage-day": run(t, list, "cc-extract", "usage", "--sum", "day", "--subagents"),
		"grep":      run(t, "", "cc-grep", "sleep", "--jq", "[.session_id,.uuid]|@tsv", "-r"),
		"tools":     run(t, list, "cc-extract", "tools", "--jq", "[.session_id,.tool_use_id,.persisted_output_local_path != null]|@tsv", "-r"),
		"redact":    run(t, list, "cc-redact"),
		"entries":   run(t, list, "cc-entries", "--subagents", "--jq", "del(.cc_source.path)"),
		"cassette":  run(t, list, "cc-cassette", "import"),
	}
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		a["render "+line[:60]] = run(t, line+"\n", "cc-render", "html")
	}
	return a
}

// TestArchiveAnswersAfterSweep is issue 28's done-when on the real
// corpus: archive the config dir, delete its transcripts as Claude Code's
// cleanup does, and with CCPIPE_ARCHIVE set every answer is what it was;
// live and archive together count nothing twice.
func TestArchiveAnswersAfterSweep(t *testing.T) {
	root := t.TempDir()
	cfg, arch := filepath.Join(root, "claude"), filepath.Join(root, "archive")
	golden.CopyTree(t, "../../testdata/corpus/claude", cfg)
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("CCPIPE_ARCHIVE", "")
	before := answers(t)
	if n := strings.Count(before["sessions"], "\n"); n < 5 {
		t.Fatalf("the corpus lists %d sessions", n)
	}
	for k, v := range before {
		if v == "" {
			t.Fatalf("%s: no answer on the live corpus, nothing to compare", k)
		}
	}

	run(t, run(t, "", "cc-sessions"), "cc-entries", "--archive", arch)
	t.Setenv("CCPIPE_ARCHIVE", arch)
	both := answers(t)
	if got := run(t, "", "cc-sessions", "--jq", ".source", "-r"); strings.Contains(got, "archive") {
		t.Errorf("live and archived sessions: want only live ones read, got sources\n%s", got)
	}
	same(t, "live and archive", before, both)

	projects := filepath.Join(cfg, "projects")
	ents, _ := os.ReadDir(projects)
	for _, e := range ents { // the sweep: transcripts and session dirs gone
		if err := os.RemoveAll(filepath.Join(projects, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CCPIPE_ARCHIVE", "")
	if got := run(t, "", "cc-sessions"); got != "" {
		t.Fatalf("after the sweep, without the archive: %s", got)
	}
	t.Setenv("CCPIPE_ARCHIVE", arch)
	after := answers(t)
	if got := run(t, "", "cc-sessions", "--jq", ".source", "-r"); strings.Contains(got, "live") {
		t.Errorf("after the sweep: want archive sources, got\n%s", got)
	}
	same(t, "archive after the sweep", before, after)

	// The cron line run again with CCPIPE_ARCHIVE set: the sessions now
	// read from the archive are up to date, and nothing is added to it.
	var files []string
	filepath.WalkDir(arch, func(p string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	status := run(t, run(t, "", "cc-sessions"), "cc-entries", "--archive", arch, "--jq", ".status", "-r")
	if strings.Count(status, "up_to_date\n") != strings.Count(status, "\n") || status == "" {
		t.Errorf("re-archiving archived sessions: %q", status)
	}
	n := 0
	filepath.WalkDir(arch, func(p string, de fs.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			n++
		}
		return nil
	})
	if n != len(files) {
		t.Errorf("re-archiving archived sessions wrote %d files", n-len(files))
	}
}

func same(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s differs:\nwant %q\ngot  %q", what, k, firstDiff(w, got[k]), firstDiff(got[k], w))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d answers, want %d", what, len(got), len(want))
	}
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-80):min(len(a), i+120)]
}

// TestArchiveGrownTranscript: cc-entries --archive of a transcript that
// grew appends to its copy, which then reads back as exactly the new file.
func TestArchiveGrownTranscript(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CCPIPE_ARCHIVE", "")
	full, err := os.ReadFile("../../testdata/corpus/claude/projects/-home-dev-projects-gamma/c0a1f004-0000-4000-8000-000000000004.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "claude", "projects", "-home-dev-projects-gamma", "c0a1f004-0000-4000-8000-000000000004.jsonl")
	os.MkdirAll(filepath.Dir(src), 0o755)
	cut := strings.Index(string(full[len(full)/3:]), "\n") + len(full)/3 + 1
	arch := filepath.Join(root, "archive")
	for i, content := range [][]byte{full[:cut], full} {
		if err := os.WriteFile(src, content, 0o644); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Duration(i) * time.Hour)
		os.Chtimes(src, later, later)
		status := run(t, "", "cc-entries", "--archive", arch, src, "--jq", ".status", "-r")
		if want := []string{"written\n", "appended\n"}[i]; status != want {
			t.Errorf("run %d: status %q, want %q", i, status, want)
		}
		got := run(t, "", "cc-entries", filepath.Join(arch, "-home-dev-projects-gamma", "c0a1f004-0000-4000-8000-000000000004.jsonl.zst"))
		if got != string(content) {
			t.Fatalf("run %d: the copy reads %d bytes, the source has %d", i, len(got), len(content))
		}
	}
}

// TestFindNamesArchiveCopy: cc-sessions --find of a session whose live
// transcript is shorter than its archive copy reads the copy and says so
// on stderr (by id and by id prefix), as the listing does.
func TestFindNamesArchiveCopy(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	cfg := filepath.Join(root, "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("CCPIPE_ARCHIVE", "")
	const id = "c0a1f004-0000-4000-8000-000000000004"
	full, err := os.ReadFile("../../testdata/corpus/claude/projects/-home-dev-projects-gamma/" + id + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(cfg, "projects", "-home-dev-projects-gamma", id+".jsonl")
	os.MkdirAll(filepath.Dir(src), 0o755)
	if err := os.WriteFile(src, full, 0o644); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(root, "archive")
	run(t, "", "cc-entries", "--archive", arch, src)
	if err := os.WriteFile(src, full[:len(full)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CCPIPE_ARCHIVE", arch)
	for _, q := range []string{id, id[:12]} {
		var out, errb bytes.Buffer
		code := ccsessions.Run([]string{"--find", q}, nil, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), ".jsonl.zst") ||
			!strings.Contains(errb.String(), "reading the archive copy") || !strings.Contains(errb.String(), src) {
			t.Errorf("--find %s: exit %d\nstdout %s\nstderr %s", q, code, out.String(), errb.String())
		}
	}
}
