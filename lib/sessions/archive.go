package sessions

import (
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// The values of Session.Source.
const (
	SourceLive    = "live"    // the transcript Claude Code writes
	SourceArchive = "archive" // a cc-entries --archive copy
)

// ReadOnce keeps one file per session among live transcripts and archive
// copies of the same session id: the live file while it is at least as
// long as the copy's content (so a grown session is read from where it
// grows), else the copy (the live file was truncated or rewritten). Live
// files and copies of other sessions pass through in order.
func ReadOnce(files []Session) []Session {
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
		return files
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
		if liveSize(files[j]) >= transcript.ArchivedLength(s.TranscriptPath) {
			drop[i] = true
			continue
		}
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
	return out
}

// liveSize is the content length of a live transcript (a compressed one
// is measured decompressed).
func liveSize(s Session) int64 {
	if s.Compressed {
		return transcript.ArchivedLength(s.TranscriptPath)
	}
	return s.SizeBytes
}
