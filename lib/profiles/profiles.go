// Package profiles finds the Claude Code config dirs on a machine: the
// default ~/.claude, the profiles of claude-code-auth-switch (current and
// legacy config files), dirs left behind under the profiles dir, and
// $CLAUDE_CONFIG_DIR. Each gets a name that is unique in the result and
// stable across runs.
package profiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/regular"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Sources, in the order they are listed.
const (
	SourceDefault    = "default"
	SourceAuthSwitch = "auth-switch"
	SourceLegacy     = "auth-switch-legacy"
	SourceLeftover   = "leftover"
	SourceEnv        = "env"
	// SourceArchive is a dir of cc-entries --archive copies, laid out as a
	// projects dir (<project dir name>/<session id>.jsonl.zst): named in
	// $CCPIPE_ARCHIVE or cc-profiles --archive, listed last, so sessions
	// read it as one more projects dir.
	SourceArchive = "archive"
)

// ArchiveEnv names the archive dirs read as sources, separated as PATH is.
const ArchiveEnv = "CCPIPE_ARCHIVE"

// Profile is one config dir. The JSON form is the cc-profiles record.
type Profile struct {
	Name           string `json:"name"`
	Source         string `json:"source"`
	ConfigDir      string `json:"config_dir"`       // symlinks resolved
	ConfigDirGiven string `json:"config_dir_given"` // as found
	Exists         bool   `json:"exists"`
	ProjectsDir    string `json:"projects_dir"`
	SessionsDir    string `json:"sessions_dir"`
	Description    string `json:"description,omitempty"`
	ConfigFile     string `json:"config_file,omitempty"` // the auth-switch yaml that names it
}

// Env is what discovery depends on, so tests can point it anywhere.
type Env struct {
	Home            string // $HOME
	ClaudeConfigDir string // $CLAUDE_CONFIG_DIR
	// Archives are archive dirs read as sources ($CCPIPE_ARCHIVE, then
	// cc-profiles --archive).
	Archives []string
}

// NewEnv is the Env of a home dir and an environment (nil: empty).
func NewEnv(home string, getenv func(string) string) Env {
	e := Env{Home: home}
	if getenv != nil {
		e.ClaudeConfigDir = getenv("CLAUDE_CONFIG_DIR")
		for _, d := range filepath.SplitList(getenv(ArchiveEnv)) {
			if d != "" {
				e.Archives = append(e.Archives, d)
			}
		}
	}
	return e
}

// ErrNoHome is the Warning Discover gives when neither a home dir nor
// CLAUDE_CONFIG_DIR is known: there is nowhere to look (see NoHome).
var ErrNoHome = errors.New("no home directory ($HOME is unset and the passwd entry names none): set HOME or CLAUDE_CONFIG_DIR")

// NoHome returns ErrNoHome when warnings hold it: a command then fails
// with that one line instead of listing nothing with exit 0.
func NoHome(warnings []Warning) error {
	for _, w := range warnings {
		if errors.Is(w.Err, ErrNoHome) {
			return ErrNoHome
		}
	}
	return nil
}

// Warning is a problem that did not stop discovery (a broken YAML file).
type Warning struct {
	File string
	Line int // 0 when unknown
	Err  error
}

func (w Warning) Error() string {
	if w.File == "" {
		return w.Err.Error()
	}
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", w.File, w.Line, w.Err)
	}
	return fmt.Sprintf("%s: %v", w.File, w.Err)
}

// Named keeps the profiles of list named in names, in the order of names
// (all of them when names is empty); a name no profile has is an error.
func Named(list []Profile, names []string) ([]Profile, error) {
	if len(names) == 0 {
		return list, nil
	}
	var out []Profile
	for _, name := range names {
		n := len(out)
		for _, p := range list {
			if p.Name == name {
				out = append(out, p)
			}
		}
		if len(out) == n {
			return nil, &UnknownProfileError{Name: name, Known: list}
		}
	}
	return out, nil
}

