// Package otel turns what a Claude Code transcript holds into the
// OpenTelemetry that Claude Code 2.1.328 itself sends with
// CLAUDE_CODE_ENABLE_TELEMETRY=1 (its metric and event names, units,
// temporality and attributes, as observed from the real binary: see
// docs/cc-otel.md), timestamped when it happened, and exports it over OTLP
// exactly once per destination: a ledger of what a collector acknowledged.
//
// The OTLP data is built with the OpenTelemetry collector's pdata, which
// keeps historical timestamps (an SDK meter stamps "now") and gives the
// protobuf and JSON encodings and the gRPC client; nothing here encodes
// OTLP by hand.
package otel

import (
	"time"
)

// The names Claude Code 2.1.328 uses (observed; docs/cc-otel.md).
const (
	ServiceName  = "claude-code"
	MetricsScope = "com.anthropic.claude_code"
	EventsScope  = "com.anthropic.claude_code.events"

	MetricSessionCount = "claude_code.session.count"
	MetricTokenUsage   = "claude_code.token.usage"
	MetricCostUsage    = "claude_code.cost.usage"

	EventUserPrompt   = "user_prompt"
	EventAPIRequest   = "api_request"
	EventToolDecision = "tool_decision"
	EventToolResult   = "tool_result"

	// Redacted stands for a prompt unless OTEL_LOG_USER_PROMPTS=1.
	Redacted = "<REDACTED>"

	// ProvenanceKey is the resource attribute that marks a backfill
	// from transcripts, so a dashboard can tell it from live telemetry.
	ProvenanceKey   = "ccpipe.provenance"
	ProvenanceValue = "transcript"
)

// Attr is one attribute: a string, an int or a float.
type Attr struct {
	Key   string
	Str   string
	Int   int64
	Float float64
	Kind  AttrKind
}

// AttrKind says which of Attr's values is set.
type AttrKind uint8

// The kinds of attribute values Claude Code sends.
const (
	KindStr AttrKind = iota
	KindInt
	KindFloat
)

// S, I and F make attributes.
func S(k, v string) Attr         { return Attr{Key: k, Str: v} }
func I(k string, v int64) Attr   { return Attr{Key: k, Int: v, Kind: KindInt} }
func F(k string, v float64) Attr { return Attr{Key: k, Float: v, Kind: KindFloat} }

// Event is one thing a session did, as Claude Code reports it: a log
// event (Name set), and for an API request or a session's start also the
// metric points it adds.
type Event struct {
	// Name is the event name without the claude_code. prefix; "" for a
	// session's start, which is a metric point only.
	Name string
	// SessionID and ID identify the event for the ledger: ID is unique
	// within the session (a message's key, a prompt's uuid, a tool call).
	SessionID, ID string
	// Version is the Claude Code version that wrote it (service.version).
	Version string
	// UserID is Claude Code's user.id when known.
	UserID string
	Time   time.Time
	// Seq is event.sequence: the event's place among the session's
	// events, in transcript order.
	Seq   int64
	Attrs []Attr
	// API is set for api_request: what the token and cost metrics add.
	API *APIRequest
	// msgKey is an api_request's message (lib/usage's KeyOf): a run
	// sends each message once.
	msgKey uint64
	// keys are the event's ledger keys, of logs then metrics, when
	// hasKeys (an event from the event cache).
	keys    [2]Key
	hasKeys bool
	// rest, for an event from the event cache, is where the rest of it
	// is (at restOff), until complete reads it.
	rest      *recordRest
	restOff   int
	completed bool
}

// APIRequest is one API response's tokens and cost.
type APIRequest struct {
	Model                            string
	Input, Output                    int64
	CacheRead, CacheCreation         int64
	CacheCreation5m, CacheCreation1h int64
	CostUSD                          float64
	// Priced is false when the usage could not be priced: no cost
	// point is sent then (never a made-up 0).
	Priced bool
	// QuerySource is the metric's query_source ("" unknown); Effort the
	// request's effort ("" unknown).
	QuerySource, Effort string
}

// SessionStart says the event is a session's start (session.count).
func (e *Event) SessionStart() bool { return e.Name == "" }
