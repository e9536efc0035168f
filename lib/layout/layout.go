// Package layout is what ccpipe knows of how Claude Code lays out a
// config dir on disk: its projects and sessions dirs and the files that
// mark it, the shape of a session id, the names a transcript file may
// have, the session dir beside it (subagent transcripts, tool results)
// and the dirs of a project dir that hold no transcripts. Every package
// that names these files asks here.
//
// It imports nothing heavy, so that a command that only needs the names
// (cc-statusline, run on every status line refresh) does not link and
// initialise what lib/sessions needs to read transcripts.
package layout

import (
	"os"
	"path/filepath"
	"strings"
)

// The dirs of a config dir: the project dirs (one per launch dir, each
// holding its sessions' transcripts) and the running sessions' registry.
const (
	ProjectsName = "projects"
	SessionsName = "sessions"
)

// ProjectsDir is the projects dir of the config dir config.
func ProjectsDir(config string) string { return filepath.Join(config, ProjectsName) }

// SessionsDir is the registry dir of the config dir config.
func SessionsDir(config string) string { return filepath.Join(config, SessionsName) }

// configMarks are what a config dir holds besides its projects dir: the
// registry dir, and the state and settings files Claude Code writes.
var configMarks = []string{SessionsName, ".claude.json", "settings.json"}

// HasConfigMarks reports whether dir holds what marks a Claude Code
// config dir besides projects/: sessions/, .claude.json or settings.json.
// With projects, projects/ counts too (a config dir of transcripts only).
func HasConfigMarks(dir string, projects bool) bool {
	for _, m := range configMarks {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return true
		}
	}
	if projects {
		if _, err := os.Stat(ProjectsDir(dir)); err == nil {
			return true
		}
	}
	return false
}

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

// SubagentsDirOf is the dir of the subagent transcripts of the session
// whose main transcript is at transcriptPath (plain or compressed).
func SubagentsDirOf(transcriptPath string) string {
	return filepath.Join(SessionDir(transcriptPath), SubagentsDir)
}

// SubagentTranscript reports whether name, a file in a session's
// subagents dir, is a subagent's transcript (agent-<id>.jsonl, or
// compressed), with its agent id and whether it is compressed. Its
// .meta.json and anything else are not.
func SubagentTranscript(name string) (agentID string, compressed, ok bool) {
	rest, ok := strings.CutPrefix(name, "agent-")
	if !ok {
		return "", false, false
	}
	for i, suf := range TranscriptSuffixes {
		if id, ok := strings.CutSuffix(rest, suf); ok && id != "" {
			return id, i > 0, true
		}
	}
	return "", false, false
}

// IsSubagentPath reports whether path lies directly in a subagents dir:
// a subagent's transcript rather than a session's.
func IsSubagentPath(path string) bool {
	return filepath.Base(filepath.Dir(path)) == SubagentsDir
}

// OwnerDir is the session dir that holds what a transcript's records
// point at (tool results): the transcript's own session dir, or for a
// subagent's transcript the dir its subagents dir lies in.
func OwnerDir(transcriptPath string) string {
	if IsSubagentPath(transcriptPath) {
		return filepath.Dir(filepath.Dir(transcriptPath))
	}
	return SessionDir(transcriptPath)
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
		if parts[i] != ProjectsName || parts[i+1] == "" {
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
