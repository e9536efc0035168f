package sessions

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ccpipe/ccpipe/lib/sessionid"
)

// IsSessionID reports whether s has the shape of a session id: a UUID in
// its 8-4-4-4-12 hex form.
func IsSessionID(s string) bool { return sessionid.Valid(s) }

// TranscriptID returns the session id of a file name that is a session
// transcript (<uuid>.jsonl, <uuid>.jsonl.gz, <uuid>.jsonl.zst) and whether
// it is compressed.
func TranscriptID(name string) (id string, compressed, ok bool) { return sessionid.Transcript(name) }

// SessionIDForPath maps a file under a projects dir to the session that
// owns it: projects/<slug>/<id>.jsonl (or .jsonl.gz, .jsonl.zst) is the
// session itself, and anything under projects/<slug>/<id>/ (subagent
// transcripts, tool results, custom-title.json) belongs to it. Any other
// path, including other .jsonl files next to transcripts, maps to "".
func SessionIDForPath(path string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	// Find ".../projects/<slug>/<X>..." with X a session transcript or
	// dir. The first fit wins, so a project dir named "projects"
	// (CLAUDE_CODE_PROJECT_DIR_NAME) still maps.
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] != "projects" || parts[i+1] == "" {
			continue
		}
		x := parts[i+2]
		if i+2 == len(parts)-1 {
			if id, _, ok := TranscriptID(x); ok {
				return id
			}
		} else if IsSessionID(x) {
			return x
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
