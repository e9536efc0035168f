package sessions

import (
	"fmt"

	"github.com/ccpipe/ccpipe/lib/cache"

	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The values of Session.Source.
const (
	SourceLive    = "live"    // the transcript Claude Code writes
	SourceArchive = "archive" // a cc-entries --archive copy
)

// CopyKeptError is ReadOnce's note that a session is read from its archive
// copy, not from its live file (which is shorter).
type CopyKeptError struct {
	SessionID string
	msg       string
}

func (e *CopyKeptError) Error() string { return e.msg }

// ReadOnce keeps one file per session among live transcripts and archive
// copies of the same session id: the live file while it is at least as
// long as the copy's content (so a grown session is read from where it
// grows), else the copy (the live file was truncated or rewritten). Live
// files and copies of other sessions pass through in order. A copy kept
// over its live file is named in notes: the live file's own records (what
// a rewrite put there) are not read, and the user is told which file
// was.
func ReadOnce(files []Session) (kept []Session, notes []error) {
	return readOnce(files, nil)
}

// anyArchived reports whether a listing holds an archive's copy.
func anyArchived(files []Session) bool {
	for i := range files {
		if files[i].Source == SourceArchive {
			return true
		}
	}
	return false
}

// readOnce is ReadOnce; a copy that decompresses past its bound is
// dropped with a note, and remembered in c (nil: none) so that the next
// listing does not decompress it again (copyLength).
func readOnce(files []Session, c *cache.Store) (kept []Session, notes []error) {
	if !anyArchived(files) {
		return files, nil // nothing read twice (and no map of every session)
	}
	live := map[string]int{} // session id -> index of its live file
	archived := map[string]bool{}
	for i, s := range files {
		if s.Source == SourceArchive {
			archived[s.SessionID] = true
		} else if _, ok := live[s.SessionID]; !ok {
			live[s.SessionID] = i
		}
	}
	if len(archived) == 0 {
		return files, nil
	}
	drop := map[int]bool{}
	seenCopy := map[string]bool{}
	for i, s := range files {
		if s.Source != SourceArchive {
			continue
		}
		if seenCopy[s.SessionID] { // a second archive holding it
			drop[i] = true
			continue
		}
		seenCopy[s.SessionID] = true
		j, ok := live[s.SessionID]
		if !ok {
			continue
		}
		held, err := copyLength(c, s.TranscriptPath)
		if err != nil {
			notes = append(notes, err)
		}
		live := liveSize(files[j])
		if live >= held {
			drop[i] = true
			continue
		}
		notes = append(notes, &CopyKeptError{SessionID: s.SessionID, msg: fmt.Sprintf("session %s: reading the archive copy %s (%d bytes of content), not the live transcript %s (%d bytes): the live file is shorter than its copy (rewritten or truncated), and its records since are not read",
			s.SessionID, s.TranscriptPath, held, files[j].TranscriptPath, live)})
		for k, t := range files {
			if t.SessionID == s.SessionID && t.Source != SourceArchive {
				drop[k] = true
			}
		}
	}
	out := files[:0:0]
	for i, s := range files {
		if !drop[i] {
			out = append(out, s)
		}
	}
	return out, notes
}

// liveSize is the content length of a live transcript (a compressed one
// is measured decompressed).
func liveSize(s Session) int64 {
	if s.Compressed {
		return transcript.ArchivedLength(s.TranscriptPath)
	}
	return s.SizeBytes
}
