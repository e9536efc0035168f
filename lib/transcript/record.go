package transcript

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// Entry is one transcript line, decoded. Every line gets the envelope
// fields; user, assistant, system and attachment records also get their
// typed part (Message plus User or Assistant, System, Attachment). Every
// other record type is a plain Entry whose own fields stay in Raw.
type Entry struct {
	Type              string
	UUID              string
	ParentUUID        string // "" at a root (parentUuid null)
	LogicalParentUUID string // set on a compact_boundary, whose parentUuid is null
	SessionID         string
	AgentID           string // subagent files only
	IsSidechain       bool
	IsMeta            bool
	Timestamp         time.Time // zero when absent or not RFC 3339
	TimestampRaw      string
	Cwd               string
	Version           string
	GitBranch         string
	Entrypoint        string
	PromptID          string
	Slug              string

	// Raw is the whole line as written, always kept.
	Raw json.RawMessage
	// TypeMismatches names the fields (as paths such as "message.content"
	// or "message.content[2].input") whose JSON type was not the expected
	// one. Such a field reads as empty.
	TypeMismatches []string
	// UnknownBlocks counts content blocks of a type this package does not
	// model, anywhere in the message (they are kept raw).
	UnknownBlocks int

	Message    *Message    // user and assistant records
	User       *User       // user records
	Assistant  *Assistant  // assistant records
	System     *System     // system records
	Attachment *Attachment // attachment records
}

// Message is the API message inside a user or assistant record.
type Message struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Role  string `json:"role"`
	Model string `json:"model"`
	// Content holds the blocks. A plain string content (prompts) becomes
	// one text block and ContentIsString is set.
	Content         []Block `json:"-"`
	ContentIsString bool    `json:"-"`
	StopReason      string  `json:"stop_reason"`
	StopSequence    string  `json:"stop_sequence"`
	Usage           *Usage  `json:"usage"`
}

