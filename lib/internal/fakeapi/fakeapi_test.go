package fakeapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseSSE splits an SSE stream into events, failing on bad framing.
func parseSSE(t *testing.T, r io.Reader) []Event {
	t.Helper()
	var out []Event
	br := bufio.NewReader(r)
	var name string
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			if line != "" {
				t.Fatalf("stream ends inside a line: %q", line)
			}
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var v map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &v); err != nil {
				t.Fatalf("event %s: data is not JSON: %v", name, err)
			}
			if v["type"] != name {
				t.Fatalf("event %q carries data type %v", name, v["type"])
			}
			out = append(out, Event{Name: name, Data: v})
		case line == "":
			name = ""
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
}

// assemble rebuilds the message from the events the way a client does.
func assemble(t *testing.T, events []Event) map[string]any {
	t.Helper()
	var msg map[string]any
	var blocks []map[string]any
	partial := map[int]string{}
	for _, e := range events {
		d := e.Data.(map[string]any)
		switch e.Name {
		case "message_start":
			msg = d["message"].(map[string]any)
		case "content_block_start":
			idx := int(d["index"].(float64))
			if idx != len(blocks) {
				t.Fatalf("block index %d, want %d", idx, len(blocks))
			}
			blocks = append(blocks, d["content_block"].(map[string]any))
		case "content_block_delta":
			idx := int(d["index"].(float64))
			b, delta := blocks[idx], d["delta"].(map[string]any)
			switch delta["type"] {
			case "text_delta":
				b["text"] = b["text"].(string) + delta["text"].(string)
			case "thinking_delta":
				b["thinking"] = b["thinking"].(string) + delta["thinking"].(string)
			case "signature_delta":
				b["signature"] = delta["signature"]
			case "input_json_delta":
				partial[idx] += delta["partial_json"].(string)
			default:
				t.Fatalf("unknown delta %v", delta["type"])
			}
		case "content_block_stop":
			idx := int(d["index"].(float64))
			if s, ok := partial[idx]; ok {
				var in any
				if err := json.Unmarshal([]byte(s), &in); err != nil {
					t.Fatalf("tool input %q: %v", s, err)
				}
				blocks[idx]["input"] = in
			}
		case "message_delta":
			msg["stop_reason"] = d["delta"].(map[string]any)["stop_reason"]
			msg["usage"] = d["usage"]
		case "message_stop":
		default:
			t.Fatalf("unknown event %s", e.Name)
		}
	}
	msg["content"] = blocks
	return msg
}

func TestEventsRoundTrip(t *testing.T) {
	long := strings.Repeat("0123456789", 20) // several deltas
	m := NewMessage("msg_1", "m", []Block{
		{Type: "thinking", Thinking: long, Signature: "sig"},
		Text("héllo " + long),
		{Type: "tool_use", ID: "toolu_1", Name: "Bash", Input: map[string]any{"command": long}},
	}, "tool_use", Usage{InputTokens: 1500, OutputTokens: 120})
	var buf bytes.Buffer
	for _, e := range Events(m) {
		if err := WriteEvent(&buf, e); err != nil {
			t.Fatal(err)
		}
	}
	events := parseSSE(t, &buf)
	var names []string
	for _, e := range events {
		names = append(names, e.Name)
	}
	if names[0] != "message_start" || names[len(names)-1] != "message_stop" || names[len(names)-2] != "message_delta" {
		t.Errorf("event order %v", names)
	}
	if n := strings.Count(strings.Join(names, " "), "content_block_delta"); n < 9 {
		t.Errorf("%d deltas, want text split into chunks", n)
	}
	got, _ := json.Marshal(assemble(t, events))
	want, _ := json.Marshal(m)
	var g, w any
	_ = json.Unmarshal(got, &g)
	_ = json.Unmarshal(want, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("reassembled message\n got %s\nwant %s", got, want)
	}
}

