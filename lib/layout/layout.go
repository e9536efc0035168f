// Package layout is what ccpipe knows of how Claude Code lays out a
// config dir's sessions on disk: the shape of a session id, the names a
// transcript file may have, the session dir beside it (subagents,
// tool results) and the dirs of a project dir that hold no transcripts.
// Every package that names these files asks here.
//
// It imports nothing heavy, so that a command that only needs the names
// (cc-statusline, run on every status line refresh) does not link and
// initialise what lib/sessions needs to read transcripts.
package layout

import (
	"path/filepath"
	"strings"
)

// IsUUID reports whether s is a UUID in its 8-4-4-4-12 hex form: the
// shape of a session id (and of a peer message id).
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// TranscriptSuffixes are the names a transcript file may end in, in the
// order a reader prefers them (a plain file over a compressed copy).
var TranscriptSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst"}

// Session dir entries: the subagent transcripts and the stored tool
// results of a session.
const (
	SubagentsDir   = "subagents"
	ToolResultsDir = "tool-results"
)

// SkipDirs are the dirs under a project dir that hold no session
// transcripts of their own: a session's subagents and tool results, and
// the project's memory.
var SkipDirs = []string{SubagentsDir, ToolResultsDir, "memory"}

// IsSkipDir reports whether a dir of this name holds no session
// transcripts (see SkipDirs).
func IsSkipDir(name string) bool {
	for _, d := range SkipDirs {
		if name == d {
			return true
		}
	}
	return false
}

// HasTranscriptSuffix reports whether name ends in one of
// TranscriptSuffixes.
func HasTranscriptSuffix(name string) bool {
	_, ok := TrimSuffix(name)
	return ok
}

// Transcript returns the session id of a file name that is a session
// transcript (<uuid>.jsonl, <uuid>.jsonl.gz, <uuid>.jsonl.zst) and
// whether it is compressed.
func Transcript(name string) (id string, compressed, ok bool) {
	for i, suf := range TranscriptSuffixes {
		if strings.HasSuffix(name, suf) {
			id := strings.TrimSuffix(name, suf)
			if IsUUID(id) {
				return id, i > 0, true
			}
			return "", false, false
		}
	}
	return "", false, false
}

// TrimSuffix strips .jsonl, .jsonl.gz or .jsonl.zst from a transcript
// file name or path; ok is false when it has none of them.
func TrimSuffix(path string) (string, bool) {
	for _, s := range TranscriptSuffixes {
		if strings.HasSuffix(path, s) {
			return strings.TrimSuffix(path, s), true
		}
	}
	return path, false
}

// SessionDir is the directory holding a transcript's subagents and tool
// results: the transcript path without its suffix (the path itself when
// it has none).
func SessionDir(transcriptPath string) string {
	dir, _ := TrimSuffix(transcriptPath)
	return dir
}

// SessionID is the id a transcript file is named after (agent-<id> for
// a subagent's).
func SessionID(transcriptPath string) string {
	id, _ := TrimSuffix(filepath.Base(transcriptPath))
	return id
}

// SessionOfPath maps a file under a projects dir to the session that
// owns it: projects/<slug>/<id>.jsonl (or .jsonl.gz, .jsonl.zst) is the
// session itself, and anything under projects/<slug>/<id>/ (subagent
// transcripts, tool results, custom-title.json) belongs to it. Any other
// path, including other .jsonl files next to transcripts, maps to "".
func SessionOfPath(path string) string {
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
			if id, _, ok := Transcript(x); ok {
				return id
			}
		} else if IsUUID(x) {
			return x
		}
	}
	return ""
}
