// Package sessionid tells session ids and transcript names apart. It is
// apart from lib/sessions so that a command that only needs the names
// (cc-statusline, run on every status line refresh) does not link and
// initialise what lib/sessions needs to read transcripts.
package sessionid

import "strings"

// Valid reports whether s has the shape of a session id: a UUID in
// its 8-4-4-4-12 hex form.
func Valid(s string) bool {
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

// TranscriptSuffixes are the names a session's main transcript can have
// after its id, plain first.
var TranscriptSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst"}

// Transcript returns the session id of a file name that is a session
// transcript (<uuid>.jsonl, <uuid>.jsonl.gz, <uuid>.jsonl.zst) and whether
// it is compressed.
func Transcript(name string) (id string, compressed, ok bool) {
	for i, suf := range TranscriptSuffixes {
		if strings.HasSuffix(name, suf) {
			id := strings.TrimSuffix(name, suf)
			if Valid(id) {
				return id, i > 0, true
			}
			return "", false, false
		}
	}
	return "", false, false
}
