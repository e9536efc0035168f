package ccgrep

import (
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// stdinJob is what an input record's search carries to its emit.
type stdinJob struct {
	line      []byte
	sessionID string
	last      time.Time // lastActive, with --sort recent
}

// hitRecord is one --matches record: one occurrence of a term in a
// session's content. Fields without a value (agent_id in the main
// transcript, uuid in a stored tool result, tool outside tool_use and
// tool_result) are null.
type hitRecord struct {
	SessionID      string  `json:"session_id"`
	AgentID        *string `json:"agent_id"`
	TranscriptPath string  `json:"transcript_path"`
	Path           string  `json:"path"`
	UUID           *string `json:"uuid"`
	Timestamp      *string `json:"timestamp"`
	Where          string  `json:"where"`
	Tool           *string `json:"tool"`
	Attachment     *string `json:"attachment"`
	Field          *string `json:"field"`
	Term           string  `json:"term"`
	Snippet        string  `json:"snippet"`
	MatchStart     int     `json:"match_start"`
	MatchEnd       int     `json:"match_end"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// emitHits writes a matching session's hits, in file order.
func (o *options) emitHits(env *cli.Env, transcriptPath, sessionID string, r search.Result) error {
	if sessionID == "" {
		sessionID = records.SessionOfPath(transcriptPath)
	}
	for _, h := range r.Hits {
		rec := hitRecord{
			SessionID: sessionID, AgentID: orNull(h.AgentID), TranscriptPath: transcriptPath, Path: h.Path,
			UUID: orNull(h.UUID), Timestamp: orNull(h.Timestamp),
			Where: h.Where, Tool: orNull(h.Tool), Attachment: orNull(h.Attachment), Field: orNull(h.Field),
			Term: o.terms[h.Term], Snippet: h.Snippet, MatchStart: h.Start, MatchEnd: h.End,
		}
		if err := env.Out.Write(rec); err != nil {
			return err
		}
	}
	return nil
}

// hitsInOrder reads the matching sessions again, in the order given
// (the listing's, or --sort's), and writes their hits: the memory held is
// a few sessions' hits, whatever the number of matches.
func (o *options) hitsInOrder(env *cli.Env, matched []sessions.Session) error {
	s, err := search.New(search.Options{Terms: o.terms, Any: o.any, Matches: true, Context: o.context})
	if err != nil {
		return err
	}
	p := s.Start(env.Ctx, o.workers, func(j search.Job, r search.Result) error {
		warnErrs(env, r)
		return o.emitHits(env, j.TranscriptPath, j.Data.(string), r)
	})
	for _, h := range matched {
		if err := p.Add(search.Job{TranscriptPath: h.TranscriptPath, Data: h.SessionID}); err != nil {
			break
		}
	}
	if err := p.Wait(); err != nil && env.Ctx.Err() == nil {
		return err
	}
	return nil
}
