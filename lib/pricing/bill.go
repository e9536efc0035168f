package pricing

import (
	"sort"
)

// The billing rule: which transcript records are API responses Claude
// Code paid for, which records are one response, and which session paid.
// cc-extract usage (both its readers), cc-render and cc-statusline ask
// here and decide nothing of their own, so that their totals agree.
//
// What Claude Code 2.1.328 writes (../shared/spec/pricing.md R2,
// hooks-and-transcripts.md 2.13, 2.14, checked with the real binary):
//   - one assistant record per content block of a response, each with the
//     response's message.id, requestId, requestRef and its full usage;
//   - a failed call as an assistant record with model "<synthetic>" and
//     isApiErrorMessage, which is no response (and other "<synthetic>"
//     records, answers Claude Code made up without a request);
//   - a fork (--resume X --fork-session) copies the original's records,
//     uuids, timestamps and ids kept, under its own sessionId, and marks
//     each copied assistant record with requestSessionId: the session that
//     made the request, kept through a fork of a fork.

// Record is what the rule reads of one transcript record.
type Record struct {
	Type string // the record's type
	// Model is message.model; UsageObject says message.usage is an
	// object (absent, null or another type is no usage).
	Model       string
	UsageObject bool
	APIError    bool // isApiErrorMessage
	MessageID   string
	RequestID   string
	RequestRef  string
	UUID        string
	// SessionID is the record's sessionId (or, without one, the session
	// of the transcript it was read from); RequestSessionID its
	// requestSessionId.
	SessionID        string
	RequestSessionID string
}

// Synthetic is the model of the records Claude Code writes without a
// request (a failed call's error, a made-up answer).
const Synthetic = "<synthetic>"

// Billable says the record is (one block of) an API response that was
// paid for: an assistant record with a usage object, neither synthetic
// nor an API error.
func (r *Record) Billable() bool {
	return r.Type == "assistant" && r.UsageObject && !r.APIError && r.Model != Synthetic
}

// AppendKey appends the key of the response the record belongs to: its
// message id with its request id (else requestRef), so that neither id
// alone decides; a record without a message id is a response of its own,
// keyed by its uuid. The copies a fork makes keep every id, so an
// original and its copies have one key. (An append, not a writer: a
// caller hashing the key of every message keeps it on its stack.)
func (r *Record) AppendKey(b []byte) []byte {
	if r.MessageID == "" {
		return append(append(b, "uuid\x00"...), r.UUID...)
	}
	b = append(append(b, r.MessageID...), 0)
	if r.RequestID != "" {
		return append(b, r.RequestID...)
	}
	return append(b, r.RequestRef...)
}

// Key is AppendKey as a string.
func (r *Record) Key() string { return string(r.AppendKey(nil)) }

// Owner is the session that paid for the response: the session whose
// transcript first wrote it. For a record a fork copied that is the
// original (requestSessionId), whichever transcript is read first.
func (r *Record) Owner() string {
	if r.RequestSessionID != "" {
		return r.RequestSessionID
	}
	return r.SessionID
}

// Copied says the record was copied into its transcript by a fork: the
// response was paid for, and is counted, in another session.
func (r *Record) Copied() bool {
	return r.RequestSessionID != "" && r.SessionID != "" && r.RequestSessionID != r.SessionID
}

// Replaces is how the records of one response merge into one: a later
// record replaces the one kept when its usage has more tokens (an earlier
// block's record can hold a partial streaming count); on a tie the first
// stays. The merged response keeps its first record's uuid and timestamp.
// Tokens are input + output + cache read + cache write.
func Replaces(nextTokens, keptTokens float64) bool { return nextTokens > keptTokens }

// Tokens is the token count Replaces compares.
func (u *Usage) Tokens() float64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
}

// Timed is one part of a response's charge (Charge.Parts) at the time of
// the response's first record (RFC 3339).
type Timed struct {
	TS  string
	USD float64
}

// SessionTotal is a session's cost as Claude Code adds it up: part by
// part in time order (its running total), so that a sum over files read
// in another order (subagents after the main transcript) is the same
// float. parts is sorted in place; equal times keep their order.
func SessionTotal(parts []Timed) float64 {
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].TS < parts[j].TS })
	total := 0.0
	for _, p := range parts {
		total += p.USD
	}
	return total
}
