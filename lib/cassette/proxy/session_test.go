package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// agent is a minimal tool-loop client of the Messages API, like Claude
// Code: it sends the conversation, runs the tool calls it gets back with
// run, and sends the results, until the model answers without calls.
type agent struct {
	t      *testing.T
	base   string
	stream bool
	system string
	run    func(name string, input any) string
	side   bool // send a title side call (no tools) before each main call
}

func (a *agent) post(path string, body map[string]any) (int, http.Header, []byte) {
	a.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", a.base+path+"?beta=true", bytes.NewReader(b))
	req.Header.Set("x-api-key", "sk-ant-test-proxy-0123456789abcdefghijkl")
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data
}

// call sends one request and returns the final message (decoding SSE).
func (a *agent) call(body map[string]any) (int, http.Header, map[string]any) {
	a.t.Helper()
	body["stream"] = a.stream
	code, h, data := a.post("/v1/messages", body)
	if code != 200 {
		var e map[string]any
		_ = json.Unmarshal(data, &e)
		return code, h, e
	}
	if !a.stream {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			a.t.Fatalf("response: %v: %s", err, data)
		}
		return code, h, m
	}
	as := newAnthropicStream()
	p := &sseParser{onData: as.event}
	_, _ = p.Write(data)
	if err := p.close(); err != nil {
		a.t.Fatalf("stream: %v", err)
	}
	m, err := as.message()
	if err != nil {
		a.t.Fatalf("stream: %v\n%s", err, data)
	}
	return code, h, m
}

// loop runs the conversation and returns the final text, or the error
// response's status and message.
func (a *agent) loop(prompt string) (string, int) {
	a.t.Helper()
	msgs := []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}}}
	tools := []any{map[string]any{"name": "Bash", "description": "run", "input_schema": map[string]any{"type": "object"}}}
	for range 10 {
		if a.side {
			code, _, _ := a.call(map[string]any{"model": "m", "max_tokens": 10, "system": "You are naming a coding session", "messages": []any{map[string]any{"role": "user", "content": prompt}}})
			if code != 200 {
				return "", code
			}
		}
		code, _, m := a.call(map[string]any{"model": "m", "max_tokens": 100, "system": a.system, "messages": msgs, "tools": tools})
		if code != 200 {
			e, _ := m["error"].(map[string]any)
			return fmt.Sprint(e["message"]), code
		}
		content, _ := m["content"].([]any)
		msgs = append(msgs, map[string]any{"role": "assistant", "content": content})
		var results []any
		var text []string
		for _, c := range content {
			b := c.(map[string]any)
			switch b["type"] {
			case "text":
				text = append(text, b["text"].(string))
			case "tool_use":
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": b["id"], "content": a.run(b["name"].(string), b["input"])})
			}
		}
		if len(results) == 0 {
			return strings.Join(text, ""), 200
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": results})
	}
	a.t.Fatal("too many turns")
	return "", 0
}

func script() *fakeapi.Script {
	return &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Thinking("plan"), fakeapi.Text("Running."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo hi"}), fakeapi.ToolUse("Bash", map[string]any{"command": "echo two"})}},
		{Match: "out:echo hi", Blocks: []fakeapi.Block{fakeapi.Text("It printed hi.")}},
	}}
}

func start(t *testing.T, opt Options) (*Session, string) {
	t.Helper()
	s, err := NewSession(opt)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return s, srv.URL()
}

func runTool(_ string, in any) string { return "out:" + in.(map[string]any)["command"].(string) }

