package hooks

import "encoding/json"

// The 33 hook events of Claude Code 2.1.328, in the order of the CLI's own
// list (the enum of keys under "hooks" in settings.json).
const (
	PreToolUse          = "PreToolUse"
	PostToolUse         = "PostToolUse"
	PostToolUseFailure  = "PostToolUseFailure"
	PostToolBatch       = "PostToolBatch"
	Notification        = "Notification"
	UserPromptSubmit    = "UserPromptSubmit"
	UserPromptExpansion = "UserPromptExpansion"
	SessionStart        = "SessionStart"
	SessionEnd          = "SessionEnd"
	Stop                = "Stop"
	StopFailure         = "StopFailure"
	SubagentStart       = "SubagentStart"
	SubagentStop        = "SubagentStop"
	PreCompact          = "PreCompact"
	PostCompact         = "PostCompact"
	PreModelSwitch      = "PreModelSwitch"
	PostModelSwitch     = "PostModelSwitch"
	PermissionRequest   = "PermissionRequest"
	PermissionDenied    = "PermissionDenied"
	Setup               = "Setup"
	TeammateIdle        = "TeammateIdle"
	TaskCreated         = "TaskCreated"
	TaskCompleted       = "TaskCompleted"
	Elicitation         = "Elicitation"
	ElicitationResult   = "ElicitationResult"
	ConfigChange        = "ConfigChange"
	WorktreeCreate      = "WorktreeCreate"
	WorktreeRemove      = "WorktreeRemove"
	InstructionsLoaded  = "InstructionsLoaded"
	CwdChanged          = "CwdChanged"
	FileChanged         = "FileChanged"
	DirectoryAdded      = "DirectoryAdded"
	MessageDisplay      = "MessageDisplay"
)

// Events lists the 33 event names in Claude Code's order.
var Events = []string{
	PreToolUse, PostToolUse, PostToolUseFailure, PostToolBatch, Notification,
	UserPromptSubmit, UserPromptExpansion, SessionStart, SessionEnd, Stop,
	StopFailure, SubagentStart, SubagentStop, PreCompact, PostCompact,
	PreModelSwitch, PostModelSwitch, PermissionRequest, PermissionDenied, Setup,
	TeammateIdle, TaskCreated, TaskCompleted, Elicitation, ElicitationResult,
	ConfigChange, WorktreeCreate, WorktreeRemove, InstructionsLoaded, CwdChanged,
	FileChanged, DirectoryAdded, MessageDisplay,
}

// IsEvent reports whether name is one of the 33 known events.
func IsEvent(name string) bool {
	_, ok := newEvent[name]
	return ok
}

// Event is one parsed payload: a *PreToolUseEvent, *StopEvent, ... or an
// *UnknownEvent. Handlers type-switch on it.
type Event interface {
	// EventName is hook_event_name as sent.
	EventName() string
	// Common gives the fields every event carries, the raw payload and
	// what did not parse.
	Common() *Base
	// Matcher is the value a hook entry's matcher is tested against; ok
	// is false for an event that takes no matcher.
	Matcher() (value string, ok bool)
}

// Base holds the fields every event carries (FROM-CODE: one base schema
// that every event extends), the raw payload and the parse diagnostics.
type Base struct {
	SessionID      string  `json:"session_id"`
	TranscriptPath string  `json:"transcript_path"`
	Cwd            string  `json:"cwd"`
	PromptID       string  `json:"prompt_id"`       // absent before the first prompt
	PermissionMode string  `json:"permission_mode"` // "default" when the CLI mode is manual
	AgentID        string  `json:"agent_id"`        // set inside a subagent
	AgentType      string  `json:"agent_type"`      // subagent, or the main thread of an --agent session
	Effort         *Effort `json:"effort"`
	ScratchpadDir  string  `json:"scratchpad_dir"` // only when the scratchpad feature is on
	HookEventName  string  `json:"hook_event_name"`

	// Raw is the whole payload, every field in the order it was sent,
	// modelled or not.
	Raw RawObject `json:"-"`
	// UnknownFields names the fields of Raw that this version does not
	// model for the event (new in a later Claude Code, or misspelt).
	UnknownFields []string `json:"-"`
	// TypeMismatches names the fields whose JSON type was not the
	// expected one; such a field reads as empty. A nested problem is named
	// by its path ("effort.level", "tool_calls[2].tool_name").
	TypeMismatches []string `json:"-"`
}

