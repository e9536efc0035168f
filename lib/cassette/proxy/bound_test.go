package proxy

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAnswerOverBoundStopsRecording: an answer over what the proxy keeps
// (here one stream event over MaxEvent) reaches the client whole; the
// recording keeps the calls before it, ends with run_failed/not_recorded
// and says why; a later call is passed on unrecorded. A replay of the
// result serves the first call and then diverges, never a silent pass.
func TestAnswerOverBoundStopsRecording(t *testing.T) {
	var calls atomic.Int32
	big := strings.Repeat("a", MaxEvent+10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		text := fmt.Sprintf("answer %d", calls.Add(1))
		if calls.Load() == 2 {
			text = big
		}
		for _, ev := range []string{
			`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + text + `"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`,
			`{"type":"message_stop"}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var stderr bytes.Buffer
	s, base := start(t, Options{Mode: Record, Upstream: u, Stderr: &stderr})
	for i, want := range []string{"answer 1", big, "answer 3"} {
		code, body, err := rawCall(t, base)
		if code != 200 || err != nil || !strings.Contains(body, `"text":"`+want+`"`) {
			t.Fatalf("call %d: %d %v, the client got %d bytes", i, code, err, len(body))
		}
	}
	res, err := s.Finish(0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped == "" || res.AfterStop != 1 {
		t.Errorf("stopped %q after %d", res.Stopped, res.AfterStop)
	}
	if !strings.Contains(stderr.String(), "cc-cassette: model response: a stream event over 16 MiB: not recorded, passed on whole; the recording stops there") {
		t.Errorf("stderr: %s", stderr.String())
	}
	var types []string
	for _, st := range res.Steps {
		types = append(types, st.Type)
	}
	if got := strings.Join(types, " "); got != "model_input model_output metadata" {
		t.Fatalf("steps %s", got)
	}
	if m := res.Steps[2].Payload.(map[string]any); m["event"] != "run_failed" || m["reason"] != "not_recorded" || !strings.Contains(str(m["message"]), "over 16 MiB") {
		t.Errorf("terminal step %v", m)
	}
	rs, rbase := start(t, Options{Mode: Replay, Parent: res.Steps})
	if code, body, err := rawCall(t, rbase); code != 200 || err != nil || !strings.Contains(body, "answer 1") {
		t.Fatalf("replay: %d %v %s", code, err, body)
	}
	if code, _, _ := rawCall(t, rbase); code != http.StatusBadRequest {
		t.Errorf("replay past the stop: %d, want the divergence's 400", code)
	}
	if _, err := rs.Finish(0); err == nil {
		t.Error("replay past the stop passed")
	}
}

// TestBoundedBuffer keeps up to max bytes, then lets go of them and fails
// every later write.
func TestBoundedBuffer(t *testing.T) {
	b := &boundedBuffer{max: 10, over: errAnswerTooLarge}
	for _, w := range []string{"12345", "67890"} {
		if _, err := b.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	if string(b.b) != "1234567890" {
		t.Fatalf("kept %q", b.b)
	}
	if _, err := b.Write([]byte("x")); err != errAnswerTooLarge || b.b != nil {
		t.Fatalf("over: %v, kept %q", err, b.b)
	}
	if _, err := b.Write(nil); err != errAnswerTooLarge {
		t.Errorf("a later write: %v", err)
	}
}

// TestManyDeltasAssemble: the deltas of every kind add up in order (they
// are gathered per block and field, not appended to the block's string).
func TestManyDeltasAssemble(t *testing.T) {
	st := newAnthropicStream()
	p := &sseParser{onData: st.event}
	var w strings.Builder
	ev := func(s string) { fmt.Fprintf(&w, "data: %s\n\n", s) }
	ev(`{"type":"message_start","message":{"id":"m","role":"assistant","content":[]}}`)
	ev(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"T"}}`)
	ev(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"<"}}`)
	ev(`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}}`)
	var text, thinking strings.Builder
	for i := range 5000 {
		ev(fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"%d,"}}`, i))
		ev(fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"%d;"}}`, i))
		fmt.Fprintf(&text, "%d,", i)
		fmt.Fprintf(&thinking, "%d;", i)
	}
	ev(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s1"}}`)
	ev(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s2"}}`)
	ev(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}`)
	ev(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"ls\"}"}}`)
	for i := range 3 {
		ev(fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	ev(`{"type":"message_delta","delta":{"stop_reason":"tool_use"}}`)
	ev(`{"type":"message_stop"}`)
	if _, err := p.Write([]byte(w.String())); err != nil || p.close() != nil {
		t.Fatal(err, p.close())
	}
	msg, err := st.message()
	if err != nil {
		t.Fatal(err)
	}
	c := msg["content"].([]any)
	b0, b1, b2 := c[0].(map[string]any), c[1].(map[string]any), c[2].(map[string]any)
	if b0["thinking"] != "T"+thinking.String() || b0["signature"] != "s1s2" {
		t.Errorf("thinking block %.100v", b0)
	}
	if b1["text"] != "<"+text.String() {
		t.Errorf("text %.100q", b1["text"])
	}
	if in := b2["input"].(map[string]any); in["command"] != "ls" {
		t.Errorf("tool input %v", b2["input"])
	}
}