// record runs the agent through a recording proxy and returns the steps.
func record(t *testing.T, stream bool) []Step {
	t.Helper()
	api, err := fakeapi.Start(script(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	up, _ := url.Parse(api.URL())
	s, base := start(t, Options{Mode: Record, Upstream: up})
	a := &agent{t: t, base: base, stream: stream, system: "Today's date is 2026-01-02.", run: runTool, side: true}
	if got, code := a.loop("go"); code != 200 || got != "It printed hi." {
		t.Fatalf("record: %d %q", code, got)
	}
	res, err := s.Finish(0)
	if err != nil {
		t.Fatal(err)
	}
	return res.Steps
}

func types(steps []Step) string {
	var ts []string
	for _, s := range steps {
		ts = append(ts, s.Type)
	}
	return strings.Join(ts, ",")
}

func TestRecordReplay(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			steps := record(t, stream)
			want := "metadata,model_input,model_output,metadata,tool_call,tool_result,tool_call,tool_result,model_input,model_output,metadata"
			if got := types(steps); got != want {
				t.Fatalf("steps %s\nwant  %s", got, want)
			}
			out := steps[2].Payload.(map[string]any)
			calls := OutputCalls(out)
			if out["text"] != "Running." || len(calls) != 2 || calls[0].ID != "call-0" || calls[1].ID != "call-1" {
				t.Errorf("model_output %v", out)
			}
			if r := steps[5].Payload.(map[string]any); r["result"] != "out:echo hi" || r["toolCallId"] != "call-0" {
				t.Errorf("tool_result %v", r)
			}
			if m := steps[10].Payload.(map[string]any); m["event"] != "run_completed" || m["result"] != "It printed hi." {
				t.Errorf("terminal %v", m)
			}
			b, _ := json.Marshal(stepsPayloads(steps))
			for _, bad := range []string{"toolu_", "msg_fake", "sk-ant", "usage", "stop_reason"} {
				if bytes.Contains(b, []byte(bad)) {
					t.Errorf("cassette holds %q", bad)
				}
			}

			// Replay: no upstream at all; the date in the system prompt changed.
			s, base := start(t, Options{Mode: Replay, Parent: steps})
			var ran []string
			a := &agent{t: t, base: base, stream: stream, system: "Today's date is 2027-05-06.", side: true, run: func(n string, in any) string {
				ran = append(ran, in.(map[string]any)["command"].(string))
				return runTool(n, in)
			}}
			if got, code := a.loop("go"); code != 200 || got != "It printed hi." {
				t.Fatalf("replay: %d %q", code, got)
			}
			if strings.Join(ran, ";") != "echo hi;echo two" {
				t.Errorf("tools run in replay: %v", ran)
			}
			res, err := s.Finish(0)
			if err != nil || res.Replayed != 10 || res.Unserved != 0 {
				t.Errorf("replay finish: %+v %v", res, err)
			}
		})
	}
}

func stepsPayloads(steps []Step) []any {
	var out []any
	for _, s := range steps {
		out = append(out, s.Payload)
	}
	return out
}

func TestReplayDivergence(t *testing.T) {
	steps := record(t, true)
	tests := []struct {
		name, prompt, path string
		ignore             []string
		match              string
		code               int
	}{
		{"changed prompt", "go now", "messages[0].content[0].text", nil, "", 400},
		{"ignored", "go now", "", []string{".messages[0].content[0].text"}, "", 200},
		{"sequence", "go now", "", nil, "sequence", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			s, base := start(t, Options{Mode: Replay, Parent: steps, Ignore: tt.ignore, Match: tt.match, Stderr: &errb})
			a := &agent{t: t, base: base, stream: true, system: "Today's date is 2026-01-02.", run: runTool}
			msg, code := a.loop(tt.prompt)
			if code != tt.code {
				t.Fatalf("status %d (%s), want %d", code, msg, tt.code)
			}
			_, err := s.Finish(0)
			if tt.code == 200 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			want := "[cc-cassette] replay diverged at step 1, " + tt.path
			if msg != want {
				t.Errorf("client got %q, want %q", msg, want)
			}
			if err == nil || !strings.Contains(errb.String(), tt.path) || !strings.Contains(errb.String(), `recorded: "go"`) || !strings.Contains(errb.String(), `actual:   "go now"`) {
				t.Errorf("stderr %q, err %v", errb.String(), err)
			}
			// Every later request gets the same 400, not retried.
			code, h, _ := a.call(map[string]any{"model": "m", "messages": []any{}, "tools": []any{map[string]any{"name": "x"}}})
			if code != 400 || h.Get("x-should-retry") != "false" {
				t.Errorf("later request: %d %v", code, h)
			}
		})
	}
}