// EventName is hook_event_name.
func (b *Base) EventName() string { return b.HookEventName }

// Common returns b itself; it makes every event type an Event.
func (b *Base) Common() *Base { return b }

// Matcher of an event that takes no matcher (an event type that takes one
// has its own).
func (b *Base) Matcher() (string, bool) { return "", false }

// Effort is the reasoning effort of the current turn.
type Effort struct {
	Level string `json:"level"`
}

// MCPServer names the MCP server behind an mcp__* tool.
type MCPServer struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// ToolCall holds the fields the tool events share.
type ToolCall struct {
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"` // see Tool for a typed view
	MCPServer *MCPServer      `json:"mcp_server"` // for mcp__* tools
}

// Tool returns a typed view of tool_input (*BashInput, *ReadInput, ...) and
// the input fields of an unexpected type, or nil for a tool without one.
func (t *ToolCall) Tool() (any, []string) { return ParseToolInput(t.ToolName, t.ToolInput) }

// PreToolUseEvent fires before a tool runs; its reply can allow, deny, ask,
// defer, or change the input.
type PreToolUseEvent struct {
	Base
	ToolCall
	ToolUseID string `json:"tool_use_id"`
}

// PermissionRequestEvent fires when a permission dialog would open (or a
// headless call has no allow rule).
type PermissionRequestEvent struct {
	Base
	ToolCall
	PermissionSuggestions []json.RawMessage `json:"permission_suggestions"`
}

// PostToolUseEvent fires after a tool succeeded.
type PostToolUseEvent struct {
	Base
	ToolCall
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse json.RawMessage `json:"tool_response"` // the structured result; MCP: the content array
	DurationMS   float64         `json:"duration_ms"`
}

// PostToolUseFailureEvent fires after a tool failed (Bash exit != 0, a Read
// of a missing file).
type PostToolUseFailureEvent struct {
	Base
	ToolCall
	ToolUseID   string  `json:"tool_use_id"`
	Error       string  `json:"error"`
	IsInterrupt bool    `json:"is_interrupt"`
	DurationMS  float64 `json:"duration_ms"`
}

