package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// MaxEvent bounds one server-sent event (its data lines, or a line not
// yet ended): the proxy holds an event whole to record it. Real Messages
// API events are kilobytes.
const MaxEvent = 16 << 20

// MaxBody bounds what the proxy keeps of one request or answer to record
// it: the bytes of a request body, of a JSON answer, of a whole event
// stream. The API takes requests up to 32 MB and its answers are
// megabytes at most. A larger body (or event) is passed on whole, as it
// comes, and not recorded: the recording stops there (see
// Session.stopRecording).
const MaxBody = 64 << 20

// maxErrorBody is what the proxy keeps of an error answer (it reads
// only its message; the client gets it whole).
const maxErrorBody = 1 << 20

// overLimit is a body or event over its bound: passed on, not recorded.
type overLimit struct{ what string }

func (e *overLimit) Error() string { return e.what + ": not recorded" }

// The bounds a body can cross.
var (
	errEventTooLarge   = &overLimit{fmt.Sprintf("a stream event over %d MiB", MaxEvent>>20)}
	errAnswerTooLarge  = &overLimit{fmt.Sprintf("an answer over %d MiB", MaxBody>>20)}
	errRequestTooLarge = &overLimit{fmt.Sprintf("a request over %d MiB", MaxBody>>20)}
)

// boundedBuffer keeps what is written to it up to max bytes. Past that it
// lets go of what it held and fails every write with over (copyResponse
// then stops teeing and passes the rest on).
type boundedBuffer struct {
	b    []byte
	max  int
	over error
	full bool
}

func (j *boundedBuffer) Write(p []byte) (int, error) {
	if j.full || len(j.b)+len(p) > j.max {
		j.full, j.b = true, nil
		return 0, j.over
	}
	j.b = append(j.b, p...)
	return len(p), nil
}

// sseParser splits a server-sent event stream written to it into events
// and hands each event's data to onData. It is an io.Writer so that the
// proxy can tee the upstream stream through it while forwarding. Its
// Write fails only with errEventTooLarge or errAnswerTooLarge (a stream
// over MaxBody); an error of onData is kept for close, and the rest of
// the stream is passed on unparsed.
type sseParser struct {
	buf    []byte
	data   []string
	size   int // bytes of data in the event so far
	total  int // bytes of the stream so far
	onData func(data string) error
	err    error
}

func (p *sseParser) Write(b []byte) (int, error) {
	if _, over := p.err.(*overLimit); over {
		return 0, p.err
	}
	if p.err != nil {
		return len(b), nil
	}
	if p.total += len(b); p.total > MaxBody {
		return p.refuse(errAnswerTooLarge)
	}
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSuffix(string(p.buf[:i]), "\r")
		p.buf = p.buf[i+1:]
		if line == "" {
			if len(p.data) > 0 {
				d := strings.Join(p.data, "\n")
				p.data, p.size = p.data[:0], 0
				if err := p.onData(d); err != nil {
					p.err = err
					return len(b), nil
				}
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			p.data = append(p.data, strings.TrimPrefix(v, " "))
			p.size += len(v) + 1
			if p.size > MaxEvent {
				return p.refuse(errEventTooLarge)
			}
		}
	}
	if p.size+len(p.buf) > MaxEvent {
		return p.refuse(errEventTooLarge)
	}
	return len(b), nil
}

// refuse drops the event and fails this and every later Write with err.
func (p *sseParser) refuse(err error) (int, error) {
	p.err, p.buf, p.data, p.size = err, nil, nil, 0
	return 0, p.err
}

// close dispatches a last event that had no trailing blank line.
func (p *sseParser) close() error {
	if p.err == nil && len(p.data) > 0 {
		d := strings.Join(p.data, "\n")
		p.data = nil
		p.err = p.onData(d)
	}
	return p.err
}

// anthropicStream rebuilds the final message from Messages API events.
type anthropicStream struct {
	msg    map[string]any
	blocks map[int]map[string]any
	// partial holds a block's deltas per field (text, thinking,
	// signature, partial_json) until the block is used: appending to the
	// block's string at each delta copied the whole text every time.
	partial map[deltaField]*strings.Builder
	order   []int
	done    bool
	seen    []string // the first event types, for replaying a broken stream's start
}

func newAnthropicStream() *anthropicStream {
	return &anthropicStream{blocks: map[int]map[string]any{}, partial: map[deltaField]*strings.Builder{}}
}

// deltaField is a block's field that deltas add to.
type deltaField struct {
	idx   int
	field string
}

// add appends a delta to a block's field.
func (s *anthropicStream) add(idx int, field, text string) {
	k := deltaField{idx, field}
	if s.partial[k] == nil {
		s.partial[k] = &strings.Builder{}
	}
	s.partial[k].WriteString(text)
}

// take is the text the deltas added to a block's field, and forgets it.
func (s *anthropicStream) take(idx int, field string) (string, bool) {
	k := deltaField{idx, field}
	b, ok := s.partial[k]
	if !ok {
		return "", false
	}
	delete(s.partial, k)
	return b.String(), true
}

