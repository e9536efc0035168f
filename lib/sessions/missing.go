package sessions

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// Missing is a session Claude Code ran that left no readable transcript:
// history.jsonl or the session registry names it and no transcript holds
// it, or its transcript holds markers only (no user or assistant
// record). Its JSON form is the cc-sessions --missing record.
type Missing struct {
	SessionID string
	Project   string
	Profiles  []string
	// Sources are where it was found: history, registry, transcript (a
	// file of markers only).
	Sources        []string
	TranscriptPath string
	FirstSeenAt    time.Time
	LastSeenAt     time.Time
	PromptCount    int
	// Cause is one of the Cause* names; Fix says what to do about it.
	Cause string
	Fix   string
}

// The likely causes of a missing transcript, and their fixes.
const (
	// CauseSwept: the transcript was older than cleanupPeriodDays when
	// Claude Code's cleanup ran.
	CauseSwept = "swept"
	// CauseNotWritten: a session Claude Code ran, within the cleanup
	// period, with no transcript: a write that failed, or a transcript
	// removed. (A nested session, started from a Claude Code tool shell
	// with CLAUDE_CODE_CHILD_SESSION=1 inherited, was reported to leave
	// none; 2.1.328 writes it: the contract's TestNestedSessionTranscript.)
	CauseNotWritten = "not_written"
	// CauseBridge: a Remote Control bridge session, which writes markers
	// only.
	CauseBridge = "bridge_markers_only"
	// CauseMarkersOnly: a transcript with markers only and no bridge
	// record: its conversation was not written (a failed write).
	CauseMarkersOnly = "markers_only"
)

var fixes = map[string]string{
	CauseSwept:       "archive transcripts before the cleanup (cc-entries --archive DIR, or its SessionEnd hook) or raise cleanupPeriodDays in settings.json",
	CauseNotWritten:  "check the projects dir is writable and the disk has room, and whether a cleanup script or a person removed the file (cc-entries --archive keeps copies)",
	CauseBridge:      "nothing to recover here: a Remote Control bridge writes markers only; read the session it bridges",
	CauseMarkersOnly: "check the projects dir is writable and the disk has room: the conversation's writes failed after the markers",
}

// MarshalJSON writes the record with nulls for unknown values.
func (m Missing) MarshalJSON() ([]byte, error) {
	profs := m.Profiles
	if profs == nil {
		profs = []string{}
	}
	return ndjson.Marshal(struct {
		SessionID      *string  `json:"session_id"`
		Project        *string  `json:"project"`
		Profiles       []string `json:"profiles"`
		Sources        []string `json:"sources"`
		TranscriptPath *string  `json:"transcript_path"`
		FirstSeenAt    *string  `json:"first_seen_at"`
		LastSeenAt     *string  `json:"last_seen_at"`
		PromptCount    int      `json:"prompt_count"`
		Cause          string   `json:"cause"`
		Fix            string   `json:"fix"`
	}{nz(m.SessionID), nz(m.Project), profs, m.Sources, nz(m.TranscriptPath), ts(m.FirstSeenAt), ts(m.LastSeenAt),
		m.PromptCount, m.Cause, m.Fix})
}

// markersHead bounds the transcript read for a conversation record: a
// file of markers only is small, and a larger one holds a conversation.
const markersHead = 1 << 20

// markersOnly reports whether the transcript at path holds no user or
// assistant record (a bigger file than markersHead is not markers only),
// and whether one of its records is bridge-session. It stops at the first
// conversation record, most often on the first lines.
func markersOnly(path string) (only, bridge bool) {
	f, err := regular.Open(path)
	if err != nil {
		return false, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > markersHead {
		return false, false
	}
	sc := bufio.NewScanner(io.LimitReader(f, markersHead))
	sc.Buffer(nil, markersHead)
	for sc.Scan() {
		var r struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch r.Type {
		case "user", "assistant":
			return false, false
		case "bridge-session":
			bridge = true
		}
	}
	return sc.Err() == nil, bridge
}

// MissingSessions lists the sessions of profs that left no readable
// transcript (see Missing), newest first. Problems (an unreadable
// history.jsonl, skipped lines, torn registry records) come back as
// errors.
func MissingSessions(ctx context.Context, profs []profiles.Profile, now time.Time) ([]Missing, []error) {
	files, errs := Files(ctx, ProjectsDirs(profs), nil)
	have := map[string]bool{}
	byID := map[string]*Missing{}
	var order []string
	add := func(id, project string, profs []string, source string, at time.Time) *Missing {
		m := byID[id]
		if m == nil {
			m = &Missing{SessionID: id, Project: project, Profiles: profs}
			byID[id] = m
			order = append(order, id)
		}
		if !slices.Contains(m.Sources, source) {
			m.Sources = append(m.Sources, source)
		}
		if m.Project == "" {
			m.Project = project
		}
		if !at.IsZero() && (m.FirstSeenAt.IsZero() || at.Before(m.FirstSeenAt)) {
			m.FirstSeenAt = at
		}
		if at.After(m.LastSeenAt) {
			m.LastSeenAt = at
		}
		return m
	}
	for _, f := range files {
		if f.Compressed {
			have[f.SessionID] = true
			continue
		}
		only, bridge := markersOnly(f.TranscriptPath)
		if !only {
			have[f.SessionID] = true
			continue
		}
		m := add(f.SessionID, "", f.Profiles, "transcript", f.Mtime)
		m.TranscriptPath, m.Cause = f.TranscriptPath, CauseMarkersOnly
		if bridge {
			m.Cause = CauseBridge
		}
	}
	dirs, seen := configDirs(profs)
	for _, d := range dirs {
		period := CleanupPeriodDays(d)
		errs = append(errs, eachHistoryOf(ctx, filepath.Join(d, "history.jsonl"), func(h HistoryEntry) error {
			if have[h.SessionID] {
				return nil
			}
			m := add(h.SessionID, h.Project, seen[d], "history", h.Time())
			m.PromptCount++
			if m.Cause == "" || m.Cause == CauseSwept || m.Cause == CauseNotWritten {
				m.Cause = CauseNotWritten
				if period > 0 && now.Sub(m.LastSeenAt) > time.Duration(period)*24*time.Hour {
					m.Cause = CauseSwept
				}
			}
			return nil
		})...)
		recs, rerrs := registry.Read(layout.SessionsDir(d))
		errs = append(errs, rerrs...)
		for _, r := range recs {
			if r.SessionID == "" || have[r.SessionID] {
				continue
			}
			var b struct {
				BridgeSessionID string `json:"bridgeSessionId"`
			}
			json.Unmarshal(r.Raw, &b) // (a record Read read is an object)
			var at time.Time
			if r.StartedAt > 0 {
				at = time.UnixMilli(r.StartedAt)
			}
			m := add(r.SessionID, r.Cwd, seen[d], "registry", at)
			switch {
			case b.BridgeSessionID != "":
				m.Cause = CauseBridge
			case m.Cause == "" || m.Cause == CauseSwept:
				m.Cause = CauseNotWritten // running, or ran lately: not swept
			}
		}
	}
	out := make([]Missing, 0, len(order))
	for _, id := range order {
		m := *byID[id]
		m.Fix = fixes[m.Cause]
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeenAt.After(out[j].LastSeenAt) })
	return out, errs
}
