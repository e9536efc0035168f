package ccprofiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/profiles"
)

// machine builds a home with every kind of profile: default, legacy
// auth-switch (two profiles), a leftover dir, and an env dir whose name
// clashes with a profile.
func machine(t *testing.T) (profiles.Env, string) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".claude/projects", ".claude-profiles/work/projects", ".claude-profiles/old/sessions", "ci/work"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	yaml := "profiles:\n  work:\n    description: day job\n  personal: {}\n"
	if err := os.WriteFile(filepath.Join(home, ".claude-profiles/config.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return profiles.Env{Home: home, ClaudeConfigDir: filepath.Join(home, "ci/work")}, home
}

func TestRun(t *testing.T) {
	env, home := machine(t)
	clash := profiles.ClashName(filepath.Join(home, "ci/work"))
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"names", []string{"--jq", ".name", "-r"}, 0, "default\nwork\npersonal\nold\n" + clash + "\n", ""},
		{"sources", []string{"-q", `[.name, .source, .exists] | @tsv`, "-r"}, 0,
			"default\tdefault\ttrue\nwork\tauth-switch-legacy\ttrue\npersonal\tauth-switch-legacy\tfalse\nold\tleftover\ttrue\n" + clash + "\tenv\ttrue\n", ""},
		{"one profile", []string{"--profile", "work"}, 0,
			`{"name":"work","source":"auth-switch-legacy","config_dir":"$HOME/.claude-profiles/work","config_dir_given":"$HOME/.claude-profiles/work","exists":true,"projects_dir":"$HOME/.claude-profiles/work/projects","sessions_dir":"$HOME/.claude-profiles/work/sessions","description":"day job","config_file":"$HOME/.claude-profiles/config.yaml"}` + "\n", ""},
		{"unknown profile is a usage error", []string{"--profile", "nope"}, 2, "", "cc-profiles: no profile named \"nope\" (known: default, work, personal, old, " + clash + ")\nusage: cc-profiles [--profile NAME] [--archive DIR]... [--jq EXPR]\nRun 'cc-profiles -h' for help.\n"},
		{"stray argument", []string{"extra"}, 2, "", "cc-profiles: unexpected argument \"extra\"\nusage: cc-profiles [--profile NAME] [--archive DIR]... [--jq EXPR]\nRun 'cc-profiles -h' for help.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := RunWith(system(env), tt.args, nil, &out, &errb)
			got := strings.ReplaceAll(out.String(), home, "$HOME")
			if code != tt.code || got != tt.out || errb.String() != tt.err {
				t.Errorf("got (%d, %q, %q)\nwant (%d, %q, %q)", code, got, errb.String(), tt.code, tt.out, tt.err)
			}
		})
	}
}

func TestBrokenYAMLWarnsOnce(t *testing.T) {
	env, home := machine(t)
	if err := os.WriteFile(filepath.Join(home, ".claude-profiles/config.yaml"), []byte("profiles:\n  work: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := RunWith(system(env), []string{"-q", ".name", "-r"}, nil, &out, &errb)
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "cc-profiles: "+home+"/.claude-profiles/config.yaml:") {
		t.Errorf("code %d stderr %q", code, errb.String())
	}
	if !strings.Contains(out.String(), "default\n") || !strings.Contains(out.String(), "work\n") {
		t.Errorf("other profiles must still be listed: %q", out.String())
	}
}

// system is the cli.System of a profiles.Env.
func system(env profiles.Env) cli.System {
	return cli.System{Home: env.Home, Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return env.ClaudeConfigDir
		}
		return ""
	}}
}

// TestNoHomeFails is issue 13 item 14: with HOME unset and no passwd home,
// cc-profiles says so on one line and exits 1 instead of printing nothing.
func TestNoHomeFails(t *testing.T) {
	var stdout, stderr strings.Builder
	code := RunWith(cli.System{}, nil, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || stdout.Len() != 0 || stderr.String() != "cc-profiles: "+profiles.ErrNoHome.Error()+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// Archive dirs come after the config dirs: $CCPIPE_ARCHIVE first, then
// each --archive; an empty --archive is a usage error.
func TestArchiveProfiles(t *testing.T) {
	env, home := machine(t)
	sys := system(env)
	getenv := sys.Getenv
	sys.Getenv = func(k string) string {
		if k == profiles.ArchiveEnv {
			return filepath.Join(home, "env-arch")
		}
		return getenv(k)
	}
	var out, errb strings.Builder
	code := RunWith(sys, []string{"--archive", filepath.Join(home, "flag-arch"), "--jq", `select(.source == "archive") | [.name, .projects_dir] | @tsv`, "-r"}, nil, &out, &errb)
	want := "archive-env-arch\t$HOME/env-arch\narchive-flag-arch\t$HOME/flag-arch\n"
	if got := strings.ReplaceAll(out.String(), home, "$HOME"); code != 0 || got != want {
		t.Errorf("exit %d, got %q (%s), want %q", code, got, errb.String(), want)
	}
	out.Reset()
	errb.Reset()
	if code := RunWith(sys, []string{"--archive", ""}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "an archive dir is needed") {
		t.Errorf("empty --archive: exit %d, %q", code, errb.String())
	}
}
