package hooks

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Typed views of tool_input for the built-in tools of Claude Code 2.1.328
// (field names from the tools' input schemas). Fields Claude Code adds
// later stay reachable through the raw tool_input.

// ShellInput is the input of Bash and PowerShell.
type ShellInput struct {
	Command                   string  `json:"command"`
	Description               string  `json:"description"`
	Timeout                   float64 `json:"timeout"` // ms
	RunInBackground           bool    `json:"run_in_background"`
	DangerouslyDisableSandbox bool    `json:"dangerouslyDisableSandbox"`
}

// ReadInput is the input of Read.
type ReadInput struct {
	FilePath string  `json:"file_path"`
	Offset   float64 `json:"offset"`
	Limit    float64 `json:"limit"`
	Pages    string  `json:"pages"`
}

// WriteInput is the input of Write.
type WriteInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

// EditInput is the input of Edit.
type EditInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// NotebookEditInput is the input of NotebookEdit.
type NotebookEditInput struct {
	NotebookPath string `json:"notebook_path"`
	CellID       string `json:"cell_id"`
	NewSource    string `json:"new_source"`
	CellType     string `json:"cell_type"`
	EditMode     string `json:"edit_mode"`
}

// GlobInput is the input of Glob.
type GlobInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// GrepInput is the input of Grep (ripgrep's flags keep their names).
type GrepInput struct {
	Pattern         string  `json:"pattern"`
	Path            string  `json:"path"`
	Glob            string  `json:"glob"`
	Type            string  `json:"type"`
	OutputMode      string  `json:"output_mode"`
	CaseInsensitive bool    `json:"-i"`
	LineNumbers     bool    `json:"-n"`
	After           float64 `json:"-A"`
	Before          float64 `json:"-B"`
	Context         float64 `json:"-C"`
	Multiline       bool    `json:"multiline"`
	HeadLimit       float64 `json:"head_limit"`
}

// WebFetchInput is the input of WebFetch.
type WebFetchInput struct {
	URL    string `json:"url"`
	Prompt string `json:"prompt"`
}

// WebSearchInput is the input of WebSearch.
type WebSearchInput struct {
	Query          string   `json:"query"`
	AllowedDomains []string `json:"allowed_domains"`
	BlockedDomains []string `json:"blocked_domains"`
}

// AgentInput is the input of Agent (formerly Task).
type AgentInput struct {
	Description     string `json:"description"`
	Prompt          string `json:"prompt"`
	SubagentType    string `json:"subagent_type"`
	Model           string `json:"model"`
	Name            string `json:"name"`
	RunInBackground bool   `json:"run_in_background"`
}

// ToolSearchInput is the input of ToolSearch ("select:A,B" loads deferred
// tools).
type ToolSearchInput struct {
	Query      string  `json:"query"`
	MaxResults float64 `json:"max_results"`
}

// TaskCreateInput is the input of TaskCreate.
type TaskCreateInput struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	ActiveForm  string `json:"activeForm"`
}

// TaskUpdateInput is the input of TaskUpdate.
type TaskUpdateInput struct {
	TaskID      string `json:"taskId"`
	Status      string `json:"status"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
	ActiveForm  string `json:"activeForm"`
}

var toolViews = map[string]func() any{
	"Bash":         func() any { return &ShellInput{} },
	"PowerShell":   func() any { return &ShellInput{} },
	"Read":         func() any { return &ReadInput{} },
	"Write":        func() any { return &WriteInput{} },
	"Edit":         func() any { return &EditInput{} },
	"NotebookEdit": func() any { return &NotebookEditInput{} },
	"Glob":         func() any { return &GlobInput{} },
	"Grep":         func() any { return &GrepInput{} },
	"WebFetch":     func() any { return &WebFetchInput{} },
	"WebSearch":    func() any { return &WebSearchInput{} },
	"Agent":        func() any { return &AgentInput{} },
	"Task":         func() any { return &AgentInput{} }, // the Agent tool's older name
	"ToolSearch":   func() any { return &ToolSearchInput{} },
	"TaskCreate":   func() any { return &TaskCreateInput{} },
	"TaskUpdate":   func() any { return &TaskUpdateInput{} },
}

// ParseToolInput returns a typed view of a tool's input (*ShellInput for
// Bash and PowerShell, *ReadInput, *EditInput, ...) and the input fields of
// an unexpected type, which read as empty. It returns nil for tools
// without a view (MCP tools, tools added later) and for an input that is
// not an object (then mismatches is ["tool_input"]).
func ParseToolInput(tool string, input json.RawMessage) (any, []string) {
	mk, ok := toolViews[tool]
	if !ok {
		return nil, nil
	}
	obj, err := parseObject(bytes.Clone(input))
	if err != nil {
		return nil, []string{"tool_input"}
	}
	v := mk()
	mismatches, _ := decodeFields(reflect.ValueOf(v).Elem(), obj, "tool_input.")
	return v, mismatches
}
