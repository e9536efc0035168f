package proxy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/ndjson"
)

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func compact(v any) string {
	b, _ := ndjson.Marshal(v)
	return string(b)
}

func TestAnthropicInput(t *testing.T) {
	tests := []struct{ name, req, want, err string }{
		{"claude code shape",
			`{"model":"m","max_tokens":5,"stream":true,"metadata":{"user_id":"u"},"system":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}],
			"tools":[{"name":"Bash","description":"run","input_schema":{"type":"object"}},{"name":"X","defer_loading":true}],
			"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"system","content":"env"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"one"},{"type":"tool_use","id":"toolu_01abc","name":"Bash","input":{"command":"ls"}},{"type":"text","text":"two"}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01abc","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_02","name":"Bash","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":"boom"}]}]}`,
			`{"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"},{"content":"env","role":"user"},` +
				`{"content":[{"text":"one\n\ntwo","type":"text"},{"toolCallId":"call-0","toolInput":{"command":"ls"},"toolName":"Bash","type":"tool_use"}],"role":"assistant"},` +
				`{"content":[{"result":"a\n\nb","toolCallId":"call-0","toolName":"Bash","type":"tool_result"}],"role":"user"},` +
				`{"content":[{"toolCallId":"call-1","toolInput":{},"toolName":"Bash","type":"tool_use"}],"role":"assistant"},` +
				`{"content":[{"error":"boom","toolCallId":"call-1","toolName":"Bash","type":"tool_result"}],"role":"user"}],` +
				`"model":"m","params":{"maxTokens":5},"systemPrompt":"a\n\nb","tools":[{"description":"run","inputSchema":{"type":"object"},"name":"Bash"},{"description":"","name":"X"}]}`, ""},
		{"image", `{"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`, "", `a "image" block in a user turn`},
		{"server tool", `{"messages":[],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`, "", "server tool"},
		{"strict tool", `{"messages":[],"tools":[{"name":"a","strict":true}]}`, "", "tools[0].strict"},
		{"image in tool result", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image"}]}]}]}`, "", "inside a tool result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AnthropicInput(decode(t, tt.req), NewIDs())
			if tt.err != "" {
				var u *Unsupported
				if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || compact(got) != tt.want {
				t.Errorf("got %s (%v)\nwant %s", compact(got), err, tt.want)
			}
		})
	}
}

