package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Unsupported is a request or response field the cassette format cannot
// hold (spec §7.2–7.5). The run goes on; the cassette is not written.
type Unsupported struct{ What string }

func (e *Unsupported) Error() string { return "unsupported by the cassette format: " + e.What }

func unsupported(format string, a ...any) error { return &Unsupported{What: fmt.Sprintf(format, a...)} }

// anthropicParams maps request fields to neutral param names (spec §7.2).
var anthropicParams = [][2]string{
	{"max_tokens", "maxTokens"}, {"temperature", "temperature"}, {"top_p", "topP"}, {"top_k", "topK"},
	{"tool_choice", "toolChoice"}, {"stop_sequences", "stop"}, {"output_config", "outputConfig"}, {"thinking", "thinking"},
}

// AnthropicInput normalizes a Messages API request into a model_input
// payload (spec §7.2). Unlike Blackbox, stream:true is accepted (the proxy
// sees the stream), and a message role other than assistant (Claude Code
// 2.1.328 sends a "system" message) becomes user, as the spec says.
func AnthropicInput(req map[string]any, ids *IDs) (map[string]any, error) {
	names := map[string]string{} // provider tool id → tool name, from history
	var msgs []any
	raw, _ := req["messages"].([]any)
	for i, m := range raw {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		role := "user"
		if mm["role"] == "assistant" {
			role = "assistant"
		}
		switch c := mm["content"].(type) {
		case string:
			msgs = append(msgs, map[string]any{"role": role, "content": c})
		case []any:
			parts, err := anthropicParts(c, role, ids, names)
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			if role == "assistant" {
				parts = reshapeAssistant(parts)
			}
			msgs = append(msgs, map[string]any{"role": role, "content": parts})
		default:
			return nil, unsupported("messages[%d].content of type %s", i, jsonType(c))
		}
	}
	if msgs == nil {
		msgs = []any{}
	}
	out := map[string]any{"messages": msgs}
	tools := []any{}
	rt, _ := req["tools"].([]any)
	for i, t := range rt {
		tm, ok := t.(map[string]any)
		if !ok {
			continue
		}
		if typ, ok := tm["type"]; ok && typ != nil && typ != "custom" {
			return nil, unsupported("tools[%d] is a server tool (type %v)", i, typ)
		}
		if s, ok := tm["strict"]; ok && s != nil && s != false {
			return nil, unsupported("tools[%d].strict", i)
		}
		tools = append(tools, neutralTool(tm["name"], tm["description"], tm["input_schema"]))
	}
	out["tools"] = tools
	switch s := req["system"].(type) {
	case string:
		out["systemPrompt"] = s
	case []any:
		var texts []string
		for i, b := range s {
			bm, _ := b.(map[string]any)
			if bm == nil || bm["type"] != "text" {
				return nil, unsupported("system[%d] is not a text block", i)
			}
			t, _ := bm["text"].(string)
			texts = append(texts, t)
		}
		out["systemPrompt"] = strings.Join(texts, "\n\n")
	}
	out["messages"] = ids.rewriteStrings(out["messages"])
	return withModelParams(out, req, anthropicParams), nil
}

func neutralTool(name, desc, schema any) map[string]any {
	t := map[string]any{"name": name, "description": ""}
	if d, ok := desc.(string); ok {
		t["description"] = d
	}
	if s, ok := schema.(map[string]any); ok {
		t["inputSchema"] = s
	}
	return t
}

// withModelParams adds model (when a string) and the neutral params that
// are set (non-null) to a model_input payload.
func withModelParams(out, req map[string]any, names [][2]string) map[string]any {
	if m, ok := req["model"].(string); ok {
		out["model"] = m
	}
	var p map[string]any
	for _, n := range names {
		if v, ok := req[n[0]]; ok && v != nil {
			if p == nil {
				p = map[string]any{}
			}
			p[n[1]] = v
		}
	}
	if p != nil {
		out["params"] = p
	}
	return out
}

func anthropicParts(blocks []any, role string, ids *IDs, names map[string]string) ([]any, error) {
	parts := []any{}
	for j, b := range blocks {
		bm, ok := b.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := bm["type"].(string)
		switch {
		case typ == "thinking" || typ == "redacted_thinking":
		case typ == "text":
			t, _ := bm["text"].(string)
			parts = append(parts, map[string]any{"type": "text", "text": t})
		case typ == "tool_use" && role == "assistant":
			pid, _ := bm["id"].(string)
			name, _ := bm["name"].(string)
			names[pid] = name
			in := bm["input"]
			if in == nil {
				in = map[string]any{}
			}
			parts = append(parts, map[string]any{"type": "tool_use", "toolCallId": ids.Assign(pid), "toolName": name, "toolInput": in})
		case typ == "tool_result" && role == "user":
			pid, _ := bm["tool_use_id"].(string)
			name := names[pid]
			if name == "" {
				name = "unknown"
			}
			p := map[string]any{"type": "tool_result", "toolCallId": ids.Assign(pid), "toolName": name}
			if bm["is_error"] == true {
				s, err := resultValue(bm["content"], true)
				if err != nil {
					return nil, fmt.Errorf("content[%d]: %w", j, err)
				}
				p["error"] = s
			} else {
				v, err := resultValue(bm["content"], false)
				if err != nil {
					return nil, fmt.Errorf("content[%d]: %w", j, err)
				}
				p["result"] = v
			}
			parts = append(parts, p)
		default:
			return nil, unsupported("a %q block in a %s turn", typ, role)
		}
	}
	return parts, nil
}

