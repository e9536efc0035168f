package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Message is the assistant message a turn becomes, in the Messages API shape.
type Message struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        Usage            `json:"usage"`
}

// blockJSON is a block in its final (non-streaming) form.
func blockJSON(b Block) map[string]any {
	switch b.Type {
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": b.Thinking, "signature": b.Signature}
	case "tool_use":
		in := b.Input
		if in == nil {
			in = map[string]any{}
		}
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": in}
	}
	return map[string]any{"type": "text", "text": b.Text}
}

// NewMessage builds the final message of a turn whose block ids and
// signatures are already filled in.
func NewMessage(id, model string, blocks []Block, stop string, u Usage) Message {
	m := Message{ID: id, Type: "message", Role: "assistant", Model: model, Usage: u, StopReason: &stop}
	m.Content = make([]map[string]any, 0, len(blocks))
	for _, b := range blocks {
		m.Content = append(m.Content, blockJSON(b))
	}
	return m
}

// Event is one server-sent event.
type Event struct {
	Name string
	Data any
}

// Events is the SSE event sequence that streams m: message_start with
// empty content, per block a start, deltas and stop, message_delta with the
// stop reason and the final usage, message_stop.
func Events(m Message) []Event {
	start := m
	start.Content = []map[string]any{}
	start.StopReason = nil
	start.Usage = Usage{InputTokens: m.Usage.InputTokens, OutputTokens: 1,
		CacheCreationInputTokens: m.Usage.CacheCreationInputTokens, CacheReadInputTokens: m.Usage.CacheReadInputTokens}
	ev := []Event{{"message_start", map[string]any{"type": "message_start", "message": start}}}
	for i, c := range m.Content {
		idx := i
		var first map[string]any
		var deltas []map[string]any
		switch c["type"] {
		case "thinking":
			first = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			for _, part := range chunks(c["thinking"].(string)) {
				deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": part})
			}
			deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": c["signature"]})
		case "tool_use":
			first = map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}
			in, _ := json.Marshal(c["input"])
			for _, part := range chunks(string(in)) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": part})
			}
		default:
			first = map[string]any{"type": "text", "text": ""}
			for _, part := range chunks(c["text"].(string)) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": part})
			}
		}
		ev = append(ev, Event{"content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": first}})
		for _, d := range deltas {
			ev = append(ev, Event{"content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": d}})
		}
		ev = append(ev, Event{"content_block_stop", map[string]any{"type": "content_block_stop", "index": idx}})
	}
	ev = append(ev,
		Event{"message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": m.StopReason, "stop_sequence": nil},
			"usage": m.Usage}},
		Event{"message_stop", map[string]any{"type": "message_stop"}})
	return ev
}

// chunkSize splits streamed text so that a block takes several deltas, as
// the real API does; the CLI must reassemble them.
const chunkSize = 64

func chunks(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	r := []rune(s)
	for len(r) > chunkSize {
		out = append(out, string(r[:chunkSize]))
		r = r[chunkSize:]
	}
	return append(out, string(r))
}

// WriteEvent writes one event in SSE framing: "event: NAME\ndata: JSON\n\n".
func WriteEvent(w io.Writer, e Event) error {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return fmt.Errorf("sse %s: %w", e.Name, err)
	}
	_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Name, data)
	return err
}

// writeStream writes every event, flushing after each and sleeping delay
// before each when delay > 0.
func writeStream(w io.Writer, flush func(), events []Event, delay time.Duration) error {
	for _, e := range events {
		if delay > 0 {
			time.Sleep(delay)
		}
		if err := WriteEvent(w, e); err != nil {
			return err
		}
		flush()
	}
	return nil
}
