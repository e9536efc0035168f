package proxy

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// api is what differs between the two model APIs the proxy speaks.
type api struct {
	name     string // the side_call "api" value
	input    func(map[string]any, *IDs) (map[string]any, error)
	output   func(map[string]any, *IDs) (map[string]any, error)
	answer   func(out map[string]any, model string, step int, ts int64) map[string]any
	stream   func(io.Writer, func(), map[string]any) error
	assemble func() assembler
	errBody  func(typ, msg string) map[string]any
	// results calls f for each tool result in a request with its provider
	// tool-call id; set replaces one result's content.
	results func(req map[string]any, f func(res map[string]any, id string))
	set     func(res map[string]any, content string)
	// upstreamPath maps the proxy path to the path under the upstream base.
	upstreamPath func(string) string
}

type assembler interface {
	event(data string) error
	message() (map[string]any, error)
}

var anthropicAPI = &api{
	name:   "messages",
	input:  AnthropicInput,
	output: AnthropicOutput,
	answer: func(out map[string]any, model string, step int, _ int64) map[string]any {
		return AnthropicMessage(out, model, step)
	},
	stream:   writeAnthropicStream,
	assemble: func() assembler { return newAnthropicStream() },
	errBody: func(typ, msg string) map[string]any {
		return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	},
	results: func(req map[string]any, f func(map[string]any, string)) {
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			blocks, _ := mm["content"].([]any)
			for _, b := range blocks {
				if bm, ok := b.(map[string]any); ok && bm["type"] == "tool_result" {
					f(bm, str(bm["tool_use_id"]))
				}
			}
		}
	},
	set: func(res map[string]any, content string) {
		res["content"] = content
		delete(res, "is_error")
	},
	upstreamPath: func(p string) string { return p },
}

var openaiAPI = &api{
	name:   "chat_completions",
	input:  OpenAIInput,
	output: OpenAIOutput,
	answer: func(out map[string]any, model string, step int, ts int64) map[string]any {
		return OpenAICompletion(out, model, step, ts/1000)
	},
	stream:   writeOpenAIStream,
	assemble: func() assembler { return &openaiStream{} },
	errBody: func(typ, msg string) map[string]any {
		return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": "cc-cassette"}}
	},
	results: func(req map[string]any, f func(map[string]any, string)) {
		msgs, _ := req["messages"].([]any)
		for _, m := range msgs {
			if mm, ok := m.(map[string]any); ok && mm["role"] == "tool" {
				f(mm, str(mm["tool_call_id"]))
			}
		}
	},
	set: func(res map[string]any, content string) { res["content"] = content },
	// OPENAI_BASE_URL conventionally ends in /v1 (the SDK's default does).
	upstreamPath: func(p string) string { return strings.TrimPrefix(p, "/v1") },
}

// apiFor picks the API of a model request path, or nil.
func apiFor(r *http.Request) *api {
	if r.Method != http.MethodPost {
		return nil
	}
	switch p := r.URL.Path; {
	case strings.HasSuffix(p, "/v1/messages"):
		return anthropicAPI
	case strings.HasSuffix(p, "/chat/completions"):
		return openaiAPI
	}
	return nil
}

func nowMS() int64 { return time.Now().UnixMilli() }
