package proxy

import (
	"encoding/json"
	"testing"
)

// Requests and responses come from clients and upstreams we do not
// control: normalizing them must return a value or an error, never panic.
func FuzzNormalize(f *testing.F) {
	f.Add([]byte(`{"model":"m","system":[{"type":"text","text":"s"}],"tools":[{"name":"a","input_schema":{}}],"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"a","input":null}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"tool","tool_call_id":1,"content":[{"type":"text"}]},{"role":"assistant","tool_calls":[{"function":null}]}],"n":1}`))
	f.Add([]byte(`{"content":[{"type":"tool_use","input":7}],"stop_reason":"max_tokens","choices":[{"message":{"tool_calls":[{"type":"function","function":{"arguments":"\"s\""}}]},"finish_reason":"tool_calls"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			return
		}
		ids := NewIDs()
		if in, err := AnthropicInput(m, ids); err == nil {
			_ = Normalize(in)
		}
		_, _ = OpenAIInput(m, ids)
		if out, err := AnthropicOutput(m, ids); err == nil {
			_ = AnthropicMessage(out, "m", 1)
		}
		if out, err := OpenAIOutput(m, ids); err == nil {
			_ = OpenAICompletion(out, "m", 1, 0)
		}
		_ = FirstDifference(m, map[string]any{})
	})
}

// The SSE readers take any bytes and either assemble a message or say why not.
func FuzzStream(f *testing.F) {
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"content\":[]}}\n\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\"}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_stop\"}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3}]},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range []assembler{newAnthropicStream(), &openaiStream{}} {
			p := &sseParser{onData: a.event}
			half := len(data) / 2
			_, _ = p.Write(data[:half])
			_, _ = p.Write(data[half:])
			_ = p.close()
			_, _ = a.message()
		}
	})
}

func TestOpenAIStreamBadIndex(t *testing.T) {
	for _, idx := range []string{"-1", "1000000000", "0.5"} {
		st := &openaiStream{}
		err := st.event(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + idx + `}]}}]}`)
		if err == nil {
			t.Errorf("index %s accepted", idx)
		}
	}
}