func (s *anthropicStream) event(data string) error {
	var ev map[string]any
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return fmt.Errorf("stream event is not JSON: %w", err)
	}
	idx := -1
	if f, ok := ev["index"].(float64); ok {
		idx = int(f)
	}
	if t := str(ev["type"]); t != "error" && t != "ping" && len(s.seen) < 4 {
		s.seen = append(s.seen, t)
	}
	switch ev["type"] {
	case "message_start":
		s.msg, _ = ev["message"].(map[string]any)
		if s.msg == nil {
			return fmt.Errorf("message_start without a message")
		}
	case "content_block_start":
		b, _ := ev["content_block"].(map[string]any)
		if b == nil {
			return fmt.Errorf("content_block_start without a block")
		}
		s.blocks[idx] = b
		s.order = append(s.order, idx)
	case "content_block_delta":
		b := s.blocks[idx]
		d, _ := ev["delta"].(map[string]any)
		if b == nil || d == nil {
			return fmt.Errorf("content_block_delta for unknown block %d", idx)
		}
		switch d["type"] {
		case "text_delta":
			s.add(idx, "text", str(d["text"]))
		case "thinking_delta":
			s.add(idx, "thinking", str(d["thinking"]))
		case "signature_delta":
			s.add(idx, "signature", str(d["signature"]))
		case "input_json_delta":
			s.add(idx, "partial_json", str(d["partial_json"]))
		case "citations_delta":
			c, _ := b["citations"].([]any)
			b["citations"] = append(c, d["citation"])
		}
	case "content_block_stop":
		if pj, ok := s.take(idx, "partial_json"); ok && s.blocks[idx] != nil {
			var in any = map[string]any{}
			if pj != "" {
				if err := json.Unmarshal([]byte(pj), &in); err != nil {
					return fmt.Errorf("tool input of block %d is not JSON: %w", idx, err)
				}
			}
			s.blocks[idx]["input"] = in
		}
	case "message_delta":
		if s.msg == nil {
			return fmt.Errorf("message_delta before message_start")
		}
		if d, ok := ev["delta"].(map[string]any); ok {
			for k, v := range d {
				s.msg[k] = v
			}
		}
		if u, ok := ev["usage"]; ok {
			s.msg["usage"] = u
		}
	case "message_stop":
		s.done = true
	case "error":
		e, _ := ev["error"].(map[string]any)
		return &errorEvent{typ: str(e["type"]), msg: str(e["message"])}
	}
	return nil
}

// errorEvent is an error event inside a 200 stream (overloaded
// mid-stream): the API's own failure, which the client retries.
type errorEvent struct{ typ, msg string }

func (e *errorEvent) Error() string {
	return strings.TrimSpace("error event in the stream: " + e.typ + ": " + firstLine(e.msg))
}

// message is the assembled message, or an error when the stream ended early.
func (s *anthropicStream) message() (map[string]any, error) {
	if s.msg == nil || !s.done {
		return nil, fmt.Errorf("the stream ended before message_stop")
	}
	content := make([]any, 0, len(s.order))
	for _, i := range s.order {
		b := s.blocks[i]
		for _, f := range []string{"text", "thinking", "signature"} {
			if t, ok := s.take(i, f); ok {
				b[f] = str(b[f]) + t
			}
		}
		content = append(content, b)
	}
	s.msg["content"] = content
	return s.msg, nil
}

func str(v any) string { s, _ := v.(string); return s }

// writeEvent writes one SSE event.
func writeEvent(w io.Writer, name string, data any) error {
	b, err := ndjson.Marshal(data)
	if err != nil {
		return err
	}
	if name != "" {
		_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	} else {
		_, err = fmt.Fprintf(w, "data: %s\n\n", b)
	}
	return err
}

type sseEvent struct {
	name string
	data any
}

// writeAnthropicStream streams a synthesized message as the Messages API
// does: message_start, per block start/delta/stop, message_delta, message_stop.
func writeAnthropicStream(w io.Writer, flush func(), msg map[string]any) error {
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	evs := []sseEvent{{"message_start", map[string]any{"type": "message_start", "message": start}}}
	content, _ := msg["content"].([]any)
	for i, c := range content {
		b := c.(map[string]any)
		var first, delta map[string]any
		switch b["type"] {
		case "tool_use":
			first = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			in, err := ndjson.Marshal(b["input"])
			if err != nil {
				return err
			}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
		default:
			first = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": b["text"]}
		}
		evs = append(evs,
			sseEvent{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": first}},
			sseEvent{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta}},
			sseEvent{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	evs = append(evs,
		sseEvent{"message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": msg["stop_reason"], "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": 0}}},
		sseEvent{"message_stop", map[string]any{"type": "message_stop"}})
	for _, e := range evs {
		if err := writeEvent(w, e.name, e.data); err != nil {
			return err
		}
	}
	flush()
	return nil
}
