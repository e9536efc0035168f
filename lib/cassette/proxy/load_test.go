package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// echoUpstream streams back, as the model's text, the token of the
// request's last user message, in several events with pauses, so that
// concurrent streams through the proxy interleave.
func echoUpstream(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", 400)
			return
		}
		tok := req.Messages[len(req.Messages)-1].Content
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		ev := func(name string, data any) {
			d, _ := json.Marshal(data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, d)
			f.Flush()
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_echo01", "type": "message", "role": "assistant", "model": "m", "content": []any{}, "usage": map[string]any{"input_tokens": 1}}})
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		for i := 0; i < len(tok); i += 4 {
			time.Sleep(time.Millisecond)
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": tok[i:min(i+4, len(tok))]}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 3}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// streamText posts a streaming request whose last user message is tok and
// returns the streamed text.
func streamText(c *http.Client, base, tok string, tools bool) (string, error) {
	body := map[string]any{"model": "m", "max_tokens": 10, "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": tok}}}
	if tools {
		body["tools"] = []any{map[string]any{"name": "Bash"}}
	}
	b, _ := json.Marshal(body)
	resp, err := c.Post(base+"/v1/messages", "application/json", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	as := newAnthropicStream()
	p := &sseParser{onData: as.event}
	if _, err := io.Copy(p, resp.Body); err != nil {
		return "", err
	}
	if err := p.close(); err != nil {
		return "", err
	}
	m, err := as.message()
	if err != nil {
		return "", err
	}
	return m["content"].([]any)[0].(map[string]any)["text"].(string), nil
}

// 200 concurrent streaming requests through a recording proxy, then
// through a replaying one: every client gets its own answer, and every
// recorded side call pairs its own request with its own answer.
func TestLoad200ConcurrentStreams(t *testing.T) {
	const n = 200
	up := echoUpstream(t)
	u, _ := url.Parse(up.URL)
	s, base := start(t, Options{Mode: Record, Upstream: u})
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	tok := func(i int) string { return fmt.Sprintf("token-%03d-%s", i, "abcdefghijklmnopqrstuvwxyz"[:i%26]) }
	// Request 0 goes first and alone: it starts the main loop. The other
	// 199 (half of them offering tools, like subagents) run at once.
	run := func(base string) {
		if got, err := streamText(c, base, tok(0), true); err != nil || got != tok(0) {
			t.Fatalf("request 0: %q %v", got, err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 1; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := streamText(c, base, tok(i), i%2 == 0)
				if err == nil && got != tok(i) {
					err = fmt.Errorf("request %d got %q", i, got)
				}
				if err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	run(base)
	res, err := s.Finish(0)
	if err != nil {
		t.Fatal(err)
	}
	// One request started the main loop; the other 199 are side calls.
	main, sides := 0, 0
	for _, st := range res.Steps {
		p := st.Payload.(map[string]any)
		switch st.Type {
		case "model_input":
			main++
		case "metadata":
			if p["event"] != "side_call" {
				continue
			}
			sides++
			in := p["input"].(map[string]any)["messages"].([]any)[0].(map[string]any)["content"]
			if out := p["output"].(map[string]any)["text"]; out != in {
				t.Errorf("side call %v answered %v", in, out)
			}
		}
	}
	if main != 1 || sides != n-1 {
		t.Fatalf("recorded %d main calls and %d side calls, want 1 and %d", main, sides, n-1)
	}
	up.Close()
	r, base := start(t, Options{Mode: Replay, Parent: res.Steps})
	run(base)
	if res, err := r.Finish(0); err != nil || res.Unserved != 0 {
		t.Fatalf("replay: %+v %v", res, err)
	}
}
