package extract

import (
	"cmp"

	"github.com/ccpipe/ccpipe/lib/pricing"
	"github.com/ccpipe/ccpipe/lib/transcript"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// Usage is a usage fact: one API message's tokens, counted once. Its head
// is the message's first record.
type Usage struct {
	Base
	MessageID *string `json:"message_id"`
	// RequestID is the record's requestId; RequestRef its requestRef (the
	// api-request record). Older and synthetic records lack either.
	RequestID                *string `json:"request_id"`
	RequestRef               *string `json:"request_ref"`
	Model                    *string `json:"model"`
	InputTokens              int64   `json:"input_tokens"`
	OutputTokens             int64   `json:"output_tokens"`
	CacheReadInputTokens     int64   `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64   `json:"cache_creation_input_tokens"`
}

// usageRec is one message's usage, as the fast scanner or the decoded
// entry gives it (lib/usage's Message).
type usageRec = usage.Message

// usageState counts each message once across the whole input and emits it
// or hands it to lib/usage's Summer (--sum).
type usageState struct {
	x *Extractor
	g usage.Merger
	// counted counts each message once across the input: a fork's copies
	// count in the session that made them, when it is read.
	counted usage.Counter
	// sums sums the messages under --sum; nil without.
	sums *usage.Summer
}

func newUsageState(x *Extractor) *usageState {
	u := &usageState{x: x}
	if o := x.opts; o.Sum != "" {
		u.sums = usage.NewSummer(usage.SumOptions{By: o.Sum, WeekStart: o.WeekStart, Location: o.Location, Prices: o.Prices, Now: o.Now,
			Partial: !o.Since.IsZero() || !o.Until.IsZero() || !o.Subagents, Warn: o.Warn})
	}
	u.g.Out = func(r *usageRec) error { return u.take(r, r.Key) }
	return u
}

func (u *usageState) entry(o *Origin, e *transcript.Entry) error {
	if e.Type != "assistant" {
		// (cost-state and system records come under --sum session.)
		if r := u.recordedOf(cmp.Or(e.SessionID, o.SessionID)); r != nil {
			r.AddLine(e.Raw) // in file order, as a file's scan reads them
		}
		return nil
	}
	r, ok := UsageMessage(o, e)
	if rec := u.recordedOf(cmp.Or(e.SessionID, o.SessionID)); ok && r.Copied && rec != nil {
		rec.Copied++
	}
	if !ok {
		if b := base(o, e); e.Type == "assistant" && b.AgentID == nil && u.x.inWindow(deref(b.Timestamp)) {
			u.session(deref(b.SessionID), e.Cwd)
		}
		return nil
	}
	if u.x.opts.Prices != nil {
		r.RequestedModel, r.Usage = usage.CostFields(e.Raw)
	}
	return u.g.Add(&r)
}

// UsageMessage is a decoded assistant entry as a message of one record,
// when lib/pricing bills it (for a lib/usage Merger). Its session is the
// one that paid for it (a fork's copy counts in the original). Its
// RequestedModel and Usage are not read (usage.CostFields reads them of
// the entry's line), nor the cache write's split, which a decoded entry
// does not hold.
func UsageMessage(o *Origin, e *transcript.Entry) (usageRec, bool) {
	rec := BillRecord(o, e)
	if !rec.Billable() {
		return usageRec{}, false
	}
	b := base(o, e)
	mu := e.Message.Usage
	return usageRec{Key: usage.KeyOf(&rec), MessageID: rec.MessageID, RequestID: rec.RequestID, RequestRef: rec.RequestRef, UUID: e.UUID, Timestamp: e.TimestampRaw, Model: e.Message.Model,
		SessionID: rec.Owner(), AgentID: deref(b.AgentID), Cwd: e.Cwd, Copied: rec.Copied(),
		Tokens: usage.Tokens{InputTokens: mu.InputTokens, OutputTokens: mu.OutputTokens,
			CacheCreationInputTokens: mu.CacheCreationInputTokens, CacheReadInputTokens: mu.CacheReadInputTokens}}, true
}

// BillRecord is what lib/pricing's billing rule reads of a decoded entry
// (its session the origin's when the entry has none).
func BillRecord(o *Origin, e *transcript.Entry) pricing.Record {
	rec := pricing.Record{Type: e.Type, UUID: e.UUID, SessionID: e.SessionID}
	if rec.SessionID == "" && o != nil {
		rec.SessionID = o.SessionID
	}
	if m := e.Message; m != nil {
		rec.Model, rec.UsageObject, rec.MessageID = m.Model, m.Usage != nil, m.ID
	}
	if a := e.Assistant; a != nil {
		rec.APIError, rec.RequestID, rec.RequestRef, rec.RequestSessionID = a.IsAPIErrorMessage, a.RequestID, a.RequestRef, a.RequestSessionID
	}
	return rec
}

// recordedOf is session sid's record of Claude Code's figure; nil when
// the figures are not read (not --sum session).
func (u *usageState) recordedOf(sid string) *usage.Recorded {
	if u.sums == nil {
		return nil
	}
	return u.sums.Recorded(sid)
}

// addRecorded adds what one transcript of session sid says of Claude
// Code's figure (a file read by the fast path).
func (u *usageState) addRecorded(sid string, r *usage.Recorded) {
	if u.sums != nil {
		u.sums.AddRecorded(sid, r)
	}
}

// take counts a whole message once.
func (u *usageState) take(r *usageRec, key uint64) error {
	if !u.x.inWindow(r.Timestamp) {
		return nil
	}
	if !u.counted.Count(key, r.Copied, r.SessionID) {
		// Counted already, or a copy counted with the original's own
		// record, whenever it comes (left out, and counted at the end,
		// if it never does).
		return nil
	}
	if u.x.opts.Priced != nil && u.x.opts.Prices != nil {
		u.x.opts.Priced(r.Priced(u.x.opts.Prices))
	}
	if u.x.opts.Sum == "" {
		rec := Usage{
			Base:      Base{SessionID: str(r.SessionID), AgentID: str(r.AgentID), UUID: str(r.UUID), Timestamp: str(r.Timestamp)},
			MessageID: str(r.MessageID), RequestID: str(r.RequestID), RequestRef: str(r.RequestRef), Model: str(r.Model),
			InputTokens: r.Tokens.InputTokens, OutputTokens: r.Tokens.OutputTokens,
			CacheReadInputTokens: r.Tokens.CacheReadInputTokens, CacheCreationInputTokens: r.Tokens.CacheCreationInputTokens,
		}
		if u.x.opts.Prices != nil {
			return u.x.emit(u.costedUsage(r, rec))
		}
		return u.x.emit(rec)
	}
	u.sums.Add(r)
	return nil
}

// session lists a session with an assistant record (in the
// --since/--until window) under --sum session (usage.Summer.Session).
func (u *usageState) session(id, cwd string) {
	if u.sums != nil {
		u.sums.Session(id, cwd)
	}
}

func (u *usageState) endFile() error { return u.g.Flush() }

func (u *usageState) finish() error {
	var notes []string
	if left := u.counted.Uncounted(); len(left) > 0 {
		notes = append(notes, ForkNote("usage", left))
	}
	if u.sums == nil {
		for _, n := range notes {
			u.x.opts.Warn(n)
		}
		return nil
	}
	return u.sums.Finish(u.x.emit, notes...)
}
