package ccsessions

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/registry"
)

// fixture is a copy of testdata/sessions/tree with its placeholders
// filled in: @PID@ is this test process (alive), @PROCSTART@ its real
// start token, @BADSTART@ another one (a reused pid), @DOMAIN@ this host's
// pidDomain.
type fixture struct {
	root      string // the copy; HOME is root/home
	pid       string
	procStart string
	badStart  string
	domain    string
	tmp       string // the temp dir this process's scratchpads use
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	host := registry.LocalHost()
	start, err := host.ProcStart(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	n, _ := strconv.Atoi(start)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{
		root: root, pid: strconv.Itoa(os.Getpid()), procStart: start,
		badStart: strconv.Itoa(n + 1), domain: host.Domain, tmp: processTmp(),
	}
	rep := strings.NewReplacer("@PID@", f.pid, "@PROCSTART@", f.procStart, "@BADSTART@", f.badStart, "@DOMAIN@", f.domain)
	src := filepath.Join("..", "..", "..", "testdata", "sessions", "tree")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		dst := filepath.Join(root, rep.Replace(rel))
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(rep.Replace(string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// processTmp is the temp dir Claude Code would use for this process, as
// its initial environment says (what /proc/self/environ shows).
func processTmp() string {
	env := map[string]string{}
	if data, err := os.ReadFile("/proc/self/environ"); err == nil {
		for _, kv := range bytes.Split(data, []byte{0}) {
			if k, v, ok := strings.Cut(string(kv), "="); ok {
				env[k] = v
			}
		}
	}
	tmp := env["CLAUDE_CODE_TMPDIR"]
	if tmp == "" {
		tmp = env["TMPDIR"]
	}
	if tmp == "" {
		tmp = "/tmp"
	}
	if r, err := filepath.EvalSymlinks(strings.TrimRight(tmp, "/")); err == nil {
		return r
	}
	return tmp
}

func (f *fixture) deps(env map[string]string) cli.System {
	return cli.System{
		Home:   filepath.Join(f.root, "home"),
		Getenv: func(k string) string { return env[k] },
		Pid:    1,
	}
}

var uidRE = regexp.MustCompile(`/claude-[0-9]+/`)

// normalize replaces what differs between runs with stable names.
func (f *fixture) normalize(s string) string {
	s = strings.ReplaceAll(s, f.root, "$ROOT")
	s = strings.ReplaceAll(s, `"procStart":"`+f.procStart+`"`, `"procStart":"$PROCSTART"`)
	s = strings.ReplaceAll(s, `"procStart":"`+f.badStart+`"`, `"procStart":"$BADSTART"`)
	s = strings.ReplaceAll(s, f.domain, "$DOMAIN")
	s = strings.ReplaceAll(s, f.tmp+"/claude-", "$TMP/claude-")
	s = uidRE.ReplaceAllString(s, "/claude-$$UID/")
	s = regexp.MustCompile(`\b`+f.pid+`\b`).ReplaceAllString(s, "$$PID")
	return s
}

const fakeTokens = "feedc0defeedc0defeedc0defeedc0de|0badc0de0badc0de0badc0de0badc0de"

func TestGolden(t *testing.T) {
	f := newFixture(t)
	pid := f.pid
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		stdin string
	}{
		{name: "list", args: nil},
		{name: "list_limit", args: []string{"--limit", "2", "--jq", ".session_id", "-r"}},
		{name: "active", args: []string{"--active"}},
		{name: "active_work", args: []string{"--active", "--profile", "work"}},
		{name: "cwd_within_app", args: []string{"--cwd-within", "/home/dev/app", "--jq", "[.session_id, .cwd, .title // .first_prompt] | @tsv", "-r"}},
		{name: "cwd_within_long", args: []string{"--cwd-within", "/home/dev/deep-nested-folder/deep-nested-folder/deep-nested-folder/deep-nested-folder/deep-nested-folder/deep-nested-folder/deep-nested-folder/deep-nested-folder/deep-nested-folder", "--jq", "[.session_id, .project_dir] | @tsv", "-r"}},
		{name: "cwd_within_none", args: []string{"--cwd-within", "/home/dev/application"}},
		{name: "find_address", args: []string{"--find", "default/app-3c"}},
		{name: "find_pid", args: []string{"--find", "pid:" + pid, "--jq", "[.session_id, .active.address, .active.liveness] | @tsv", "-r"}},
		{name: "find_name_ambiguous", args: []string{"--find", "app-3c"}},
		{name: "find_name_ambiguous_jq", args: []string{"--find", "app-3c", "--jq", ".active.address"}},
		{name: "find_prefix", args: []string{"--find", "2222"}},
		{name: "find_prefix_ambiguous", args: []string{"--find", "1"}},
		{name: "find_id_named_dir", args: []string{"--find", "12121212-1212-4212-8212-121212121212", "--jq", ".transcript_path"}},
		{name: "find_missing", args: []string{"--find", "no-such-session"}},
		{name: "find_dead_pid", args: []string{"--find", "pid:999999999"}},
		{name: "current_env_pid", args: []string{"--current", "--jq", "[.session_id, .active.pid] | @tsv", "-r"}, env: map[string]string{"CLAUDE_PID": pid}},
		{name: "current_env_session", args: []string{"--current", "--jq", ".session_id"}, env: map[string]string{"CLAUDE_CODE_SESSION_ID": "44444444-4444-4444-8444-444444444444"}},
		{name: "current_none", args: []string{"--current"}},
		{name: "stdin_profile", stdin: `{"name":"work","config_dir":"` + f.root + `/home/.claude-profiles/work"}` + "\n", args: []string{"--jq", "[.session_id, (.profiles | join(\",\"))] | @tsv", "-r"}},
		{name: "stdin_empty", stdin: "", args: nil},
		{name: "stdin_bad", stdin: "{\"x\":1}\nnot json\n", args: nil},
		{name: "usage_modes", args: []string{"--active", "--current"}},
		{name: "usage_cwd", args: []string{"--cwd", "/x"}},
		{name: "usage_limit", args: []string{"--limit", "-1"}},
		{name: "usage_find_cwd_within", args: []string{"--find", "1111", "--cwd-within", "/nowhere"}},
		{name: "no_profile", args: []string{"--profile", "nope"}},
		{name: "swept", args: []string{"--swept"}},
		{name: "usage_swept_cwd_within", args: []string{"--swept", "--cwd-within", "/home"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"TMPDIR": "/fixture-tmp"}
			for k, v := range tt.env {
				env[k] = v
			}
			var stdin *strings.Reader
			var out, errb bytes.Buffer
			var code int
			if tt.stdin != "" || tt.name == "stdin_empty" {
				stdin = strings.NewReader(tt.stdin)
				code = RunWith(f.deps(env), tt.args, stdin, &out, &errb)
			} else {
				code = RunWith(f.deps(env), tt.args, nil, &out, &errb)
			}
			got := fmt.Sprintf("exit %d\n-- stderr --\n%s-- stdout --\n%s", code, f.normalize(errb.String()), f.normalize(out.String()))
			if m := regexp.MustCompile(fakeTokens).FindString(out.String() + errb.String()); m != "" {
				t.Fatalf("a key file token reached the output: %s", m)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}

// TestCorpus lists the real-CLI corpus (testdata/corpus/claude, written by
// the real Claude Code): every transcript it holds is listed, with a cwd
// and a start time, and the output matches the golden file.
func TestCorpus(t *testing.T) {
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "corpus", "claude"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(corpus, "projects")); err != nil {
		t.Skip("testdata/corpus/claude is not generated yet")
	}
	if r, err := filepath.EvalSymlinks(corpus); err == nil {
		corpus = r
	}
	var want int
	filepath.WalkDir(filepath.Join(corpus, "projects"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(filepath.Dir(path)) == filepath.Join(corpus, "projects") {
			if n := d.Name(); strings.HasSuffix(n, ".jsonl") && len(n) == 42 {
				want++
			}
		}
		return nil
	})
	// The clock is fixed before the corpus was written (2026-11-30): the
	// files' mtimes are the checkout's, and with the real clock the
	// cleanupPeriodDays warning would join stderr once the checkout is 23
	// days old (TestCleanupWarning tests the warning on set mtimes).
	deps := cli.System{
		Home: t.TempDir(),
		Now:  func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) },
		Getenv: func(k string) string {
			return map[string]string{"TMPDIR": "/fixture-tmp", "CLAUDE_CONFIG_DIR": corpus}[k]
		},
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"corpus_list", nil},
		{"corpus_active", []string{"--active"}},
	} {
		var out, errb bytes.Buffer
		code := RunWith(deps, tt.args, nil, &out, &errb)
		if tt.name == "corpus_list" {
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if want == 0 || len(lines) < want {
				t.Errorf("listed %d sessions, the corpus has %d transcripts", len(lines), want)
			}
			prev := "9999"
			for _, l := range lines {
				if !strings.Contains(l, `"cwd":"/`) || strings.Contains(l, `"started_at":null`) {
					t.Errorf("record without cwd or start: %s", l)
				}
				m := regexp.MustCompile(`"last_activity_at":"([^"]+)"`).FindStringSubmatch(l)
				if m == nil || m[1] > prev {
					t.Errorf("not sorted newest activity first at %s", l)
				} else {
					prev = m[1]
				}
			}
		}
		got := fmt.Sprintf("exit %d\n-- stderr --\n%s-- stdout --\n%s", code, errb.String(), out.String())
		got = uidRE.ReplaceAllString(golden.Corpus(got, corpus), "/claude-$$UID/")
		golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
	}
}

// TestNoHomeFails is issue 13 item 14 for cc-sessions.
func TestNoHomeFails(t *testing.T) {
	var stdout, stderr strings.Builder
	code := RunWith(cli.System{Getenv: func(string) string { return "" }}, nil, nil, &stdout, &stderr)
	if code != 1 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "no home directory") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
