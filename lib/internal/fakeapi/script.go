package fakeapi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Script is what the fake model answers, turn by turn. A request that
// carries tools takes the first unused turn whose Match accepts it; side
// calls (no tools) and requests after the script ran out get short text.
type Script struct {
	// Model is the model name put into every message (default
	// claude-opus-5-5, the name the spec's experiments used).
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// Title is the title a title side call gets (default "Fake session").
	Title string `json:"title,omitempty" yaml:"title,omitempty"`
	// Fallback is the end_turn text once no turn matches (default "Done.").
	Fallback string `json:"fallback,omitempty" yaml:"fallback,omitempty"`
	Turns    []Turn `json:"turns" yaml:"turns"`
}

// Turn is one answer of the model: content blocks, or an HTTP error.
type Turn struct {
	// Name labels the turn in the request log (optional).
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Match is a regular expression tested against the text of the last
	// user message of the request (string content, text blocks and
	// tool_result contents joined by newlines). Empty matches anything.
	Match string `json:"match,omitempty" yaml:"match,omitempty"`
	// Blocks are the content blocks of the reply, in order.
	Blocks []Block `json:"blocks,omitempty" yaml:"blocks,omitempty"`
	// StopReason defaults to tool_use when a block is a tool_use, else end_turn.
	StopReason string `json:"stop_reason,omitempty" yaml:"stop_reason,omitempty"`
	Usage      *Usage `json:"usage,omitempty" yaml:"usage,omitempty"`
	// Model, when set, is the reply's message.model instead of
	// Script.Model (a response model that differs from the request's).
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// Status, when not 0 or 200, answers with this HTTP status and an
	// Anthropic error body instead of a message (529 = overloaded).
	Status       int    `json:"status,omitempty" yaml:"status,omitempty"`
	ErrorType    string `json:"error_type,omitempty" yaml:"error_type,omitempty"`
	ErrorMessage string `json:"error_message,omitempty" yaml:"error_message,omitempty"`
	// Times is how many requests the turn answers before it is used up
	// (0 = once; -1 = every matching request, e.g. an error the CLI keeps
	// retrying with other parameters).
	Times int `json:"times,omitempty" yaml:"times,omitempty"`
	// DelayMS sleeps this long before each SSE event, to keep a session
	// busy (for typing a queued prompt) or to test slow streaming.
	DelayMS int `json:"delay_ms,omitempty" yaml:"delay_ms,omitempty"`
	// CutAfter, when above 0, sends that many SSE events of a streamed
	// reply (half the JSON of a non-streamed one) and then resets the
	// connection mid-body (an upstream that dies mid-answer).
	CutAfter int `json:"cut_after,omitempty" yaml:"cut_after,omitempty"`
	// ErrorAfter, when above 0, sends that many SSE events of a streamed
	// reply, then an error event (error_type, default overloaded_error)
	// and ends the 200 response: the API overloaded mid-stream.
	ErrorAfter int `json:"error_after,omitempty" yaml:"error_after,omitempty"`

	re *regexp.Regexp
}

// Block is one content block: text, thinking or tool_use.
type Block struct {
	Type      string `json:"type" yaml:"type"`
	Text      string `json:"text,omitempty" yaml:"text,omitempty"`
	Thinking  string `json:"thinking,omitempty" yaml:"thinking,omitempty"`
	Signature string `json:"signature,omitempty" yaml:"signature,omitempty"`
	// ID is the tool_use id; empty gets a deterministic toolu_ id so that
	// regenerated transcripts keep the same ids.
	ID    string `json:"id,omitempty" yaml:"id,omitempty"`
	Name  string `json:"name,omitempty" yaml:"name,omitempty"`
	Input any    `json:"input,omitempty" yaml:"input,omitempty"`
}

// Usage is the token usage of a reply. Zero fields stay zero; the others
// are sent only when set, so a script can give any usage shape the API
// has (what the pricing oracle needs).
type Usage struct {
	InputTokens              int `json:"input_tokens" yaml:"input_tokens"`
	OutputTokens             int `json:"output_tokens" yaml:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens" yaml:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens" yaml:"cache_read_input_tokens"`
	// CacheCreation is the 5m/1h split of the cache writes.
	CacheCreation *CacheCreation `json:"cache_creation,omitempty" yaml:"cache_creation,omitempty"`
	// ServerToolUse counts server tools: web_search_requests,
	// web_fetch_requests.
	ServerToolUse map[string]int `json:"server_tool_use,omitempty" yaml:"server_tool_use,omitempty"`
	InferenceGeo  string         `json:"inference_geo,omitempty" yaml:"inference_geo,omitempty"`
	ServiceTier   string         `json:"service_tier,omitempty" yaml:"service_tier,omitempty"`
	// Speed is "fast" or "standard".
	Speed string `json:"speed,omitempty" yaml:"speed,omitempty"`
	// Iterations are sent as given (message, advisor_message, ...).
	Iterations []map[string]any `json:"iterations,omitempty" yaml:"iterations,omitempty"`
}

