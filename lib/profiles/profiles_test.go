package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes files (content after '=' when given) and dirs (trailing '/')
// under root.
func tree(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		name, content, _ := strings.Cut(p, "=")
		full := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type row struct{ name, source, dir string }

func summary(list []Profile, home string) []row {
	var out []row
	for _, p := range list {
		out = append(out, row{p.Name, p.Source, strings.Replace(p.ConfigDir, home, "~", 1)})
	}
	return out
}

func TestDiscover(t *testing.T) {
	legacyYAML := "profiles:\n  work:\n    description: day job\n  personal: {}\n"
	tests := []struct {
		name     string
		files    []string
		env      string // CLAUDE_CONFIG_DIR relative to home, "" for unset
		links    [][2]string
		want     []row
		warnings int
	}{
		{
			name:  "default only",
			files: []string{".claude/projects/"},
			want:  []row{{"default", "default", "~/.claude"}},
		},
		{
			name:  "default listed even when missing",
			files: []string{"other/"},
			want:  []row{{"default", "default", "~/.claude"}},
		},
		{
			name: "legacy profiles, leftover and env",
			files: []string{".claude/", ".claude-profiles/config.yaml=" + legacyYAML,
				".claude-profiles/work/", ".claude-profiles/old/.claude.json={}", ".claude-profiles/notaprofile/",
				"cfg/ci/projects/"},
			env: "cfg/ci",
			want: []row{
				{"default", "default", "~/.claude"},
				{"work", "auth-switch-legacy", "~/.claude-profiles/work"},
				{"personal", "auth-switch-legacy", "~/.claude-profiles/personal"},
				{"old", "leftover", "~/.claude-profiles/old"},
				{"ci", "env", "~/cfg/ci"},
			},
		},
		{
			name: "current auth-switch.yaml wins over legacy",
			files: []string{".claude/auth-switch.yaml=profiles:\n  alpha: {}\n",
				".claude-profiles/config.yaml=" + legacyYAML, ".claude-profiles/work/sessions/"},
			want: []row{
				{"default", "default", "~/.claude"},
				{"alpha", "auth-switch", "~/.claude/alpha"},
				{"work", "leftover", "~/.claude-profiles/work"},
			},
		},
		{
			name:  "env naming a listed dir through a symlink is one profile",
			files: []string{".claude/", ".claude-profiles/config.yaml=" + legacyYAML, ".claude-profiles/work/"},
			links: [][2]string{{".claude-profiles/work", "link-to-work"}},
			env:   "link-to-work",
			want: []row{
				{"default", "default", "~/.claude"},
				{"work", "auth-switch-legacy", "~/.claude-profiles/work"},
				{"personal", "auth-switch-legacy", "~/.claude-profiles/personal"},
			},
		},
		{
			name:  "clashing name becomes cfg-hex",
			files: []string{".claude/", ".claude-profiles/config.yaml=" + legacyYAML, "elsewhere/work/projects/"},
			env:   "elsewhere/work",
			want: []row{
				{"default", "default", "~/.claude"},
				{"work", "auth-switch-legacy", "~/.claude-profiles/work"},
				{"personal", "auth-switch-legacy", "~/.claude-profiles/personal"},
				{"cfg-HASH", "env", "~/elsewhere/work"},
			},
		},
		{
			name:     "broken yaml warns and keeps the rest",
			files:    []string{".claude/", ".claude-profiles/config.yaml=profiles:\n  work: {\n  bad", ".claude-profiles/work/projects/"},
			warnings: 1,
			want: []row{
				{"default", "default", "~/.claude"},
				{"work", "leftover", "~/.claude-profiles/work"},
			},
		},
		{
			name:     "profile name that is a path is refused",
			files:    []string{".claude/", ".claude-profiles/config.yaml=profiles:\n  ../escape: {}\n"},
			warnings: 1,
			want:     []row{{"default", "default", "~/.claude"}},
		},
		{
			name:     "a bad profile name does not drop the profiles after it",
			files:    []string{".claude/", ".claude-profiles/config.yaml=profiles:\n  a: {}\n  ../escape: {}\n  b: {}\n  /abs: {}\n  c: 5\n"},
			warnings: 2,
			want: []row{
				{"default", "default", "~/.claude"},
				{"a", "auth-switch-legacy", "~/.claude-profiles/a"},
				{"b", "auth-switch-legacy", "~/.claude-profiles/b"},
				{"c", "auth-switch-legacy", "~/.claude-profiles/c"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			tree(t, home, tt.files...)
			for _, l := range tt.links {
				if err := os.Symlink(filepath.Join(home, l[0]), filepath.Join(home, l[1])); err != nil {
					t.Fatal(err)
				}
			}
			env := Env{Home: home}
			if tt.env != "" {
				env.ClaudeConfigDir = filepath.Join(home, tt.env)
			}
			list, warnings := Discover(env)
			got := summary(list, home)
			for i := range tt.want {
				if tt.want[i].name == "cfg-HASH" {
					tt.want[i].name = ClashName(filepath.Join(home, tt.env))
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v\nwant %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("profile %d: got %v, want %v", i, got[i], tt.want[i])
				}
			}
			if len(warnings) != tt.warnings {
				t.Errorf("warnings: got %v, want %d", warnings, tt.warnings)
			}
			for _, w := range warnings {
				if !strings.Contains(w.Error(), ".yaml") {
					t.Errorf("warning %q does not name the file", w)
				}
			}
			// Stable: a second run gives the same names.
			again, _ := Discover(env)
			if len(again) != len(list) {
				t.Fatalf("second run listed %d, first %d", len(again), len(list))
			}
			for i := range again {
				if again[i].Name != list[i].Name {
					t.Errorf("name %d changed between runs: %q then %q", i, list[i].Name, again[i].Name)
				}
			}
		})
	}
}

func TestBrokenYAMLWarningHasLine(t *testing.T) {
	home := t.TempDir()
	tree(t, home, ".claude-profiles/config.yaml=profiles:\n  a: 1\n b: [\n")
	_, warnings := Discover(Env{Home: home})
	if len(warnings) != 1 || warnings[0].Line == 0 {
		t.Fatalf("want one warning with a line number, got %v", warnings)
	}
}

func TestProfileFields(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	tree(t, home, ".claude/projects/")
	list, _ := Discover(Env{Home: home, ClaudeConfigDir: filepath.Join(home, "missing")})
	if len(list) != 2 {
		t.Fatalf("got %d profiles", len(list))
	}
	d, e := list[0], list[1]
	if !d.Exists || d.ProjectsDir != filepath.Join(home, ".claude", "projects") || d.SessionsDir != filepath.Join(home, ".claude", "sessions") {
		t.Errorf("default profile: %+v", d)
	}
	if e.Exists || e.Name != "missing" || e.ConfigDirGiven != filepath.Join(home, "missing") {
		t.Errorf("env profile: %+v", e)
	}
}

func TestResolve(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	tree(t, root, "real/")
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(root, "link"):            filepath.Join(root, "real"),
		filepath.Join(root, "link", "nope"):    filepath.Join(root, "real", "nope"),
		filepath.Join(root, "real", "..", "x"): filepath.Join(root, "x"),
	} {
		if got := Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFromRecord(t *testing.T) {
	p, err := FromRecord([]byte(`{"name":"x","config_dir":"/c"}`))
	if err != nil || p.ProjectsDir != "/c/projects" || p.SessionsDir != "/c/sessions" {
		t.Fatalf("got %+v, %v", p, err)
	}
	if _, err := FromRecord([]byte(`{"name":"x"}`)); err == nil {
		t.Fatal("want an error for a record without config_dir")
	}
	if _, err := FromRecord([]byte(`{"config_dir":5}`)); err == nil {
		t.Fatal("want an error for a config_dir of the wrong type")
	}
}

// The root dir has no base name to go by: "/" would make addresses like
// "//name" that no query can parse.
func TestEnvRootDirGetsClashName(t *testing.T) {
	list, _ := Discover(Env{ClaudeConfigDir: "/"})
	if len(list) != 1 || list[0].Name != ClashName("/") {
		t.Fatalf("got %+v, want one profile named %s", list, ClashName("/"))
	}
}

func TestNamed(t *testing.T) {
	list := []Profile{{Name: "default"}, {Name: "work"}, {Name: "home"}}
	got, err := Named(list, []string{"home", "default"})
	if err != nil || len(got) != 2 || got[0].Name != "home" || got[1].Name != "default" {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := Named(list, nil); err != nil || len(got) != 3 {
		t.Errorf("no names: got %v, %v", got, err)
	}
	if _, err := Named(list, []string{"work", "nope"}); err == nil || err.Error() != `no profile named "nope"` {
		t.Errorf("unknown name: %v", err)
	}
}