// Usage is an assistant message's token usage. Claude Code repeats the
// whole message's usage on every block record: sum once per Message.ID.
type Usage struct {
	InputTokens              int64  `json:"input_tokens"`
	OutputTokens             int64  `json:"output_tokens"`
	CacheCreationInputTokens int64  `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64  `json:"cache_read_input_tokens"`
	ServiceTier              string `json:"service_tier"`
}

// User holds the fields of a user record besides its message.
type User struct {
	PromptSource              string          `json:"promptSource"`   // sdk, typed, system
	TurnOrigin                string          `json:"turnOrigin"`     // sdk, human, peer, task_notification
	PermissionMode            string          `json:"permissionMode"` // on prompt records
	Origin                    json.RawMessage `json:"origin"`
	OriginKind                string          `json:"-"` // origin.kind: human, peer, task-notification, ...
	ToolUseResult             json.RawMessage `json:"toolUseResult"`
	SourceToolAssistantUUID   string          `json:"sourceToolAssistantUUID"`
	PermissionDecision        json.RawMessage `json:"permissionDecision"`
	ToolDenialKind            string          `json:"toolDenialKind"`
	IsCompactSummary          bool            `json:"isCompactSummary"`
	IsVisibleInTranscriptOnly bool            `json:"isVisibleInTranscriptOnly"`
	// Info is ToolUseResult's fields as ReadResultInfo reads them, when
	// InfoRead: DecodeTools reads them in the walk that finds the value's
	// end, so a tool fact does not scan it again.
	Info     ResultInfo `json:"-"`
	InfoRead bool       `json:"-"`
}

// Assistant holds the fields of an assistant record besides its message.
type Assistant struct {
	RequestID  string `json:"requestId"`
	RequestRef string `json:"requestRef"`
	// RequestSessionID is set on the records a fork copied: the session
	// that made the request (lib/pricing's Record.Owner).
	RequestSessionID  string `json:"requestSessionId"`
	APIBlockIndex     int    `json:"apiBlockIndex"`
	IsAPIErrorMessage bool   `json:"isApiErrorMessage"`
	// Error is the error kind of a synthetic error record ("invalid_request").
	Error string `json:"-"`
}

// System holds the fields of a system record.
type System struct {
	Subtype string `json:"subtype"` // compact_boundary, api_error, stop_hook_summary, turn_duration, ...
	// Content is the record's text ("Conversation compacted").
	Content         string          `json:"-"`
	Level           string          `json:"level"`
	CompactMetadata json.RawMessage `json:"compactMetadata"`
	// Error is the api_error record's error object, raw.
	Error        json.RawMessage `json:"-"`
	RetryInMs    float64         `json:"retryInMs"`
	RetryAttempt int             `json:"retryAttempt"`
	MaxRetries   int             `json:"maxRetries"`
	DurationMs   float64         `json:"durationMs"` // turn_duration
}

// Attachment is an attachment record's payload: Type is attachment.type
// (hook_success, queued_command, file, ...), Raw the whole object.
type Attachment struct {
	Type string
	Raw  json.RawMessage
}

// Block is one content block. Which fields are set depends on Type.
type Block struct {
	Type string
	// Text is set on text blocks.
	Text string
	// TextJSON stands for Text on the text block of a tool result's
	// string content read by DecodeTools: the string as the line wrote
	// it, quotes included, not decoded (Text is empty; the function Text
	// decodes it). A fact that only copies the text out as JSON skips
	// the decode (lib/extract's tools).
	TextJSON []byte
	// Thinking and Signature are set on thinking blocks; Data on
	// redacted_thinking blocks.
	Thinking  string
	Signature string
	Data      string
	// ID, Name and Input are set on tool_use blocks.
	ID    string
	Name  string
	Input json.RawMessage
	// ToolUseID, Content and IsError are set on tool_result blocks. A
	// string content becomes one text block, with ContentIsString set.
	ToolUseID       string
	Content         []Block
	ContentIsString bool
	IsError         bool
	// Source is an image block's source ({type, media_type, data}),
	// MediaType copied out of it.
	Source    json.RawMessage
	MediaType string
	// ToolName is set on tool_reference blocks.
	ToolName string
	// Raw is kept for blocks of an unknown type.
	Raw json.RawMessage
}

// Known block types.
const (
	BlockText             = "text"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockToolUse          = "tool_use"
	BlockToolResult       = "tool_result"
	BlockImage            = "image"
	BlockToolReference    = "tool_reference"
)

// Text joins the text of a block list: what a reader sees of a message or
// a tool result.
func Text(blocks []Block) string {
	switch len(blocks) {
	case 0:
		return ""
	case 1:
		return blocks[0].text()
	}
	n := 0
	for _, b := range blocks {
		n += len(b.Text) + len(b.TextJSON) + 1
	}
	out := make([]byte, 0, n)
	for _, b := range blocks {
		if b.Type != BlockText {
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, b.text()...)
	}
	return string(out)
}

// text is the block's Text, decoded from TextJSON when it stands for it.
func (b *Block) text() string {
	if b.TextJSON != nil {
		return jsonscan.StringOf(b.TextJSON)
	}
	return b.Text
}

// KnownTypes is every record type the Claude Code 2.1.328 loader knows.
// A type outside it is counted as unknown (and still passed on).
var KnownTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "attachment": true, "progress": true,
	"queue-operation": true, "api-request": true, "api-request-resumed": true,
	"api-request-shape": true, "api-request-blob": true, "frame-link": true, "observer-ref": true,
	"continued-in": true, "resume-head-vouch": true, "file-history-snapshot": true,
	"file-history-delta": true, "attribution-snapshot": true, "custom-title": true,
	"ai-title": true, "tag": true, "relocated": true, "agent-name": true, "agent-color": true,
	"agent-setting": true, "mode": true, "permission-mode": true, "session-owner": true,
	"isolation-latch": true, "dev-mods": true, "atis-latch": true, "worktree-state": true,
	"bridge-session": true, "tools-used": true, "data-flow-records": true,
	"data-flow-incomplete": true, "derived-from": true, "summary": true, "pr-link": true,
	"history-suppression": true, "ended-by-model": true, "cost-state": true,
	"last-prompt": true, "content-replacement": true, "memory-mode": true,
	"artifact-comment-monitor": true, "artifact-autoreact-ledger": true,
	"fork-context-ref": true, "repl-mode": true,
}

// SortedKnownTypes lists KnownTypes in order, for messages.
func SortedKnownTypes() []string {
	out := make([]string, 0, len(KnownTypes))
	for t := range KnownTypes {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
