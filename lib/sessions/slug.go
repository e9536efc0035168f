package sessions

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// MaxSlug is the length past which Claude Code cuts a project dir name and
// appends a hash.
const MaxSlug = 200

// Slug is the project dir name Claude Code 2.1.328 gives the (already
// symlink-resolved) dir path: every UTF-16 code unit outside [A-Za-z0-9]
// becomes '-' (so a non-BMP character gives two), and a result over 200
// units is cut to 200 and followed by '-' and the base-36 absolute value of
// Java's String.hashCode of the unslugged path.
func Slug(path string) string {
	b := rawSlug(path)
	if len(b) <= MaxSlug {
		return b
	}
	abs := int64(javaHash(utf16.Encode([]rune(path))))
	if abs < 0 {
		abs = -abs // JS Math.abs on a double: no int32 overflow
	}
	return b[:MaxSlug] + "-" + strconv.FormatInt(abs, 36)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// javaHash is Java's String.hashCode over UTF-16 units, as int32.
func javaHash(units []uint16) int32 {
	var h int32
	for _, u := range units {
		h = 31*h + int32(u)
	}
	return h
}

// isHashedSlug reports whether name has the shape of a cut-and-hashed slug.
func isHashedSlug(name string) bool {
	if len(name) <= MaxSlug+1 || name[MaxSlug] != '-' {
		return false
	}
	for _, c := range name[MaxSlug+1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// ProjectDirsFor returns the project dir names a session launched in cwd
// can have: the slug of the symlink-resolved path first (what Claude Code
// uses), then the slug of cwd as given when that differs.
func ProjectDirsFor(cwd string) []string {
	given := cwd
	if abs, err := filepath.Abs(cwd); err == nil {
		given = abs
	}
	out := []string{Slug(resolve(given))}
	if s := Slug(given); s != out[0] {
		out = append(out, s)
	}
	return out
}

// resolve is the symlink-resolved spelling of an absolute path; a path
// that does not exist (any more) is returned cleaned.
func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// withinMatcher decides which project dir names can hold a session
// launched in one of the dirs or below them, so a --cwd-within listing
// reads only those dirs.
type withinMatcher struct {
	dirs  []string // absolute, given and resolved spellings
	slugs []string // full (uncut) slugs of dirs
}

func newWithinMatcher(dirs []string) *withinMatcher {
	m := &withinMatcher{}
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = filepath.Clean(d)
		}
		for _, p := range []string{abs, resolve(abs)} {
			if seen[p] {
				continue
			}
			seen[p] = true
			m.dirs = append(m.dirs, p)
			m.slugs = append(m.slugs, rawSlug(p))
		}
	}
	return m
}

// rawSlug is the slug without the cut, as long as the path.
func rawSlug(path string) string {
	units := utf16.Encode([]rune(path))
	b := make([]byte, len(units))
	for i, u := range units {
		if u < 128 && isAlnum(byte(u)) {
			b[i] = byte(u)
		} else {
			b[i] = '-'
		}
	}
	return string(b)
}

// dirName reports whether a project dir called name can belong to a
// session launched in one of the dirs or below. A dir at or below D has
// the raw slug slug(D) or slug(D)+"-"+...; when that is over 200 units,
// only its first 200 survive, followed by "-<hash>".
func (m *withinMatcher) dirName(name string) bool {
	for _, s := range m.slugs {
		want := s + "-"
		if name == s || strings.HasPrefix(name, want) {
			return true
		}
		if len(want) > MaxSlug {
			want = want[:MaxSlug]
		}
		if isHashedSlug(name) && strings.HasPrefix(name[:MaxSlug], want) {
			return true
		}
	}
	return false
}

// cwd reports whether a session's launch dir is one of the dirs or below.
func (m *withinMatcher) cwd(cwd string) bool {
	if cwd == "" {
		return false
	}
	c := filepath.Clean(cwd)
	for _, d := range m.dirs {
		if c == d || strings.HasPrefix(c, d+string(filepath.Separator)) || d == "/" {
			return true
		}
	}
	return false
}

// CwdFilter returns a test for "launched in one of dirs or below" (given
// and symlink-resolved spellings), or nil when dirs is empty.
func CwdFilter(dirs []string) func(cwd string) bool {
	if len(dirs) == 0 {
		return nil
	}
	return newWithinMatcher(dirs).cwd
}