// BatchCall is one call of a PostToolBatch.
type BatchCall struct {
	ToolName     string          `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolUseID    string          `json:"tool_use_id"`
	ToolResponse json.RawMessage `json:"tool_response"` // the tool_result content the model sees
}

// PostToolBatchEvent fires once per assistant message whose calls all
// resolved, denied and invalid calls included.
type PostToolBatchEvent struct {
	Base
	ToolCalls []BatchCall `json:"tool_calls"`
}

// PermissionDeniedEvent fires when auto mode refuses a call.
type PermissionDeniedEvent struct {
	Base
	ToolCall
	ToolUseID string `json:"tool_use_id"`
	Reason    string `json:"reason"`
}

// NotificationEvent fires for permission prompts, elicitation answers, idle
// prompts.
type NotificationEvent struct {
	Base
	Message          string `json:"message"`
	Title            string `json:"title"`
	NotificationType string `json:"notification_type"`
}

// UserPromptSubmitEvent fires for every prompt before the model sees it.
type UserPromptSubmitEvent struct {
	Base
	Prompt       string `json:"prompt"`
	Source       string `json:"source"` // user, sdk, system, loop_wakeup, schedule_wakeup, poll_event; may be absent
	SessionTitle string `json:"session_title"`
}

// UserPromptExpansionEvent fires when a slash command or MCP prompt expands.
type UserPromptExpansionEvent struct {
	Base
	ExpansionType string `json:"expansion_type"` // slash_command or mcp_prompt
	CommandName   string `json:"command_name"`
	CommandArgs   string `json:"command_args"`
	CommandSource string `json:"command_source"`
	Prompt        string `json:"prompt"`
}

// SessionStartEvent fires at startup, resume, clear, compact and fork.
type SessionStartEvent struct {
	Base
	Source                   string  `json:"source"`
	Model                    string  `json:"model"`
	SessionTitle             string  `json:"session_title"`
	SecondsSinceLastResponse float64 `json:"seconds_since_last_response"` // resume/fork
	ContextTokens            float64 `json:"context_tokens"`              // resume/fork
	PromptCacheLikelyExpired bool    `json:"prompt_cache_likely_expired"` // resume/fork
	EstimatedCacheWriteUSD   float64 `json:"estimated_cache_write_usd"`   // resume/fork
}

// SessionEndEvent fires when a session ends.
type SessionEndEvent struct {
	Base
	Reason string `json:"reason"` // clear, resume, logout, prompt_input_exit, other
}

// SetupEvent fires for --init-only and --maintenance.
type SetupEvent struct {
	Base
	Trigger string `json:"trigger"` // init or maintenance
}

// BackgroundTask is in-flight background work named in Stop payloads.
type BackgroundTask struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Status      string `json:"status"`
	Description string `json:"description"`
	Command     string `json:"command"`
	AgentType   string `json:"agent_type"`
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	Name        string `json:"name"`
}

// SessionCron is a scheduled wake-up named in Stop payloads.
type SessionCron struct {
	ID        string `json:"id"`
	Schedule  string `json:"schedule"`
	Recurring bool   `json:"recurring"`
	Prompt    string `json:"prompt"`
}

// StopEvent fires at the end of every main turn. Read
// LastAssistantMessage rather than the transcript, which can lag.
type StopEvent struct {
	Base
	StopHookActive       bool             `json:"stop_hook_active"`
	LastAssistantMessage string           `json:"last_assistant_message"`
	BackgroundTasks      []BackgroundTask `json:"background_tasks"`
	SessionCrons         []SessionCron    `json:"session_crons"`
}

// StopFailureEvent fires when a turn ends on an API error; fire and forget.
type StopFailureEvent struct {
	Base
	Error                string `json:"error"`
	ErrorDetails         string `json:"error_details"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// SubagentStartEvent fires when a subagent starts (AgentID and AgentType
// are in Base).
type SubagentStartEvent struct {
	Base
}

// SubagentStopEvent fires when a subagent ends, and for the compaction
// fork (AgentType "").
type SubagentStopEvent struct {
	Base
	StopHookActive       bool             `json:"stop_hook_active"`
	AgentTranscriptPath  string           `json:"agent_transcript_path"`
	LastAssistantMessage string           `json:"last_assistant_message"`
	BackgroundTasks      []BackgroundTask `json:"background_tasks"`
	SessionCrons         []SessionCron    `json:"session_crons"`
}

// PreCompactEvent fires before a compaction.
type PreCompactEvent struct {
	Base
	Trigger            string  `json:"trigger"`             // manual or auto
	CustomInstructions *string `json:"custom_instructions"` // null when none were given
}

// PostCompactEvent fires after a compaction.
type PostCompactEvent struct {
	Base
	Trigger        string `json:"trigger"`
	CompactSummary string `json:"compact_summary"`
}

// ModelSwitch holds the fields of both model-switch events.
type ModelSwitch struct {
	FromModel              string  `json:"from_model"`
	ToModel                string  `json:"to_model"`
	RequestedModel         *string `json:"requested_model"` // null for "default"
	Source                 string  `json:"source"`
	ContextTokens          float64 `json:"context_tokens"`
	PromptCacheWarm        bool    `json:"prompt_cache_warm"`
	CacheTTL               string  `json:"cache_ttl"`
	EstimatedCacheWriteUSD float64 `json:"estimated_cache_write_usd"`
	Pricing                string  `json:"pricing"`
}

// PreModelSwitchEvent fires before /model switches; the reply can refuse.
type PreModelSwitchEvent struct {
	Base
	ModelSwitch
}

// PostModelSwitchEvent fires after a model switch.
type PostModelSwitchEvent struct {
	Base
	ModelSwitch
}

// TeammateIdleEvent fires when an agent-team teammate finishes a turn (not
// seen in a real run; known from the schema only).
type TeammateIdleEvent struct {
	Base
	TeammateName string `json:"teammate_name"`
	TeamName     string `json:"team_name"` // deprecated
}

// Task holds the fields of the task events.
type Task struct {
	TaskID          string `json:"task_id"`
	TaskSubject     string `json:"task_subject"`
	TaskDescription string `json:"task_description"`
	TeammateName    string `json:"teammate_name"`
	TeamName        string `json:"team_name"`
}

// TaskCreatedEvent fires on TaskCreate.
type TaskCreatedEvent struct {
	Base
	Task
}

// TaskCompletedEvent fires when a task is marked completed.
type TaskCompletedEvent struct {
	Base
	Task
}

// ElicitationEvent fires when an MCP server asks the user for input.
type ElicitationEvent struct {
	Base
	MCPServerName   string          `json:"mcp_server_name"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"` // form or url
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitation_id"`
	RequestedSchema json.RawMessage `json:"requested_schema"`
}

// ElicitationResultEvent fires after the user answered an elicitation.
type ElicitationResultEvent struct {
	Base
	MCPServerName string          `json:"mcp_server_name"`
	ElicitationID string          `json:"elicitation_id"`
	Mode          string          `json:"mode"`
	Action        string          `json:"action"` // accept, decline, cancel
	Content       json.RawMessage `json:"content"`
}

// ConfigChangeEvent fires when a settings file changes during a session.
type ConfigChangeEvent struct {
	Base
	Source   string `json:"source"`
	FilePath string `json:"file_path"`
}

// WorktreeCreateEvent fires when a worktree is to be created.
type WorktreeCreateEvent struct {
	Base
	Name string `json:"name"`
}

// WorktreeRemoveEvent fires when a worktree is removed (Cwd is still the
// worktree).
type WorktreeRemoveEvent struct {
	Base
	WorktreePath string `json:"worktree_path"`
}

// InstructionsLoadedEvent fires when a CLAUDE.md or rules file is loaded.
type InstructionsLoadedEvent struct {
	Base
	FilePath        string   `json:"file_path"`
	MemoryType      string   `json:"memory_type"`
	LoadReason      string   `json:"load_reason"`
	Globs           []string `json:"globs"`
	TriggerFilePath string   `json:"trigger_file_path"`
	ParentFilePath  string   `json:"parent_file_path"`
}

// CwdChangedEvent fires when the main session's cwd changes (Cwd already
// holds the new dir).
type CwdChangedEvent struct {
	Base
	OldCwd string `json:"old_cwd"`
	NewCwd string `json:"new_cwd"`
}

// FileChangedEvent fires for a watched path.
type FileChangedEvent struct {
	Base
	FilePath string `json:"file_path"`
	Event    string `json:"event"` // change, add, unlink
}

// DirectoryAddedEvent fires on /add-dir.
type DirectoryAddedEvent struct {
	Base
	Directory string `json:"directory"`
	Source    string `json:"source"`
}

// MessageDisplayEvent fires for each flush of streamed assistant text.
type MessageDisplayEvent struct {
	Base
	TurnID    string `json:"turn_id"`
	MessageID string `json:"message_id"`
	Index     int64  `json:"index"`
	Final     bool   `json:"final"`
	Delta     string `json:"delta"`
}

// UnknownEvent is a payload whose hook_event_name this version does not
// know; every field but the base ones is in Raw and UnknownFields.
type UnknownEvent struct {
	Base
}

// newEvent makes the empty value each event name parses into.
var newEvent = map[string]func() Event{
	PreToolUse:          func() Event { return &PreToolUseEvent{} },
	PostToolUse:         func() Event { return &PostToolUseEvent{} },
	PostToolUseFailure:  func() Event { return &PostToolUseFailureEvent{} },
	PostToolBatch:       func() Event { return &PostToolBatchEvent{} },
	Notification:        func() Event { return &NotificationEvent{} },
	UserPromptSubmit:    func() Event { return &UserPromptSubmitEvent{} },
	UserPromptExpansion: func() Event { return &UserPromptExpansionEvent{} },
	SessionStart:        func() Event { return &SessionStartEvent{} },
	SessionEnd:          func() Event { return &SessionEndEvent{} },
	Stop:                func() Event { return &StopEvent{} },
	StopFailure:         func() Event { return &StopFailureEvent{} },
	SubagentStart:       func() Event { return &SubagentStartEvent{} },
	SubagentStop:        func() Event { return &SubagentStopEvent{} },
	PreCompact:          func() Event { return &PreCompactEvent{} },
	PostCompact:         func() Event { return &PostCompactEvent{} },
	PreModelSwitch:      func() Event { return &PreModelSwitchEvent{} },
	PostModelSwitch:     func() Event { return &PostModelSwitchEvent{} },
	PermissionRequest:   func() Event { return &PermissionRequestEvent{} },
	PermissionDenied:    func() Event { return &PermissionDeniedEvent{} },
	Setup:               func() Event { return &SetupEvent{} },
	TeammateIdle:        func() Event { return &TeammateIdleEvent{} },
	TaskCreated:         func() Event { return &TaskCreatedEvent{} },
	TaskCompleted:       func() Event { return &TaskCompletedEvent{} },
	Elicitation:         func() Event { return &ElicitationEvent{} },
	ElicitationResult:   func() Event { return &ElicitationResultEvent{} },
	ConfigChange:        func() Event { return &ConfigChangeEvent{} },
	WorktreeCreate:      func() Event { return &WorktreeCreateEvent{} },
	WorktreeRemove:      func() Event { return &WorktreeRemoveEvent{} },
	InstructionsLoaded:  func() Event { return &InstructionsLoadedEvent{} },
	CwdChanged:          func() Event { return &CwdChangedEvent{} },
	FileChanged:         func() Event { return &FileChangedEvent{} },
	DirectoryAdded:      func() Event { return &DirectoryAddedEvent{} },
	MessageDisplay:      func() Event { return &MessageDisplayEvent{} },
}

// Matcher is the value Claude Code tests a hook entry's matcher against
// (the tool name, the session start source, ...); ok is false for an
// event that takes no matcher. Each event type that takes one says which
// field it is.
func (e *PreToolUseEvent) Matcher() (string, bool)          { return e.ToolName, true }
func (e *PostToolUseEvent) Matcher() (string, bool)         { return e.ToolName, true }
func (e *PostToolUseFailureEvent) Matcher() (string, bool)  { return e.ToolName, true }
func (e *PermissionRequestEvent) Matcher() (string, bool)   { return e.ToolName, true }
func (e *PermissionDeniedEvent) Matcher() (string, bool)    { return e.ToolName, true }
func (e *UserPromptExpansionEvent) Matcher() (string, bool) { return e.CommandName, true }
func (e *SessionStartEvent) Matcher() (string, bool)        { return e.Source, true }
func (e *SetupEvent) Matcher() (string, bool)               { return e.Trigger, true }
func (e *PreCompactEvent) Matcher() (string, bool)          { return e.Trigger, true }
func (e *PostCompactEvent) Matcher() (string, bool)         { return e.Trigger, true }
func (e *PreModelSwitchEvent) Matcher() (string, bool)      { return e.ToModel, true }
func (e *PostModelSwitchEvent) Matcher() (string, bool)     { return e.ToModel, true }
func (e *NotificationEvent) Matcher() (string, bool)        { return e.NotificationType, true }
func (e *SessionEndEvent) Matcher() (string, bool)          { return e.Reason, true }
func (e *StopFailureEvent) Matcher() (string, bool)         { return e.Error, true }
func (e *SubagentStartEvent) Matcher() (string, bool)       { return e.AgentType, true }
func (e *SubagentStopEvent) Matcher() (string, bool)        { return e.AgentType, true }
func (e *ElicitationEvent) Matcher() (string, bool)         { return e.MCPServerName, true }
func (e *ElicitationResultEvent) Matcher() (string, bool)   { return e.MCPServerName, true }
func (e *ConfigChangeEvent) Matcher() (string, bool)        { return e.Source, true }
func (e *DirectoryAddedEvent) Matcher() (string, bool)      { return e.Source, true }
func (e *InstructionsLoadedEvent) Matcher() (string, bool)  { return e.LoadReason, true }
func (e *FileChangedEvent) Matcher() (string, bool)         { return e.FilePath, true }

// TakesMatcher reports whether Claude Code applies a matcher for the
// event: whether its type's Matcher says so.
func TakesMatcher(event string) bool {
	newEv, ok := newEvent[event]
	if !ok {
		return false
	}
	_, takes := newEv().Matcher()
	return takes
}