// Discover lists every config dir it can find. It never fails: unreadable
// config files become warnings and the other profiles are still listed.
func Discover(env Env) ([]Profile, []Warning) {
	var c collector
	if env.Home == "" && env.ClaudeConfigDir == "" && len(env.Archives) == 0 {
		return nil, []Warning{{Err: ErrNoHome}}
	}
	if env.Home != "" {
		c.add(SourceDefault, "default", filepath.Join(env.Home, ".claude"), "", "")
		c.authSwitch(env.Home)
	}
	if env.ClaudeConfigDir != "" {
		dir := env.ClaudeConfigDir
		if !filepath.IsAbs(dir) {
			dir, _ = filepath.Abs(dir)
		}
		name := filepath.Base(dir)
		if name == string(filepath.Separator) {
			name = "" // the root dir: "/" would break <profile>/<name> addresses
		}
		c.add(SourceEnv, name, dir, "", "")
	}
	for _, dir := range env.Archives {
		c.addArchive(dir)
	}
	return c.list, c.warnings
}

// IsArchive reports whether p is an archive dir rather than a config dir:
// its sessions are read-only copies, and it has no registry or settings.
func IsArchive(p Profile) bool { return p.Source == SourceArchive }

// addArchive adds an archive dir: its own projects dir, named
// "archive-<base>" so the name never takes a config dir's.
func (c *collector) addArchive(given string) {
	dir := given
	if !filepath.IsAbs(dir) {
		dir, _ = filepath.Abs(dir)
	}
	n := len(c.list)
	c.add(SourceArchive, "archive-"+filepath.Base(dir), dir, "", "")
	if len(c.list) > n {
		p := &c.list[n]
		p.ConfigDirGiven = given
		p.ProjectsDir = p.ConfigDir
	}
}

type collector struct {
	list     []Profile
	warnings []Warning
	seen     map[string]bool // resolved dirs
	names    map[string]bool
}

func (c *collector) add(source, name, given, desc, file string) {
	if c.seen == nil {
		c.seen, c.names = map[string]bool{}, map[string]bool{}
	}
	resolved := Resolve(given)
	if c.seen[resolved] {
		return
	}
	c.seen[resolved] = true
	if name == "" || c.names[name] {
		name = ClashName(resolved)
	}
	c.names[name] = true
	fi, err := os.Stat(resolved)
	c.list = append(c.list, Profile{
		Name: name, Source: source, ConfigDir: resolved, ConfigDirGiven: given,
		Exists:      err == nil && fi.IsDir(),
		ProjectsDir: layout.ProjectsDir(resolved),
		SessionsDir: layout.SessionsDir(resolved),
		Description: desc, ConfigFile: file,
	})
}

// maxConfigFile bounds a profiles config file (a few lines when real).
const maxConfigFile = 1 << 20

// authSwitch reads ~/.claude/auth-switch.yaml, else the legacy
// ~/.claude-profiles/config.yaml, then adds config dirs left in the
// profiles dirs that no file names.
func (c *collector) authSwitch(home string) {
	current := filepath.Join(home, ".claude", "auth-switch.yaml")
	legacy := filepath.Join(home, ".claude-profiles", "config.yaml")
	var scan []string
	for _, cf := range []struct{ file, source string }{{current, SourceAuthSwitch}, {legacy, SourceLegacy}} {
		data, err := regular.ReadFile(cf.file, maxConfigFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			c.warnings = append(c.warnings, Warning{File: cf.file, Err: err})
			continue
		}
		dir := filepath.Dir(cf.file)
		cfg, errs := parseConfig(data)
		for _, err := range errs {
			c.warnings = append(c.warnings, Warning{File: cf.file, Line: yamlLine(err), Err: err})
		}
		if cfg.ProfilesDir != "" {
			dir = expandHome(cfg.ProfilesDir, home)
		}
		for _, p := range cfg.Profiles {
			c.add(cf.source, p.Name, filepath.Join(dir, p.Name), p.Description, cf.file)
		}
		if Resolve(dir) != Resolve(filepath.Join(home, ".claude")) {
			scan = append(scan, dir)
		}
		break // the current file wins over the legacy one
	}
	scan = append(scan, filepath.Join(home, ".claude-profiles"))
	for _, dir := range scan {
		for _, d := range leftovers(dir) {
			c.add(SourceLeftover, filepath.Base(d), d, "", "")
		}
	}
}