// resultValue is a tool_result's content as stored: a string as is, text
// blocks joined by blank lines, missing/null "", any other value copied
// (asText: written as compact JSON, for an error text).
func resultValue(c any, asText bool) (any, error) {
	switch v := c.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []any:
		return joinTextBlocks(v)
	}
	if asText {
		b, err := json.Marshal(c)
		return string(b), err
	}
	return c, nil
}

func joinTextBlocks(blocks []any) (string, error) {
	var texts []string
	for i, b := range blocks {
		bm, _ := b.(map[string]any)
		if bm == nil || bm["type"] != "text" {
			typ := "non-object"
			if bm != nil {
				typ = fmt.Sprint(bm["type"])
			}
			return "", unsupported("a %q block inside a tool result (item %d)", typ, i)
		}
		t, _ := bm["text"].(string)
		texts = append(texts, t)
	}
	return strings.Join(texts, "\n\n"), nil
}

// reshapeAssistant puts the non-empty texts, joined, first and the other
// parts after them in order, as a replayed response reads back.
func reshapeAssistant(parts []any) []any {
	var texts []string
	rest := []any{}
	for _, p := range parts {
		pm := p.(map[string]any)
		if pm["type"] == "text" {
			if t, _ := pm["text"].(string); t != "" {
				texts = append(texts, t)
			}
			continue
		}
		rest = append(rest, p)
	}
	if len(texts) == 0 {
		return rest
	}
	return append([]any{map[string]any{"type": "text", "text": strings.Join(texts, "\n\n")}}, rest...)
}

// AnthropicOutput normalizes an assistant message into a model_output
// payload (spec §7.3). On purpose more lenient than Blackbox: several
// texts, or text after a tool_use, are joined into one text (which is
// what the next request's history normalizes to anyway).
func AnthropicOutput(msg map[string]any, ids *IDs) (map[string]any, error) {
	var texts []string
	calls := []any{}
	content, _ := msg["content"].([]any)
	for i, b := range content {
		bm, _ := b.(map[string]any)
		if bm == nil {
			continue
		}
		switch bm["type"] {
		case "thinking", "redacted_thinking":
		case "text":
			if c, ok := bm["citations"].([]any); ok && len(c) > 0 {
				return nil, unsupported("content[%d] has citations", i)
			}
			if t, _ := bm["text"].(string); t != "" {
				texts = append(texts, t)
			}
		case "tool_use":
			pid, _ := bm["id"].(string)
			name, _ := bm["name"].(string)
			in := bm["input"]
			if in == nil {
				in = map[string]any{}
			}
			calls = append(calls, map[string]any{"toolCallId": ids.Assign(pid), "toolName": name, "toolInput": in})
		default:
			return nil, unsupported("a %v block in the response", bm["type"])
		}
	}
	stop, _ := msg["stop_reason"].(string)
	switch stop {
	case "pause_turn", "stop_sequence", "model_context_window_exceeded":
		return nil, unsupported("stop_reason %s", stop)
	}
	if v, ok := msg["stop_details"]; ok && v != nil {
		return nil, unsupported("stop_details")
	}
	if v, ok := msg["container"]; ok && v != nil {
		return nil, unsupported("container")
	}
	if len(calls) > 0 && stop == "refusal" {
		return nil, unsupported("a refusal with tool calls")
	}
	if stop == "max_tokens" {
		stop = "length"
	}
	return modelOutput(calls, strings.Join(texts, "\n\n"), stop), nil
}

// modelOutput is the normalized model_output payload of both APIs (spec
// §7.4): tool calls with their text, or a final answer; stop is "length",
// "refusal" or anything else for a plain end (a refusal only ends a final
// answer).
func modelOutput(calls []any, text, stop string) map[string]any {
	if len(calls) > 0 {
		out := map[string]any{"type": "tool_calls", "calls": calls}
		if text != "" {
			out["text"] = text
		}
		if stop == "length" {
			out["stop"] = "length"
		}
		return out
	}
	out := map[string]any{"type": "final_answer", "text": text}
	if stop == "length" || stop == "refusal" {
		out["stop"] = stop
	}
	return out
}

// Call is one tool call of a model_output.
type Call struct {
	ID, Name string
	Input    any
}

// OutputCalls lists the calls of a model_output payload (both shapes).
func OutputCalls(out map[string]any) []Call {
	switch out["type"] {
	case "tool_call":
		return []Call{callOf(out)}
	case "tool_calls":
		var cs []Call
		raw, _ := out["calls"].([]any)
		for _, c := range raw {
			if cm, ok := c.(map[string]any); ok {
				cs = append(cs, callOf(cm))
			}
		}
		return cs
	}
	return nil
}

func callOf(m map[string]any) Call {
	id, _ := m["toolCallId"].(string)
	name, _ := m["toolName"].(string)
	return Call{ID: id, Name: name, Input: m["toolInput"]}
}

// AnthropicMessage synthesizes the response a replayed model_output
// becomes (spec §8.3), with call-N as the tool_use ids.
func AnthropicMessage(out map[string]any, model string, step int) map[string]any {
	if model == "" {
		model = "unknown"
	}
	content := []any{}
	text, _ := out["text"].(string)
	if text != "" {
		content = append(content, map[string]any{"type": "text", "text": text, "citations": nil})
	}
	calls := OutputCalls(out)
	for _, c := range calls {
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": in, "caller": map[string]any{"type": "direct"}})
	}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	switch out["stop"] {
	case "length":
		stop = "max_tokens"
	case "refusal":
		stop = "refusal"
	}
	return map[string]any{
		"id": fmt.Sprintf("cc-cassette-replay-%d", step), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "stop_details": nil, "container": nil,
		"usage": map[string]any{"input_tokens": 0, "output_tokens": 0, "cache_creation_input_tokens": nil,
			"cache_read_input_tokens": nil, "server_tool_use": nil, "service_tier": nil},
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