func TestAnthropicOutputAndSynthesis(t *testing.T) {
	ids := NewIDs()
	msg := decode(t, `{"id":"msg_01x","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"Let me."},{"type":"tool_use","id":"toolu_9","name":"Read","input":{"p":1}}],"stop_reason":"tool_use","usage":{"input_tokens":3}}`)
	out, err := AnthropicOutput(msg, ids)
	if err != nil || compact(out) != `{"calls":[{"toolCallId":"call-0","toolInput":{"p":1},"toolName":"Read"}],"text":"Let me.","type":"tool_calls"}` {
		t.Fatalf("%s %v", compact(out), err)
	}
	m := AnthropicMessage(out, "m", 3)
	if got := compact(m["content"]); got != `[{"citations":null,"text":"Let me.","type":"text"},{"caller":{"type":"direct"},"id":"call-0","input":{"p":1},"name":"Read","type":"tool_use"}]` || m["stop_reason"] != "tool_use" {
		t.Errorf("synthesized %s %v", got, m["stop_reason"])
	}
	// The stream of the synthesized message assembles back to it.
	var b strings.Builder
	if err := writeAnthropicStream(&b, func() {}, m); err != nil {
		t.Fatal(err)
	}
	as := newAnthropicStream()
	p := &sseParser{onData: as.event}
	_, _ = p.Write([]byte(b.String()))
	back, err := as.message()
	if err != nil || compact(back["content"]) != `[{"text":"Let me.","type":"text"},{"id":"call-0","input":{"p":1},"name":"Read","type":"tool_use"}]` {
		t.Errorf("re-assembled %s %v", compact(back["content"]), err)
	}
	for _, bad := range []string{`{"content":[],"stop_reason":"pause_turn"}`, `{"content":[{"type":"text","text":"x","citations":[{}]}],"stop_reason":"end_turn"}`,
		`{"content":[{"type":"server_tool_use"}],"stop_reason":"end_turn"}`, `{"content":[{"type":"tool_use","id":"a","name":"b"}],"stop_reason":"refusal"}`} {
		if _, err := AnthropicOutput(decode(t, bad), NewIDs()); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if out, _ := AnthropicOutput(decode(t, `{"content":[{"type":"text","text":"cut"}],"stop_reason":"max_tokens"}`), NewIDs()); compact(out) != `{"stop":"length","text":"cut","type":"final_answer"}` {
		t.Errorf("max_tokens: %s", compact(out))
	}
}

func TestOpenAIInputOutput(t *testing.T) {
	ids := NewIDs()
	req := decode(t, `{"model":"gpt","stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":9,"seed":1,
		"tools":[{"type":"function","function":{"name":"w","description":"d","parameters":{"type":"object"}}}],
		"messages":[{"role":"system","content":"s1"},{"role":"developer","content":[{"type":"text","text":"s2"}]},{"role":"user","content":"q"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc","type":"function","function":{"name":"w","arguments":"{\"c\":1}"}},{"id":"call_def","type":"function","function":{"name":"w","arguments":"not json"}}]},
		{"role":"tool","tool_call_id":"call_abc","content":"r1"},{"role":"tool","tool_call_id":"call_def","content":"{\"x\":2}"},{"role":"assistant","content":"done"}]}`)
	in, err := OpenAIInput(req, ids)
	want := `{"messages":[{"content":"q","role":"user"},{"content":[{"toolCallId":"call-0","toolInput":{"c":1},"toolName":"w","type":"tool_use"},{"toolCallId":"call-1","toolInput":"not json","toolName":"w","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"result":"r1","toolCallId":"call-0","toolName":"w","type":"tool_result"},{"result":"{\"x\":2}","toolCallId":"call-1","toolName":"w","type":"tool_result"}],"role":"user"},{"content":"done","role":"assistant"}],` +
		`"model":"gpt","params":{"maxTokens":9,"seed":1},"systemPrompt":"s1\n\ns2","tools":[{"description":"d","inputSchema":{"type":"object"},"name":"w"}]}`
	if err != nil || compact(in) != want {
		t.Errorf("got %s (%v)\nwant %s", compact(in), err, want)
	}
	for _, bad := range []string{`{"n":2,"messages":[]}`, `{"messages":[{"role":"user","content":"a"},{"role":"system","content":"late"}]}`,
		`{"max_tokens":1,"max_completion_tokens":1,"messages":[]}`, `{"messages":[],"tools":[{"type":"custom","custom":{}}]}`} {
		if _, err := OpenAIInput(decode(t, bad), NewIDs()); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	// A streamed completion assembles, normalizes, and re-streams to the same.
	chunks := "data: {\"id\":\"chatcmpl-1\",\"model\":\"gpt\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_zz\",\"type\":\"function\",\"function\":{\"name\":\"w\",\"arguments\":\"{\\\"c\\\"\"}}]}}]}\n\n" +
		"data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":2}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
	st := &openaiStream{}
	p := &sseParser{onData: st.event}
	_, _ = p.Write([]byte(chunks))
	msg, err := st.message()
	if err != nil {
		t.Fatal(err)
	}
	out, err := OpenAIOutput(msg, ids)
	if err != nil || compact(out) != `{"calls":[{"toolCallId":"call-2","toolInput":{"c":2},"toolName":"w"}],"type":"tool_calls"}` {
		t.Fatalf("%s %v", compact(out), err)
	}
	c := OpenAICompletion(out, "gpt", 1, 1700000000)
	var b strings.Builder
	_ = writeOpenAIStream(&b, func() {}, c)
	st2 := &openaiStream{}
	p2 := &sseParser{onData: st2.event}
	_, _ = p2.Write([]byte(b.String()))
	msg2, err := st2.message()
	if err != nil {
		t.Fatal(err)
	}
	if out2, err := OpenAIOutput(msg2, NewIDs()); err != nil || compact(out2) != compact(out) {
		t.Errorf("round trip %s %v", compact(out2), err)
	}
	if r, _ := OpenAIOutput(decode(t, `{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`), NewIDs()); compact(r) != `{"stop":"refusal","text":"no","type":"final_answer"}` {
		t.Errorf("refusal %s", compact(r))
	}
}

func TestVolatileRules(t *testing.T) {
	a := "Today's date is 2026-12-01.\n - Primary working directory: /tmp/a\n - Is a git repository: false\n - OS Version: Linux 6\n# gitStatus\nCurrent branch: x\n</system-reminder>\nYou have a persistent file-based memory at `/c/projects/-tmp-a/memory/`"
	b := "Today's date is 2027-01-31.\n - Primary working directory: /home/b/proj\n - Is a git repository: true\n - OS Version: Linux 7\n# gitStatus\nCurrent branch: main\nStatus: M x\n</system-reminder>\nYou have a persistent file-based memory at `/d/projects/-home-b/memory/`"
	if Normalize(a) != Normalize(b) {
		t.Errorf("not equal after the rules:\n%s\n%s", Normalize(a), Normalize(b))
	}
	x := "agentId: a333f3ab1ad0da6bb\nduration_ms: 677\n<usage><subagent_tokens>120</subagent_tokens><duration_ms>1540</duration_ms></usage>\noutput_file: /tmp/x/a333f3ab1ad0da6bb.output"
	y := "agentId: afd4a52ed17557d78\nduration_ms: 12\n<usage><subagent_tokens>16</subagent_tokens><duration_ms>1994</duration_ms></usage>\noutput_file: /tmp/y/afd4a52ed17557d78.output"
	if Normalize(x) != Normalize(y) {
		t.Errorf("agent results differ after the rules:\n%s\n%s", Normalize(x), Normalize(y))
	}
	if Normalize("Today's date is tomorrow") != "Today's date is tomorrow" || Normalize("fix the test") == Normalize("fix the tests") {
		t.Error("the rules change text they should not")
	}
}

func TestFirstDifference(t *testing.T) {
	rec := decode(t, `{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"x","inputSchema":{"p":{"type":"string"}}}],"model":"m"}`)
	tests := []struct{ actual, path, r, a string }{
		{`{"messages":[{"role":"user","content":"b"}],"tools":[{"name":"x","inputSchema":{"p":{"type":"string"}}}],"model":"m"}`, "messages[0].content", `"a"`, `"b"`},
		{`{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"x","inputSchema":{"p":{"type":"number"}}}],"model":"m"}`, "tools[0].inputSchema.p.type", `"string"`, `"number"`},
		{`{"messages":[{"role":"user","content":"a"}],"tools":[{"name":"x","inputSchema":{"p":{"type":"string"}}}]}`, "model", `"m"`, "(absent)"},
		{`{"messages":[{"role":"user","content":"a"},{"role":"user","content":"` + strings.Repeat("z", 300) + `"}],"tools":[{"name":"x","inputSchema":{"p":{"type":"string"}}}],"model":"m"}`, "messages[1]", "(absent)", `{"content":"zzz`},
	}
	for _, tt := range tests {
		d := FirstDifference(rec, decode(t, tt.actual))
		if d == nil || d.Path != tt.path || d.Recorded != tt.r || !strings.HasPrefix(d.Actual, tt.a) || len([]rune(d.Actual)) > 200 {
			t.Errorf("%s: %+v", tt.path, d)
		}
	}
	if d := FirstDifference(rec, decode(t, compact(rec))); d != nil {
		t.Errorf("equal values differ: %+v", d)
	}
	if d := FirstDifference("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "x"); d == nil || strings.Contains(d.Recorded, "abcdefghij") {
		t.Errorf("a key is not masked: %+v", d)
	}
}

func TestEncodeRefusesKeys(t *testing.T) {
	steps := []Step{{"model_input", 1, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "my key is abcd-1234-secret"}}, "tools": []any{}}}}
	c, err := Build(cassette.Header{Version: 2, ID: "k", CreatedAt: 1}, steps, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Encode(c, []string{"abcd-1234-secret"}); err == nil || strings.Contains(err.Error(), "abcd") || !strings.Contains(err.Error(), "API key") {
		t.Errorf("Encode with the key inside: %v", err)
	}
	b, err := Encode(c, []string{"other-key-value"})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := cassette.ReadAll(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	back, err := Load(cs[0])
	if err != nil || len(back) != 1 || compact(back[0].Payload) != compact(steps[0].Payload) {
		t.Errorf("Load: %v %v", back, err)
	}
}

func TestChildEnv(t *testing.T) {
	env := ChildEnv([]string{"A=1", "ANTHROPIC_BASE_URL=http://up", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=k"}, "http://127.0.0.1:9", true)
	got := strings.Join(env, " ")
	if got != "A=1 ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL=http://127.0.0.1:9 OPENAI_BASE_URL=http://127.0.0.1:9/v1 OPENAI_API_KEY="+OfflineKey {
		t.Errorf("env %s", got)
	}
	if u := Upstream([]string{"ANTHROPIC_BASE_URL=http://up"}, "ANTHROPIC_BASE_URL", PublicAPI); u != "http://up" {
		t.Error(u)
	}
	if u := Upstream(nil, "ANTHROPIC_BASE_URL", PublicAPI); u != PublicAPI {
		t.Error(u)
	}
}

func TestRunChildExitCode(t *testing.T) {
	for _, tt := range []struct {
		script string
		code   int
	}{{"exit 0", 0}, {"exit 3", 3}, {"kill -TERM $$", 143}} {
		code, err := RunChild([]string{"sh", "-c", tt.script}, "", nil, nil, nil, nil)
		if err != nil || code != tt.code {
			t.Errorf("%s: %d %v, want %d", tt.script, code, err, tt.code)
		}
	}
	if _, err := RunChild([]string{"/nonexistent/cmd"}, "", nil, nil, nil, nil); err == nil {
		t.Error("a missing command started")
	}
}

func TestProviderIDsInTextAreRewritten(t *testing.T) {
	req := decode(t, `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01bg","name":"Agent","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01bg","content":"launched"},{"type":"text","text":"<task-notification><tool-use-id>toolu_01bg</tool-use-id></task-notification>"}]}]}`)
	in, err := AnthropicInput(req, NewIDs())
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(in["messages"]); strings.Contains(got, "toolu_") || !strings.Contains(got, "<tool-use-id>call-0</tool-use-id>") {
		t.Errorf("messages %s", got)
	}
}
