package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

var openaiParams = [][2]string{
	{"max_tokens", "maxTokens"}, {"max_completion_tokens", "maxTokens"}, {"temperature", "temperature"}, {"top_p", "topP"},
	{"tool_choice", "toolChoice"}, {"response_format", "responseFormat"}, {"stop", "stop"},
	{"parallel_tool_calls", "parallelToolCalls"}, {"seed", "seed"}, {"reasoning_effort", "reasoningEffort"},
	{"presence_penalty", "presencePenalty"}, {"frequency_penalty", "frequencyPenalty"}, {"logit_bias", "logitBias"},
	{"logprobs", "logprobs"}, {"top_logprobs", "topLogprobs"}, {"verbosity", "verbosity"}, {"prediction", "prediction"},
	{"modalities", "modalities"},
}

// OpenAIInput normalizes a Chat Completions request into a model_input
// payload (spec §7.4); stream:true is accepted (stream_options is neither
// stored nor compared).
func OpenAIInput(req map[string]any, ids *IDs) (map[string]any, error) {
	if n, ok := req["n"]; ok && n != nil {
		if f, ok := number(n); !ok || f != 1 {
			return nil, unsupported("n ≠ 1")
		}
	}
	for _, k := range []string{"audio", "functions", "function_call", "web_search_options"} {
		if v, ok := req[k]; ok && v != nil {
			return nil, unsupported("%s", k)
		}
	}
	if a, b := req["max_tokens"], req["max_completion_tokens"]; a != nil && b != nil {
		return nil, unsupported("both max_tokens and max_completion_tokens")
	}
	raw, _ := req["messages"].([]any)
	names := map[string]string{}
	var system []string
	msgs := []any{}
	leading := true
	var toolTurn []any
	flush := func() {
		if toolTurn != nil {
			msgs = append(msgs, map[string]any{"role": "user", "content": toolTurn})
			toolTurn = nil
		}
	}
	for i, m := range raw {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		for _, k := range []string{"name", "function_call", "audio", "refusal"} {
			if v, ok := mm[k]; ok && v != nil {
				return nil, unsupported("messages[%d].%s", i, k)
			}
		}
		role, _ := mm["role"].(string)
		if role == "system" || role == "developer" {
			if !leading {
				return nil, unsupported("messages[%d]: a %s message after the conversation started", i, role)
			}
			t, err := openaiText(mm["content"])
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			system = append(system, t)
			continue
		}
		leading = false
		if role != "tool" {
			flush()
		}
		switch role {
		case "tool":
			id, _ := mm["tool_call_id"].(string)
			name := names[id]
			if name == "" {
				name = "unknown"
			}
			t, err := openaiText(mm["content"])
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			toolTurn = append(toolTurn, map[string]any{"type": "tool_result", "toolCallId": ids.Assign(id), "toolName": name, "result": t})
		case "user":
			t, err := openaiText(mm["content"])
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			msgs = append(msgs, map[string]any{"role": "user", "content": t})
		case "assistant":
			t, err := openaiText(mm["content"])
			if err != nil {
				return nil, fmt.Errorf("messages[%d]: %w", i, err)
			}
			calls, _ := mm["tool_calls"].([]any)
			if len(calls) == 0 {
				msgs = append(msgs, map[string]any{"role": "assistant", "content": t})
				continue
			}
			parts := []any{}
			if t != "" {
				parts = append(parts, map[string]any{"type": "text", "text": t})
			}
			for _, c := range calls {
				cm, _ := c.(map[string]any)
				fn, _ := cm["function"].(map[string]any)
				id, _ := cm["id"].(string)
				name, _ := fn["name"].(string)
				names[id] = name
				parts = append(parts, map[string]any{"type": "tool_use", "toolCallId": ids.Assign(id), "toolName": name, "toolInput": toolArguments(fn["arguments"])})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": parts})
		default:
			return nil, unsupported("messages[%d] has role %q", i, role)
		}
	}
	flush()
	out := map[string]any{"messages": msgs}
	tools := []any{}
	rt, _ := req["tools"].([]any)
	for i, t := range rt {
		tm, ok := t.(map[string]any)
		if !ok {
			continue
		}
		fn, _ := tm["function"].(map[string]any)
		if tm["type"] != "function" || fn == nil {
			return nil, unsupported("tools[%d] is not a function tool", i)
		}
		if s, ok := fn["strict"]; ok && s != nil && s != false {
			return nil, unsupported("tools[%d].function.strict", i)
		}
		tools = append(tools, neutralTool(fn["name"], fn["description"], fn["parameters"]))
	}
	out["tools"] = tools
	if len(system) > 0 {
		out["systemPrompt"] = strings.Join(system, "\n\n")
	}
	out["messages"] = ids.rewriteStrings(out["messages"])
	return withModelParams(out, req, openaiParams), nil
}

func openaiText(c any) (string, error) {
	switch v := c.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []any:
		var texts []string
		for i, p := range v {
			pm, _ := p.(map[string]any)
			if pm == nil || pm["type"] != "text" {
				return "", unsupported("content part %d is not text", i)
			}
			t, _ := pm["text"].(string)
			texts = append(texts, t)
		}
		return strings.Join(texts, "\n\n"), nil
	}
	return "", unsupported("content of type %s", jsonType(c))
}