// CacheCreation is usage.cache_creation.
type CacheCreation struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens" yaml:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens" yaml:"ephemeral_1h_input_tokens"`
}

// Text is a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking is a thinking block with a signature.
func Thinking(s string) Block { return Block{Type: "thinking", Thinking: s} }

// ToolUse is a tool_use block; input is marshalled as JSON.
func ToolUse(name string, input any) Block { return Block{Type: "tool_use", Name: name, Input: input} }

// LoadScript reads a script from a YAML or JSON file (JSON is YAML).
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("load script %s: %w", filepath.Base(path), err)
	}
	return s, nil
}

// ParseScript decodes a YAML or JSON script and checks it.
func ParseScript(data []byte) (*Script, error) {
	var s Script
	if err := yaml.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	s.Turns = normalizeInputs(s.Turns)
	if err := s.compile(); err != nil {
		return nil, err
	}
	return &s, nil
}

// normalizeInputs turns YAML's map[string]any trees into JSON-safe values
// (yaml.v3 already uses string keys; this guards against map[any]any).
func normalizeInputs(turns []Turn) []Turn {
	for i := range turns {
		for j := range turns[i].Blocks {
			turns[i].Blocks[j].Input = jsonSafe(turns[i].Blocks[j].Input)
		}
	}
	return turns
}

func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonSafe(e)
		}
		return m
	case map[string]any:
		for k, e := range x {
			x[k] = jsonSafe(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = jsonSafe(e)
		}
		return x
	}
	return v
}

// compile checks every turn and compiles its Match.
func (s *Script) compile() error {
	for i := range s.Turns {
		if err := s.Turns[i].compile(); err != nil {
			return fmt.Errorf("turn %d: %w", i, err)
		}
	}
	return nil
}

func (t *Turn) compile() error {
	if t.Match != "" && t.re == nil {
		re, err := regexp.Compile(t.Match)
		if err != nil {
			return fmt.Errorf("match: %w", err)
		}
		t.re = re
	}
	if t.Times < -1 {
		return fmt.Errorf("times %d: want -1 or more", t.Times)
	}
	if t.CutAfter < 0 || t.ErrorAfter < 0 || t.CutAfter > 0 && t.ErrorAfter > 0 {
		return fmt.Errorf("cut_after %d, error_after %d: want one of them, 1 or more", t.CutAfter, t.ErrorAfter)
	}
	if t.Status != 0 && t.Status != 200 {
		if t.Status < 400 || t.Status > 599 {
			return fmt.Errorf("status %d: want 4xx or 5xx", t.Status)
		}
		return nil
	}
	for j, b := range t.Blocks {
		switch b.Type {
		case "text", "thinking":
		case "tool_use":
			if b.Name == "" {
				return fmt.Errorf("block %d: tool_use without name", j)
			}
			if _, err := json.Marshal(b.Input); err != nil {
				return fmt.Errorf("block %d: input: %w", j, err)
			}
		default:
			return fmt.Errorf("block %d: unknown type %q (want text, thinking or tool_use)", j, b.Type)
		}
	}
	return nil
}

// matches reports whether the turn accepts a request whose last user
// message has this text.
func (t *Turn) matches(lastUser string) bool {
	return t.re == nil || t.re.MatchString(lastUser)
}

func (t *Turn) stopReason() string {
	if t.StopReason != "" {
		return t.StopReason
	}
	for _, b := range t.Blocks {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// errorBody is the Anthropic error JSON for an HTTP error turn.
func (t *Turn) errorBody() (int, []byte) {
	typ, msg := t.ErrorType, t.ErrorMessage
	if typ == "" {
		typ = defaultErrorType(t.Status)
	}
	if msg == "" {
		msg = strings.ReplaceAll(strings.TrimSuffix(typ, "_error"), "_", " ")
		if typ == "overloaded_error" {
			msg = "Overloaded"
		}
	}
	b, _ := json.Marshal(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": msg},
	})
	return t.Status, b
}

func defaultErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}
