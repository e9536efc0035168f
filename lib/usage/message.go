package usage

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/ccpipe/ccpipe/lib/pricing"
)

// Message is one billed API message: the records Claude Code wrote for
// one response (one per content block, each repeating the usage), merged
// by a Merger. Its uuid and timestamp are its first record's.
type Message struct {
	// Key identifies the message (KeyOf); the copies a fork makes share
	// the original's.
	Key uint64
	// SessionID is the session that paid for it (pricing.Record.Owner:
	// for a fork's copy, the original); AgentID the subagent whose
	// transcript holds it, "" on the main thread.
	SessionID, AgentID string
	UUID, Timestamp    string
	// MessageID is message.id, RequestID the record's requestId,
	// RequestRef its requestRef; older and synthetic records lack some.
	MessageID, RequestID, RequestRef string
	// Model is message.model, the model that answered; RequestedModel
	// the record's requestedModel, the one Claude Code asked for and
	// prices the message by ("" when not read or not written).
	Model, RequestedModel string
	Cwd                   string
	// Copied: a fork's copy of another session's message, which counts
	// with the original's own record (Counter).
	Copied bool
	Tokens Tokens
	// Usage is the raw message.usage object, which Price reads ("" when
	// the reader was not asked for cost).
	Usage string
}

// Bill is the message as lib/pricing's billing rule reads it.
func (m *Message) Bill() pricing.Record {
	return pricing.Record{Type: "assistant", MessageID: m.MessageID, RequestID: m.RequestID, RequestRef: m.RequestRef, UUID: m.UUID}
}

// KeyOf is the key of the message a record belongs to (pricing's
// Record.AppendKey), hashed: a seen set holds 8 bytes a message, and a
// cache keeps them (so the hash, 64-bit FNV-1a, is the same in every
// process; two of a million keys meet by chance once in 3e7 runs).
func KeyOf(r *pricing.Record) uint64 {
	var buf [160]byte
	h := uint64(14695981039346656037)
	for _, c := range r.AppendKey(buf[:0]) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// Price prices the message as Claude Code does: its whole usage object at
// the prices of the model requested (else the one that answered). model
// is the model priced; err says why the message cannot be priced (no
// usage object, a count out of range, a cost that overflows).
func (m *Message) Price(cat *pricing.Catalog) (ch pricing.Charge, model string, err error) {
	return priceUsage(cat, m.RequestedModel, m.Model, m.Usage)
}

// priceUsage prices a usage object requested as reqModel (else answered
// as model): the one pricing rule of a message.
func priceUsage(cat *pricing.Catalog, reqModel, model, usageRaw string) (ch pricing.Charge, _ string, err error) {
	if reqModel != "" {
		model = reqModel
	}
	pu, err := pricing.ParseUsage([]byte(usageRaw))
	if err != nil {
		var re *pricing.RangeError
		if !errors.As(err, &re) {
			return ch, model, errors.New("no usage object")
		}
		return ch, model, err
	}
	ch = cat.Cost(model, &pu)
	if !Finite(ch.USD) {
		// A finite but huge price or count: +Inf would stop a JSON
		// output (and vanish from a sum); the message is flagged instead.
		return pricing.Charge{}, model, errors.New("the cost overflows (a price or token count too large)")
	}
	return ch, model, nil
}

// Finite says f is a number a JSON output can carry.
func Finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

// PriceLine prices the assistant line of one API response as Price does;
// model is its message.model, used when the line has no requestedModel.
// It returns the model priced.
func PriceLine(cat *pricing.Catalog, line []byte, model string) (pricing.Charge, string, error) {
	reqModel, usage := CostFields(line)
	return priceUsage(cat, reqModel, model, usage)
}

// CostFields reads requestedModel and the raw message.usage object of an
// assistant line: what Price reads beyond the token counts. It decodes
// only those two fields (with encoding/json, so that it does not depend
// on a fast reader's internals).
func CostFields(line []byte) (reqModel, usage string) {
	var r struct {
		RequestedModel any `json:"requestedModel"`
		Msg            *struct {
			Usage json.RawMessage `json:"usage"`
		} `json:"message"`
	}
	// A field of another type (message not an object) is a type error
	// that leaves the other fields read; only a syntax error loses all.
	var se *json.SyntaxError
	if err := json.Unmarshal(line, &r); errors.As(err, &se) {
		return "", ""
	}
	reqModel, _ = r.RequestedModel.(string)
	if r.Msg != nil && len(r.Msg.Usage) > 0 && string(r.Msg.Usage) != "null" {
		usage = string(r.Msg.Usage)
	}
	return reqModel, usage
}