// toolArguments: a string is parsed; unparsable text, or text holding a
// JSON string, is kept raw; a non-string is copied (default {}).
func toolArguments(a any) any {
	s, ok := a.(string)
	if !ok {
		if a == nil {
			return map[string]any{}
		}
		return a
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	if _, isStr := v.(string); isStr {
		return s
	}
	return v
}

// OpenAIOutput normalizes a chat.completion into a model_output (spec §7.5).
func OpenAIOutput(resp map[string]any, ids *IDs) (map[string]any, error) {
	choices, _ := resp["choices"].([]any)
	if len(choices) == 0 {
		return nil, unsupported("a completion without choices")
	}
	ch, _ := choices[0].(map[string]any)
	msg, _ := ch["message"].(map[string]any)
	if msg == nil {
		return nil, unsupported("choices[0].message is not an object")
	}
	finish, _ := ch["finish_reason"].(string)
	if finish == "content_filter" || finish == "function_call" {
		return nil, unsupported("finish_reason %s", finish)
	}
	for _, k := range []string{"function_call", "audio"} {
		if v, ok := msg[k]; ok && v != nil {
			return nil, unsupported("message.%s", k)
		}
	}
	if lp, ok := ch["logprobs"].(map[string]any); ok && len(lp) > 0 {
		if c, _ := lp["content"].([]any); len(c) > 0 {
			return nil, unsupported("logprobs")
		}
	}
	if a, ok := msg["annotations"].([]any); ok && len(a) > 0 {
		return nil, unsupported("annotations")
	}
	content, hasText := msg["content"].(string)
	refusal, isRefusal := msg["refusal"].(string)
	rawCalls, _ := msg["tool_calls"].([]any)
	if isRefusal {
		if hasText || len(rawCalls) > 0 || finish != "stop" {
			return nil, unsupported("a refusal together with content, tool calls or finish %s", finish)
		}
		return map[string]any{"type": "final_answer", "text": refusal, "stop": "refusal"}, nil
	}
	if len(rawCalls) > 0 {
		if hasText && content == "" {
			return nil, unsupported("tool calls with empty content")
		}
		if finish != "tool_calls" && finish != "length" {
			return nil, unsupported("tool calls with finish %s", finish)
		}
		calls := []any{}
		for _, c := range rawCalls {
			cm, _ := c.(map[string]any)
			if cm["type"] != "function" {
				return nil, unsupported("a tool call of type %v", cm["type"])
			}
			fn, _ := cm["function"].(map[string]any)
			id, _ := cm["id"].(string)
			calls = append(calls, map[string]any{"toolCallId": ids.Assign(id), "toolName": fn["name"], "toolInput": toolArguments(fn["arguments"])})
		}
		return modelOutput(calls, content, finish), nil
	}
	if !hasText {
		return nil, unsupported("a completion without text, refusal or tool calls")
	}
	if finish != "length" {
		finish = "" // OpenAI says a refusal in its own field, handled above
	}
	return modelOutput(nil, content, finish), nil
}

// OpenAICompletion synthesizes the chat.completion a replayed
// model_output becomes (spec §8.3).
func OpenAICompletion(out map[string]any, model string, step int, created int64) map[string]any {
	if model == "" {
		model = "unknown"
	}
	text, _ := out["text"].(string)
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
	finish := "stop"
	if calls := OutputCalls(out); len(calls) > 0 {
		tcs := []any{}
		for _, c := range calls {
			args, ok := c.Input.(string)
			if !ok {
				args = string(mustMarshal(c.Input))
			}
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": args}})
		}
		msg["tool_calls"] = tcs
		if text == "" {
			msg["content"] = nil
		}
		finish = "tool_calls"
	}
	switch out["stop"] {
	case "length":
		finish = "length"
	case "refusal":
		msg["content"], msg["refusal"] = nil, text
	}
	return map[string]any{
		"id": fmt.Sprintf("cc-cassette-replay-%d", step), "object": "chat.completion", "created": created, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	}
}

// openaiStream rebuilds a chat.completion from chat.completion.chunk events.
type openaiStream struct {
	head    map[string]any
	content strings.Builder
	refusal *strings.Builder
	calls   []map[string]any
	args    []*strings.Builder
	finish  any
	done    bool
	text    bool
}

func (s *openaiStream) event(data string) error {
	if strings.TrimSpace(data) == "[DONE]" {
		s.done = true
		return nil
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return fmt.Errorf("stream chunk is not JSON: %w", err)
	}
	if e, ok := ev["error"]; ok && e != nil {
		return fmt.Errorf("the stream carried an error")
	}
	if s.head == nil {
		s.head = ev
	}
	choices, _ := ev["choices"].([]any)
	for _, c := range choices {
		cm, _ := c.(map[string]any)
		if idx, _ := number(cm["index"]); idx != 0 {
			continue
		}
		if f, ok := cm["finish_reason"]; ok && f != nil {
			s.finish = f
		}
		d, _ := cm["delta"].(map[string]any)
		if t, ok := d["content"].(string); ok {
			s.content.WriteString(t)
			s.text = true
		}
		if r, ok := d["refusal"].(string); ok {
			if s.refusal == nil {
				s.refusal = &strings.Builder{}
			}
			s.refusal.WriteString(r)
		}
		tcs, _ := d["tool_calls"].([]any)
		for _, tc := range tcs {
			tm, _ := tc.(map[string]any)
			f, _ := number(tm["index"])
			i := int(f)
			if f != float64(i) || i < 0 || i > len(s.calls) {
				return fmt.Errorf("stream chunk: tool call index %v out of order", tm["index"])
			}
			if i == len(s.calls) {
				s.calls = append(s.calls, map[string]any{"type": "function", "function": map[string]any{}})
				s.args = append(s.args, &strings.Builder{})
			}
			if id, ok := tm["id"].(string); ok {
				s.calls[i]["id"] = id
			}
			if t, ok := tm["type"].(string); ok {
				s.calls[i]["type"] = t
			}
			fn, _ := tm["function"].(map[string]any)
			if n, ok := fn["name"].(string); ok {
				s.calls[i]["function"].(map[string]any)["name"] = n
			}
			if a, ok := fn["arguments"].(string); ok {
				s.args[i].WriteString(a)
			}
		}
	}
	return nil
}

func (s *openaiStream) message() (map[string]any, error) {
	if s.head == nil || s.finish == nil {
		return nil, fmt.Errorf("the stream ended before a finish_reason")
	}
	msg := map[string]any{"role": "assistant"}
	if s.text || len(s.calls) == 0 && s.refusal == nil {
		msg["content"] = s.content.String()
	}
	if s.refusal != nil {
		msg["refusal"] = s.refusal.String()
	}
	if len(s.calls) > 0 {
		tcs := make([]any, len(s.calls))
		for i, c := range s.calls {
			c["function"].(map[string]any)["arguments"] = s.args[i].String()
			tcs[i] = c
		}
		msg["tool_calls"] = tcs
	}
	return map[string]any{"id": s.head["id"], "object": "chat.completion", "model": s.head["model"],
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": s.finish}}}, nil
}

// writeOpenAIStream streams a synthesized completion as chunks and [DONE].
func writeOpenAIStream(w io.Writer, flush func(), c map[string]any) error {
	ch := c["choices"].([]any)[0].(map[string]any)
	msg := ch["message"].(map[string]any)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": c["id"], "object": "chat.completion.chunk", "created": c["created"], "model": c["model"],
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}}}
	}
	first := map[string]any{"role": "assistant", "content": msg["content"]}
	if r := msg["refusal"]; r != nil {
		first["refusal"] = r
	}
	evs := []any{chunk(first, nil)}
	if tcs, ok := msg["tool_calls"].([]any); ok {
		for i, tc := range tcs {
			t := tc.(map[string]any)
			evs = append(evs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": t["id"], "type": "function", "function": t["function"]}}}, nil))
		}
	}
	evs = append(evs, chunk(map[string]any{}, ch["finish_reason"]))
	for _, e := range evs {
		if err := writeEvent(w, "", e); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "data: [DONE]\n\n")
	flush()
	return err
}
