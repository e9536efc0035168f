package sessions

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/regular"
)

// Swept is a session whose transcript is gone (Claude Code's cleanup
// deleted it) and that no archive holds, as the prompts a human typed in
// it survive in the config dir's history.jsonl. Its JSON form is the
// cc-sessions --swept record.
type Swept struct {
	SessionID     string
	Project       string // the dir the prompts were typed in
	Profiles      []string
	HistoryPath   string
	FirstPrompt   string
	FirstPromptAt time.Time
	LastPromptAt  time.Time
	PromptCount   int
}

// MarshalJSON writes the record with nulls for unknown values.
func (s Swept) MarshalJSON() ([]byte, error) {
	profs := s.Profiles
	if profs == nil {
		profs = []string{}
	}
	return ndjson.Marshal(struct {
		SessionID     *string  `json:"session_id"`
		Project       *string  `json:"project"`
		Profiles      []string `json:"profiles"`
		HistoryPath   *string  `json:"history_path"`
		FirstPrompt   *string  `json:"first_prompt"`
		FirstPromptAt *string  `json:"first_prompt_at"`
		LastPromptAt  *string  `json:"last_prompt_at"`
		PromptCount   int      `json:"prompt_count"`
	}{nz(s.SessionID), nz(s.Project), profs, nz(s.HistoryPath), nz(s.FirstPrompt), ts(s.FirstPromptAt), ts(s.LastPromptAt), s.PromptCount})
}

// HistoryEntry is one line of history.jsonl: a prompt typed in an
// interactive session (slash commands included).
type HistoryEntry struct {
	Display   string `json:"display"`
	Timestamp int64  `json:"timestamp"` // Unix milliseconds
	Project   string `json:"project"`
	SessionID string `json:"sessionId"`
}

// Time is the entry's timestamp.
func (h HistoryEntry) Time() time.Time { return time.UnixMilli(h.Timestamp) }

// maxHistoryLine bounds one history.jsonl line (a pasted prompt); longer
// lines are skipped and counted.
const maxHistoryLine = 64 << 20

// EachHistory calls fn for every readable entry of a history.jsonl, in
// file order, one line at a time. Lines that are not entries (a sessionId
// that is not a UUID included), or longer than the bound, are skipped and
// counted in skipped.
func EachHistory(ctx context.Context, path string, fn func(HistoryEntry) error) (skipped int, err error) {
	f, err := regular.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	for {
		if err := ctx.Err(); err != nil {
			return skipped, err
		}
		chunk, rerr := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxHistoryLine+1 {
			line = append(line, chunk...)
		} else {
			line = append(line[:0], 'x') // too long: make it fail to decode
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			var h HistoryEntry
			// A sessionId that is not a session id's shape (a UUID) is
			// not an entry: "../../etc/passwd" is never listed, nor used
			// to build a path.
			if json.Unmarshal(line, &h) != nil || !layout.IsUUID(h.SessionID) {
				if len(line) > 1 || line[0] != '\n' {
					skipped++
				}
			} else if err := fn(h); err != nil {
				return skipped, err
			}
		}
		line = line[:0]
		if rerr == io.EOF {
			return skipped, nil
		}
		if rerr != nil {
			return skipped, rerr
		}
	}
}

// SweptSessions lists the sessions of the profiles' history.jsonl files
// (each config dir read once) that have no transcript among the live and
// archived ones of profs, newest last prompt first. Problems (an
// unreadable file, skipped lines) come back as errors.
func SweptSessions(ctx context.Context, profs []profiles.Profile) ([]Swept, []error) {
	files, errs := Files(ctx, ProjectsDirs(profs), nil)
	have := map[string]bool{}
	for _, f := range files {
		have[f.SessionID] = true
	}
	byID := map[string]*Swept{}
	var order []string
	dirs, seen := configDirs(profs)
	for _, d := range dirs {
		path := filepath.Join(d, "history.jsonl")
		errs = append(errs, eachHistoryOf(ctx, path, func(h HistoryEntry) error {
			if have[h.SessionID] {
				return nil
			}
			s := byID[h.SessionID]
			if s == nil {
				s = &Swept{SessionID: h.SessionID, Project: h.Project, Profiles: seen[d], HistoryPath: path,
					FirstPrompt: h.Display, FirstPromptAt: h.Time(), LastPromptAt: h.Time()}
				byID[h.SessionID] = s
				order = append(order, h.SessionID)
			}
			s.PromptCount++
			if h.Time().Before(s.FirstPromptAt) {
				s.FirstPromptAt, s.FirstPrompt = h.Time(), h.Display
			}
			if h.Time().After(s.LastPromptAt) {
				s.LastPromptAt = h.Time()
			}
			return nil
		})...)
	}
	out := make([]Swept, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastPromptAt.After(out[j].LastPromptAt) })
	return out, errs
}

// configDirs is the config dirs of profs that are not archives, each
// once (resolved), with the names of the profiles that share it.
func configDirs(profs []profiles.Profile) (dirs []string, names map[string][]string) {
	names = map[string][]string{}
	for _, p := range profs {
		if profiles.IsArchive(p) {
			continue
		}
		d := profiles.Resolve(p.ConfigDir)
		if _, ok := names[d]; !ok {
			dirs = append(dirs, d)
		}
		names[d] = append(names[d], p.Name)
	}
	return dirs, names
}

// eachHistoryOf is EachHistory with its problems as errors (a missing
// file is none: not every config dir has typed prompts).
func eachHistoryOf(ctx context.Context, path string, fn func(HistoryEntry) error) []error {
	var errs []error
	skipped, err := EachHistory(ctx, path, fn)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("reading %s: %w", path, err))
	}
	if skipped > 0 {
		errs = append(errs, fmt.Errorf("%s: %d lines that are not prompt entries skipped", path, skipped))
	}
	return errs
}