func TestForkScripted(t *testing.T) {
	steps := record(t, true)
	// Step 5 is the result of call-0 (echo hi).
	script := []any{map[string]any{"type": "final_answer", "text": "Tests pass, then."}}
	s, base := start(t, Options{Mode: Fork, Parent: steps, ForkAt: 5, ForkSet: "tests pass", Script: script})
	a := &agent{t: t, base: base, stream: true, system: "Today's date is 2026-01-02.", run: runTool, side: true}
	if got, code := a.loop("go"); code != 200 || got != "Tests pass, then." {
		t.Fatalf("fork: %d %q", code, got)
	}
	res, err := s.Finish(0)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Steps
	if types(got) != "metadata,model_input,model_output,metadata,tool_call,tool_result,tool_call,tool_result,model_input,model_output,metadata" {
		t.Fatalf("fork steps %s", types(got))
	}
	for i := range 5 {
		if !Equal(got[i].Payload, steps[i].Payload) || got[i].Timestamp != steps[i].Timestamp {
			t.Errorf("step %d not copied", i)
		}
	}
	if r := got[5].Payload.(map[string]any); r["result"] != "tests pass" || got[5].Timestamp != steps[5].Timestamp {
		t.Errorf("fork step %v", r)
	}
	in := got[8].Payload.(map[string]any)
	last := in["messages"].([]any)[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	if last["result"] != "tests pass" {
		t.Errorf("model input after the fork carries %v", last)
	}
	if r := got[7].Payload.(map[string]any); r["result"] != "out:echo two" {
		t.Errorf("sibling result %v", r)
	}
}

func TestForkLive(t *testing.T) {
	steps := record(t, false)
	// The live upstream gets the request with the new result, and answers.
	api, err := fakeapi.Start(&fakeapi.Script{Turns: []fakeapi.Turn{
		{Match: `"tests":"pass"`, Blocks: []fakeapi.Block{fakeapi.Text("Live after the fork.")}},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	up, _ := url.Parse(api.URL())
	s, base := start(t, Options{Mode: Fork, Parent: steps, ForkAt: 5, ForkSet: map[string]any{"tests": "pass"}, Upstream: up})
	a := &agent{t: t, base: base, system: "Today's date is 2026-01-02.", run: runTool, side: true}
	if got, code := a.loop("go"); code != 200 || got != "Live after the fork." {
		t.Fatalf("fork --live: %d %q", code, got)
	}
	res, err := s.Finish(0)
	if err != nil {
		t.Fatal(err)
	}
	reqs := api.Requests()
	// Before the fork (the title side call before the fork request
	// included) nothing went upstream; then the main call did, with the
	// new result in place of the old one.
	if len(reqs) != 1 || !reqs[0].Contains(`{"tests":"pass"}`) || reqs[0].Contains("out:echo hi") {
		t.Errorf("upstream got %d requests", len(reqs))
	}
	if m := res.Steps[len(res.Steps)-1].Payload.(map[string]any); m["result"] != "Live after the fork." {
		t.Errorf("terminal %v", m)
	}
}

// An error answer (the client retries it) is passed on and not recorded;
// the retry is.
func TestRecordSkipsErrorAnswers(t *testing.T) {
	api, err := fakeapi.Start(&fakeapi.Script{Turns: []fakeapi.Turn{
		{Status: 529},
		{Blocks: []fakeapi.Block{fakeapi.Text("Fine now.")}},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	up, _ := url.Parse(api.URL())
	s, base := start(t, Options{Mode: Record, Upstream: up})
	a := &agent{t: t, base: base, stream: true, run: runTool}
	if _, code := a.loop("go"); code != 529 {
		t.Fatalf("first call: %d, want the upstream's 529", code)
	}
	if got, code := a.loop("go"); code != 200 || got != "Fine now." {
		t.Fatalf("retry: %d %q", code, got)
	}
	res, err := s.Finish(0)
	if err != nil || types(res.Steps) != "model_input,model_output,metadata" {
		t.Errorf("steps %s %v", types(res.Steps), err)
	}
}

// count_tokens is passed upstream and kept as a side call; replay answers
// it from the cassette.
func TestCountTokens(t *testing.T) {
	api, err := fakeapi.Start(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	up, _ := url.Parse(api.URL())
	body := `{"model":"m","messages":[{"role":"user","content":"count these words please"}]}`
	count := func(base string) string {
		resp, err := http.Post(base+"/v1/messages/count_tokens", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	s, base := start(t, Options{Mode: Record, Upstream: up})
	live := count(base)
	res, err := s.Finish(0)
	if err != nil || len(res.Steps) != 1 || res.Steps[0].Payload.(map[string]any)["api"] != "count_tokens" {
		t.Fatalf("steps %+v %v", res.Steps, err)
	}
	api.Close()
	r, base := start(t, Options{Mode: Replay, Parent: res.Steps})
	if got := count(base); got != live {
		t.Errorf("replayed %s, recorded %s", got, live)
	}
	if res, err := r.Finish(0); err != nil || res.Unserved != 0 {
		t.Errorf("replay: %+v %v", res, err)
	}
}