type config struct {
	ProfilesDir string
	Profiles    []namedProfile
}

type namedProfile struct {
	Name        string
	Description string
}

// parseConfig reads the profiles map in file order. A profile whose body
// is not a map still counts (the name is what matters); a name that is not
// a directory name is refused on its own, so the profiles after it are
// still listed.
func parseConfig(data []byte) (config, []error) {
	var doc struct {
		ProfilesDir string    `yaml:"profiles_dir"`
		Profiles    yaml.Node `yaml:"profiles"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return config{}, []error{err}
	}
	cfg := config{ProfilesDir: doc.ProfilesDir}
	n := doc.Profiles
	if n.Kind == 0 {
		return cfg, nil
	}
	if n.Kind != yaml.MappingNode {
		return cfg, []error{fmt.Errorf("yaml: line %d: profiles is not a map", n.Line)}
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
			errs = append(errs, fmt.Errorf("yaml: line %d: profile name %q is not a directory name", n.Content[i].Line, name))
			continue
		}
		var body struct {
			Description string `yaml:"description"`
		}
		_ = n.Content[i+1].Decode(&body) // a body of another shape still names a profile
		cfg.Profiles = append(cfg.Profiles, namedProfile{Name: name, Description: body.Description})
	}
	return cfg, errs
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

func yamlLine(err error) int {
	if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// leftovers lists the subdirs of dir that look like Claude Code config
// dirs (layout.HasConfigMarks, projects/ included).
func leftovers(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if layout.HasConfigMarks(p, true) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Resolve returns the absolute, symlink-resolved form of dir; for a path
// that does not exist, the resolved existing parent joined with the rest.
func Resolve(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	parent, base := filepath.Split(abs)
	parent = filepath.Clean(parent)
	if parent == abs {
		return abs
	}
	return filepath.Join(Resolve(parent), base)
}

// ClashName is the name given to a dir whose natural name is taken: stable,
// because it is derived from the resolved path.
func ClashName(resolved string) string {
	sum := sha256.Sum256([]byte(resolved))
	return "cfg-" + hex.EncodeToString(sum[:])[:8]
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if len(p) > 1 && p[:2] == "~/" {
		return filepath.Join(home, p[2:])
	}
	return p
}

// FromRecord reads a profile record (a cc-profiles output line). It
// accepts any record with a config_dir.
func FromRecord(line []byte) (Profile, error) {
	var p Profile
	if err := json.Unmarshal(line, &p); err != nil {
		return p, err
	}
	if p.ConfigDir == "" {
		return p, errors.New("record has no config_dir")
	}
	if p.ProjectsDir == "" {
		p.ProjectsDir = layout.ProjectsDir(p.ConfigDir)
		if IsArchive(p) {
			p.ProjectsDir = p.ConfigDir
		}
	}
	if p.SessionsDir == "" {
		p.SessionsDir = layout.SessionsDir(p.ConfigDir)
	}
	return p, nil
}

// Names lists the profiles' names, for shell completion.
func Names(list []Profile) []string {
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.Name
	}
	return out
}

// UnknownName is the message for a --profile that names none of list.
func UnknownName(name string, list []Profile) string {
	names := Names(list)
	if len(names) == 0 {
		return fmt.Sprintf("no profile named %q (no profiles found)", name)
	}
	return fmt.Sprintf("no profile named %q (known: %s)", name, strings.Join(names, ", "))
}

// UnknownProfileError is Named's error for a name no profile has.
type UnknownProfileError struct {
	Name  string
	Known []Profile
}

func (e *UnknownProfileError) Error() string { return fmt.Sprintf("no profile named %q", e.Name) }

// Usage is the message for a usage error: the name and the known ones.
func (e *UnknownProfileError) Usage() string { return UnknownName(e.Name, e.Known) }