func TestWriteEventFraming(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteEvent(&buf, Event{"message_stop", map[string]any{"type": "message_stop"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := WriteEvent(&buf, Event{"x", func() {}}); err == nil {
		t.Error("unencodable data: no error")
	}
}

func TestParseScript(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"yaml", "turns:\n  - blocks: [{type: tool_use, name: Bash, input: {command: ls}}]\n", ""},
		{"json", `{"turns":[{"match":"x","blocks":[{"type":"text","text":"a"}]}]}`, ""},
		{"error turn", "turns: [{status: 529}]", ""},
		{"bad regexp", "turns: [{match: '('}]", "turn 0: match"},
		{"bad type", "turns: [{blocks: [{type: image}]}]", `unknown type "image"`},
		{"tool without name", "turns: [{blocks: [{type: tool_use}]}]", "without name"},
		{"bad status", "turns: [{status: 302}]", "status 302"},
		{"bad times", "turns: [{times: -2}]", "times -2"},
		{"not yaml", "turns: [", "yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScript([]byte(tt.in))
			if tt.err == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
}

func TestLoadScriptInputIsJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte("turns:\n  - blocks:\n      - {type: tool_use, name: Edit, input: {file_path: a, n: 3, list: [x, {k: v}]}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s.Turns[0].Blocks[0].Input)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"file_path":"a","list":["x",{"k":"v"}],"n":3}`; string(b) != want {
		t.Errorf("input %s, want %s", b, want)
	}
	if _, err := LoadScript(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file: no error")
	}
}

// body builds a request body with the given last user content.
func body(tools bool, stream bool, content any) string {
	m := map[string]any{
		"model": "claude-opus-5-5", "stream": stream,
		"messages": []any{map[string]any{"role": "user", "content": content}},
	}
	if tools {
		m["tools"] = []any{map[string]any{"name": "Bash"}}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func post(t *testing.T, url, path, b string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

func start(t *testing.T, s *Script) *Server {
	t.Helper()
	srv, err := Start(s, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// firstText returns the text of a non-streaming reply's first block.
func firstText(t *testing.T, data string) (string, map[string]any) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("reply %q: %v", data, err)
	}
	c := m["content"].([]any)[0].(map[string]any)
	s, _ := c["text"].(string)
	return s, m
}

func TestMatching(t *testing.T) {
	srv := start(t, &Script{Turns: []Turn{
		{Name: "sub", Match: "^SUBAGENT", Blocks: []Block{Text("sub answer")}},
		{Name: "main1", Blocks: []Block{ToolUse("Bash", map[string]any{"command": "ls"})}},
		{Name: "main2", Match: "tool said (\\d+)", Blocks: []Block{Text("main answer")}},
	}})
	ask := func(content any) string {
		_, data := post(t, srv.URL(), "/v1/messages?beta=true", body(true, false, content))
		s, _ := firstText(t, data)
		return s
	}
	// main1 has no match, so it takes the first request that sub refuses.
	_, data := post(t, srv.URL(), "/v1/messages", body(true, false, "hello"))
	_, m := firstText(t, data)
	c := m["content"].([]any)[0].(map[string]any)
	if c["type"] != "tool_use" || c["id"] != "toolu_fake_t001_b0" || m["stop_reason"] != "tool_use" || m["id"] != "msg_fake_t001" {
		t.Errorf("first reply %s", data)
	}
	// A tool_result's text is matched.
	if got := ask([]any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": []any{map[string]any{"type": "text", "text": "tool said 42"}}}}); got != "main answer" {
		t.Errorf("tool_result reply %q", got)
	}
	if got := ask("SUBAGENT do it"); got != "sub answer" {
		t.Errorf("subagent reply %q", got)
	}
	if got := ask("SUBAGENT again"); got != "Done." {
		t.Errorf("after the script ran out: %q", got)
	}
	if got := ask("CRITICAL: Respond with TEXT ONLY. summarise"); !strings.Contains(got, "<summary>") {
		t.Errorf("compaction fallback %q", got)
	}
	if u := srv.Unused(); len(u) != 0 {
		t.Errorf("unused turns %v", u)
	}
	var kinds []string
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Kind+":"+r.TurnName)
	}
	if want := "script:main1 script:main2 script:sub fallback: fallback:"; strings.Join(kinds, " ") != want {
		t.Errorf("request kinds %q, want %q", strings.Join(kinds, " "), want)
	}
}

func TestSideCalls(t *testing.T) {
	srv := start(t, &Script{Title: "My title", Turns: []Turn{{Blocks: []Block{Text("scripted")}}}})
	_, data := post(t, srv.URL(), "/v1/messages", body(false, false, "x"))
	if s, _ := firstText(t, data); s != "OK." {
		t.Errorf("side call %q", s)
	}
	tb := `{"model":"m","system":[{"type":"text","text":"You are naming a coding session."}],"messages":[{"role":"user","content":"x"}]}`
	_, data = post(t, srv.URL(), "/v1/messages", tb)
	if s, _ := firstText(t, data); s != `{"title":"My title"}` {
		t.Errorf("title call %q", s)
	}
	if len(srv.Unused()) != 1 {
		t.Error("a side call used up a script turn")
	}
}

func TestErrorTurnAndStreaming(t *testing.T) {
	srv := start(t, &Script{Turns: []Turn{
		{Status: 529},
		{Blocks: []Block{Thinking("hmm"), Text("hi")}, Usage: &Usage{InputTokens: 7, OutputTokens: 3}},
	}})
	resp, data := post(t, srv.URL(), "/v1/messages", body(true, true, "x"))
	if resp.StatusCode != 529 || data != `{"error":{"message":"Overloaded","type":"overloaded_error"},"type":"error"}` {
		t.Errorf("error turn: %d %s", resp.StatusCode, data)
	}
	resp, data = post(t, srv.URL(), "/v1/messages?beta=true", body(true, true, "x"))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	m := assemble(t, parseSSE(t, strings.NewReader(data)))
	blocks := m["content"].([]map[string]any)
	if len(blocks) != 2 || blocks[0]["signature"] != "fakesig_t001_b0" || blocks[1]["text"] != "hi" || m["stop_reason"] != "end_turn" {
		t.Errorf("streamed message %v", m)
	}
	if u := m["usage"].(map[string]any); u["input_tokens"] != 7.0 || u["output_tokens"] != 3.0 {
		t.Errorf("usage %v", u)
	}
	reqs := srv.Requests()
	if reqs[0].Status != 529 || reqs[1].Query != "beta=true" || reqs[1].Seq != 2 {
		t.Errorf("log %+v", reqs)
	}
}

func TestOtherEndpointsAndLog(t *testing.T) {
	srv := start(t, nil)
	var log bytes.Buffer
	srv.SetLog(&log)
	_, data := post(t, srv.URL(), "/v1/messages/count_tokens", body(true, false, "abc"))
	if !strings.HasPrefix(data, `{"input_tokens":`) {
		t.Errorf("count_tokens %s", data)
	}
	resp, err := http.Get(srv.URL() + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "{}" {
		t.Errorf("other path: %d %s", resp.StatusCode, b)
	}
	resp, data = post(t, srv.URL(), "/v1/messages", "not json")
	if resp.StatusCode != 400 || !strings.Contains(data, "invalid_request_error") {
		t.Errorf("bad body: %d %s", resp.StatusCode, data)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("log has %d lines: %s", len(lines), log.String())
	}
	var r Request
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil || r.Kind != KindOther || r.Path != "/api/hello" || r.Method != "GET" {
		t.Errorf("log line %s (%v)", lines[1], err)
	}
}

func TestRequestHelpersAndWait(t *testing.T) {
	srv := start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan Request, 1)
	go func() {
		r, err := srv.WaitRequest(ctx, func(r Request) bool { return r.Contains("needle") })
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	post(t, srv.URL(), "/v1/messages", body(true, false, "hay"))
	post(t, srv.URL(), "/v1/messages", body(true, false, []any{map[string]any{"type": "text", "text": "a \"needle\"\n"}}))
	r := <-done
	if r.Seq != 2 || r.LastUserText() != "a \"needle\"\n" {
		t.Errorf("waited for %+v", r)
	}
	d, err := r.Decode()
	if err != nil || d.Tools != 1 || len(d.Messages) != 1 || d.Messages[0].Role != "user" {
		t.Errorf("decode %+v %v", d, err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := srv.WaitRequest(short, func(Request) bool { return false }); err == nil {
		t.Error("wait without a match: no error")
	}
}

func TestAddTurns(t *testing.T) {
	srv := start(t, nil)
	if err := srv.AddTurns(Turn{Match: "("}); err == nil {
		t.Error("bad regexp accepted")
	}
	if err := srv.AddTurns(Turn{Blocks: []Block{Text("added")}}); err != nil {
		t.Fatal(err)
	}
	_, data := post(t, srv.URL(), "/v1/messages", body(true, false, "x"))
	if s, _ := firstText(t, data); s != "added" {
		t.Errorf("reply %q", s)
	}
}

func TestTimes(t *testing.T) {
	srv := start(t, &Script{Turns: []Turn{
		{Name: "twice", Times: 2, Blocks: []Block{Text("a")}},
		{Name: "always", Times: -1, Match: "x", Blocks: []Block{Text("b")}},
	}})
	var got []string
	for range 4 {
		_, data := post(t, srv.URL(), "/v1/messages", body(true, false, "x"))
		s, _ := firstText(t, data)
		got = append(got, s)
	}
	if strings.Join(got, "") != "aabb" {
		t.Errorf("answers %q, want a a b b", got)
	}
	if u := srv.Unused(); len(u) != 0 {
		t.Errorf("unused %v", u)
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add([]byte("turns:\n  - match: a\n    blocks: [{type: text, text: b}]\n"))
	f.Add([]byte(`{"turns":[{"status":529},{"blocks":[{"type":"tool_use","name":"X","input":{"a":[1,{"b":null}]}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript(data)
		if err != nil {
			return
		}
		srv, err := New(s)
		if err != nil {
			t.Fatalf("parsed script rejected by New: %v", err)
		}
		for i := range srv.script.Turns {
			tr := srv.script.Turns[i]
			for _, e := range Events(NewMessage("m", "x", tr.Blocks, tr.stopReason(), Usage{})) {
				if err := WriteEvent(io.Discard, e); err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
			}
		}
	})
}

// Every usage shape the pricing rules read reaches the stream's
// message_delta as given.
func TestUsageShapes(t *testing.T) {
	u := Usage{InputTokens: 1, OutputTokens: 2, CacheCreationInputTokens: 3,
		CacheCreation: &CacheCreation{Ephemeral5m: 1, Ephemeral1h: 2}, ServerToolUse: map[string]int{"web_search_requests": 4},
		InferenceGeo: "us", Speed: "fast", ServiceTier: "priority",
		Iterations: []map[string]any{{"type": "advisor_message", "model": "claude-opus-5-5", "input_tokens": 5}}}
	ev := Events(NewMessage("m", "x", []Block{Text("hi")}, "end_turn", u))
	var delta []byte
	for _, e := range ev {
		if e.Name == "message_delta" {
			delta, _ = json.Marshal(e.Data)
		}
	}
	for _, want := range []string{`"cache_creation":{"ephemeral_5m_input_tokens":1,"ephemeral_1h_input_tokens":2}`,
		`"server_tool_use":{"web_search_requests":4}`, `"inference_geo":"us"`, `"speed":"fast"`, `"service_tier":"priority"`,
		`"iterations":[{"input_tokens":5,"model":"claude-opus-5-5","type":"advisor_message"}]`} {
		if !strings.Contains(string(delta), want) {
			t.Errorf("message_delta %s lacks %s", delta, want)
		}
	}
	plain, _ := json.Marshal(Usage{InputTokens: 1})
	if string(plain) != `{"input_tokens":1,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}` {
		t.Errorf("plain usage %s: unset shapes must not be sent", plain)
	}
}
