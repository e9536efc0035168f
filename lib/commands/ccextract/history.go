package ccextract

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// sweptRecord is a cc-sessions --swept record: a session known only from
// the prompts history.jsonl kept after its transcript was deleted.
type sweptRecord struct {
	SessionID   string `json:"session_id"`
	HistoryPath string `json:"history_path"`
}

// readSwept writes the prompts of cc-sessions --swept records from their
// history.jsonl: each file read once, in its order, keeping the lines of
// the sessions named. history.jsonl holds what a human typed, as typed:
// origin human, no uuid, kind command for a slash command (kept with
// --all, as in transcripts) else prompt.
func (o *options) readSwept(env *cli.Env, kind string) error {
	if kind != "prompts" {
		return cli.Usagef("cc-sessions --swept records hold prompts only (history.jsonl): use cc-extract prompts")
	}
	ids := map[string]map[string]bool{}
	var files []string
	_, err := env.EachInput(func(line []byte, n int) error {
		var r sweptRecord
		if json.Unmarshal(line, &r) != nil || r.HistoryPath == "" || r.SessionID == "" {
			env.SkipInput(n, "no history_path and session_id, record skipped")
			return nil
		}
		if ids[r.HistoryPath] == nil {
			ids[r.HistoryPath] = map[string]bool{}
			files = append(files, r.HistoryPath)
		}
		ids[r.HistoryPath][r.SessionID] = true
		return nil
	})
	if err != nil {
		return err
	}
	for _, path := range files {
		want := ids[path]
		skipped, err := sessions.EachHistory(env.Ctx, path, func(h sessions.HistoryEntry) error {
			if !want[h.SessionID] {
				return nil
			}
			k := "prompt"
			if strings.HasPrefix(h.Display, "/") {
				k = "command"
				if !o.all {
					return nil
				}
			}
			sid, ts := h.SessionID, h.Time().UTC().Format(sessions.TimeFormat)
			return env.Out.Write(extract.Prompt{
				Base: extract.Base{SessionID: &sid, Timestamp: &ts},
				Text: h.Display, Origin: "human", Kind: k,
			})
		})
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if skipped > 0 {
			env.Warnf("%s: %d lines that are not prompt entries skipped", path, skipped)
		}
	}
	return nil
}
