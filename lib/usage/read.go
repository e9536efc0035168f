package usage

import (
	"bytes"
	"errors"
	"io"
	"iter"

	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/pricing"
)

// ReadOptions say whose transcript ReadMessages reads.
type ReadOptions struct {
	// SessionID is the transcript's session (its file name says it): a
	// record without a sessionId is its. AgentID is the subagent whose
	// transcript it is, "" for a main transcript: a record without an
	// agentId is its.
	SessionID, AgentID string
}

// ReadStats counts what ReadMessages skipped.
type ReadStats struct {
	Lines int
	// Malformed counts the lines with the assistant type's bytes that are
	// not a JSON object; TooLong those over ndjson's line limit (no
	// usage-bearing record is that long in practice).
	Malformed, TooLong int
	// Mismatched counts the billed records read with fields of an
	// unexpected type (read as empty: Line.Bad).
	Mismatched int
}

// ReadMessages reads the billed messages of one transcript, in file
// order, the records of each merged (Merger), and gives each to fn as it
// closes: it holds one message, never the transcript. Each message
// carries its RequestedModel and raw Usage, so Price gives its exact cost
// (Claude Code's own float), and every token field, the cache write's 5m
// and 1h split included. It counts nothing across transcripts (Counter
// does: a fork's copies are given, Copied set) and reads the stream it is
// given (a compressed transcript: transcript.Open's reader). An error of
// fn stops the read and is returned.
func ReadMessages(r io.Reader, o ReadOptions, fn func(*Message) error) (ReadStats, error) {
	var st ReadStats
	g := Merger{Out: fn}
	rd := ndjson.NewReader(r)
	var l Line
	for {
		line, err := rd.Next()
		st.Lines = rd.Line()
		switch {
		case err == io.EOF:
			return st, g.Flush()
		case errors.Is(err, ndjson.ErrLineTooLong):
			st.TooLong++
			continue
		case err != nil:
			return st, err
		case !bytes.Contains(line, assistantNeedle):
			continue
		}
		if ParseLine(line, &l) != nil {
			st.Malformed++
			continue
		}
		m, ok := l.message(o)
		if !ok {
			continue
		}
		if len(l.Bad) > 0 {
			st.Mismatched++
		}
		if err := g.Add(&m); err != nil {
			return st, err
		}
	}
}

// Messages is ReadMessages as an iterator: each message, then (as a
// last pair with a nil message) an error of the read, if any.
func Messages(r io.Reader, o ReadOptions) iter.Seq2[*Message, error] {
	return func(yield func(*Message, error) bool) {
		stopped := errors.New("stopped")
		_, err := ReadMessages(r, o, func(m *Message) error {
			if !yield(m, nil) {
				return stopped
			}
			return nil
		})
		if err != nil && err != stopped {
			yield(nil, err)
		}
	}
}

// Record is the line as lib/pricing's billing rule reads it; session is
// the transcript's, for a record without a sessionId.
func (l *Line) Record(session string) pricing.Record {
	rec := pricing.Record{Type: string(l.Type), Model: string(l.Model), UsageObject: l.HasUsage, APIError: l.APIError,
		MessageID: string(l.MessageID), RequestID: string(l.RequestID), RequestRef: string(l.RequestRef), UUID: string(l.UUID),
		SessionID: string(l.SessionID), RequestSessionID: string(l.RequestSessionID)}
	if rec.SessionID == "" {
		rec.SessionID = session
	}
	return rec
}

// message is the line as a message of one record, when the billing rule
// bills it.
func (l *Line) message(o ReadOptions) (Message, bool) {
	rec := l.Record(o.SessionID)
	if !rec.Billable() {
		return Message{}, false
	}
	m := Message{Key: KeyOf(&rec), SessionID: rec.Owner(), AgentID: string(l.AgentID), UUID: rec.UUID, Timestamp: string(l.Timestamp),
		MessageID: rec.MessageID, RequestID: rec.RequestID, RequestRef: rec.RequestRef, Model: rec.Model,
		RequestedModel: string(l.RequestedModel), Cwd: string(l.Cwd), Copied: rec.Copied(), Tokens: l.Tokens, Usage: string(l.Usage)}
	if m.AgentID == "" {
		m.AgentID = o.AgentID
	}
	return m, true
}
