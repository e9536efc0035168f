package usage

import "github.com/ccpipe/ccpipe/lib/pricing"

// ReadOptions say whose transcript a line was read from.
type ReadOptions struct {
	// SessionID is the transcript's session (its file name says it): a
	// record without a sessionId is its. AgentID is the subagent whose
	// transcript it is, "" for a main transcript: a record without an
	// agentId is its.
	SessionID, AgentID string
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
