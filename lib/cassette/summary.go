package cassette

import (
	"strconv"
	"strings"
)

// Run statuses (Blackbox's terminal status, spec 4.4).
const (
	StatusSuccess    = "success"
	StatusError      = "error"
	StatusIncomplete = "incomplete"
)

// Outcome is what a run came to, read from its last step: success with a
// final answer (any JSON, usually a string), error with a failure reason,
// or incomplete.
type Outcome struct {
	Status string
	Result *Value // success: the run_completed result, when present
	Reason *Value // error: the run_failed reason, when present
}

// OutcomeOf reads the terminal status from the last step (nil for an
// empty cassette): metadata run_completed/success is success, metadata
// run_failed (any status) is error, anything else incomplete.
func OutcomeOf(last *Value) Outcome {
	if last == nil {
		return Outcome{Status: StatusIncomplete}
	}
	typ, _ := last.GetString("type")
	p, _ := last.Get("payload")
	if typ != Metadata || p.kind != Object {
		return Outcome{Status: StatusIncomplete}
	}
	event, _ := p.GetString("event")
	status, _ := p.GetString("status")
	switch {
	case event == "run_completed" && status == "success":
		o := Outcome{Status: StatusSuccess}
		if r, ok := p.Get("result"); ok {
			o.Result = &r
		}
		return o
	case event == "run_failed":
		o := Outcome{Status: StatusError}
		if r, ok := p.Get("reason"); ok {
			o.Reason = &r
		}
		return o
	}
	return Outcome{Status: StatusIncomplete}
}

// Answer is the text of the final answer (success) or failure reason
// (error): a string as is, other JSON compact; ok is false when absent.
func (o Outcome) Answer() (string, bool) {
	v := o.Result
	if o.Status == StatusError {
		v = o.Reason
	}
	if v == nil {
		return "", false
	}
	return jsText(*v), true
}

// jsText renders a value as JavaScript's template literal would for a
// string, and as compact JSON otherwise.
func jsText(v Value) string {
	if s, ok := v.Str(); ok {
		return s
	}
	b, err := AppendJS(nil, v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// ToolName is a tool_call step's toolName ("unknown" when not a string),
// and whether the step is a tool_call at all.
func ToolName(step Value) (string, bool) {
	if t, _ := step.GetString("type"); t != ToolCall {
		return "", false
	}
	p, _ := step.Get("payload")
	if name, ok := p.GetString("toolName"); ok {
		return name, true
	}
	return "unknown", true
}

// Calls returns the tool calls of a model_output payload, accepting both
// shapes: tool_call (one call) and tool_calls (its calls).
func Calls(payload Value) []Value {
	switch t, _ := payload.GetString("type"); t {
	case "tool_call":
		return []Value{payload}
	case "tool_calls":
		c, _ := payload.Get("calls")
		return c.Items()
	}
	return nil
}

// undef renders a field as JavaScript's template literal would, a missing
// one as "undefined".
func undef(v Value, key string) string {
	f, ok := v.Get(key)
	if !ok {
		return "undefined"
	}
	return jsText(f)
}

// Summary is Blackbox's one-line summary of a step (spec 6.1).
func Summary(step Value) string {
	typ, _ := step.GetString("type")
	p, _ := step.Get("payload")
	switch typ {
	case ModelInput:
		m, ok := p.Get("messages")
		if !ok || m.kind != Array {
			return "Model called with ? message(s)"
		}
		return "Model called with " + strconv.Itoa(len(m.arr)) + " message(s)"
	case ModelOutput:
		switch t, _ := p.GetString("type"); t {
		case "tool_call":
			return "Model → tool_call: " + undef(p, "toolName")
		case "tool_calls":
			var names []string
			for _, c := range Calls(p) {
				names = append(names, undef(c, "toolName"))
			}
			s := "Model → tool_calls: " + strings.Join(names, ", ")
			if text, ok := p.GetString("text"); ok && text != "" {
				s += " (with text)"
			}
			return s
		case "final_answer":
			return `Model → final_answer: "` + undef(p, "text") + `"`
		}
		return "Model → unknown output"
	case ToolCall:
		return "Tool called: " + undef(p, "toolName")
	case ToolResult:
		if p.Has("error") {
			return "Tool result: " + undef(p, "toolName") + " → ERROR: " + undef(p, "error")
		}
		return "Tool result: " + undef(p, "toolName") + " → ok"
	case Metadata:
		event, _ := p.GetString("event")
		switch event {
		case "run_completed":
			return `Run completed: "` + undef(p, "result") + `"`
		case "run_failed":
			return "Run failed: " + undef(p, "reason")
		}
		return "Metadata: " + jsText(p)
	}
	return "Unknown step"
}
