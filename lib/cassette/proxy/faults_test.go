package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// faultProxy records through a fake API whose first main-loop reply is
// turn (a fault), followed by a good reply.
func faultProxy(t *testing.T, fault fakeapi.Turn) (*Session, string) {
	t.Helper()
	fault.Blocks = []fakeapi.Block{fakeapi.Text("A long answer that breaks off.")}
	api, err := fakeapi.Start(&fakeapi.Script{Turns: []fakeapi.Turn{fault, {Blocks: []fakeapi.Block{fakeapi.Text("Recovered.")}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	up, _ := url.Parse(api.URL())
	return start(t, Options{Mode: Record, Upstream: up})
}

// rawCall posts one streamed main-loop request and returns the status,
// the body read and the error reading it.
func rawCall(t *testing.T, base string) (int, string, error) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": "go"}},
		"tools":    []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}})
	req, _ := http.NewRequest("POST", base+"/v1/messages", bytes.NewReader(body))
	req.Header.Set("x-api-key", "sk-ant-test-proxy-0123456789abcdefghijkl")
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func upstreamErrors(steps []Step) []map[string]any {
	var out []map[string]any
	for _, st := range steps {
		if m, _ := st.Payload.(map[string]any); st.Type == "metadata" && m["event"] == "upstream_error" {
			out = append(out, m)
		}
	}
	return out
}

// An upstream reset mid-stream reaches the client as a cut (an error
// reading the body), never as a clean 200; it is recorded, and a run that
// ends on it is unrecovered (issue 31 #9).
func TestUpstreamCutIsPassedOn(t *testing.T) {
	s, base := faultProxy(t, fakeapi.Turn{CutAfter: 3})
	code, body, err := rawCall(t, base)
	if err == nil {
		t.Fatalf("the client read a complete %d answer from a cut stream:\n%s", code, body)
	}
	res, ferr := s.Finish(0)
	if ferr != nil {
		t.Fatal(ferr)
	}
	if ue := upstreamErrors(res.Steps); len(ue) != 1 || !strings.Contains(ue[0]["error"].(string), "cut") {
		t.Errorf("recorded %v", ue)
	}
	if res.Unrecovered == "" || res.ModelCalls != 0 {
		t.Errorf("result %+v: want an unrecovered failure", res)
	}
	if m := res.Steps[len(res.Steps)-1].Payload.(map[string]any); m["event"] != "run_failed" || m["reason"] != "upstream_error" {
		t.Errorf("terminal step %v", m)
	}
}

// A retry after the cut that succeeds is a recovery.
func TestUpstreamCutThenRetry(t *testing.T) {
	s, base := faultProxy(t, fakeapi.Turn{CutAfter: 3})
	if _, _, err := rawCall(t, base); err == nil {
		t.Fatal("no cut")
	}
	if code, body, err := rawCall(t, base); code != 200 || err != nil || !strings.Contains(body, "Recovered.") {
		t.Fatalf("retry: %d %v %s", code, err, body)
	}
	res, err := s.Finish(0)
	if err != nil || res.Unrecovered != "" || res.ModelCalls != 1 || len(upstreamErrors(res.Steps)) != 1 {
		t.Errorf("result %+v, %v", res, err)
	}
	rs, rbase := start(t, Options{Mode: Replay, Parent: res.Steps})
	if _, _, err := rawCall(t, rbase); err == nil {
		t.Error("replay did not cut where the recording was cut")
	}
	if code, body, err := rawCall(t, rbase); code != 200 || err != nil || !strings.Contains(body, "Recovered.") {
		t.Errorf("replay: %d %v %s", code, err, body)
	}
	if _, err := rs.Finish(0); err != nil {
		t.Errorf("replay finish: %v", err)
	}
}

// An error event inside a 200 stream (overloaded mid-stream) is passed on
// as it came and recorded; the session does not fail, so the client's
// retry is forwarded, not answered 400 x-should-retry: false (issue 31 #3).
func TestStreamErrorEventThenRetry(t *testing.T) {
	s, base := faultProxy(t, fakeapi.Turn{ErrorAfter: 2})
	code, body, err := rawCall(t, base)
	if code != 200 || err != nil || !strings.Contains(body, "event: error") || !strings.Contains(body, "overloaded_error") {
		t.Fatalf("first call: %d %v\n%s", code, err, body)
	}
	code, body, err = rawCall(t, base)
	if code != 200 || err != nil || !strings.Contains(body, "Recovered.") {
		t.Fatalf("the retry got %d %v\n%s", code, err, body)
	}
	res, ferr := s.Finish(0)
	if ferr != nil {
		t.Fatalf("the session failed: %v", ferr)
	}
	ue := upstreamErrors(res.Steps)
	if len(ue) != 1 || !strings.Contains(ue[0]["error"].(string), "overloaded_error") || res.Unrecovered != "" {
		t.Errorf("recorded %v, result %+v", ue, res)
	}
	if got := types(res.Steps); got != "metadata,model_input,model_output,metadata" {
		t.Errorf("steps %s", got)
	}
	// Replay gives the failure back as it came (the client retries as it
	// did when recording), then the retry's answer.
	rs, rbase := start(t, Options{Mode: Replay, Parent: res.Steps})
	if code, body, err := rawCall(t, rbase); code != 200 || err != nil || !strings.Contains(body, "event: error") || !strings.Contains(body, "overloaded_error") {
		t.Errorf("replay of the failure: %d %v %s", code, err, body)
	}
	if code, body, err := rawCall(t, rbase); code != 200 || err != nil || !strings.Contains(body, "Recovered.") {
		t.Errorf("replay: %d %v %s", code, err, body)
	}
	if _, err := rs.Finish(0); err != nil {
		t.Errorf("replay finish: %v", err)
	}
}

// An unreachable upstream: the client gets a 502, the run is unrecovered.
func TestUpstreamUnreachable(t *testing.T) {
	up, _ := url.Parse("http://127.0.0.1:1")
	s, base := start(t, Options{Mode: Record, Upstream: up})
	if code, _, _ := rawCall(t, base); code != http.StatusBadGateway {
		t.Errorf("status %d", code)
	}
	res, err := s.Finish(0)
	if err != nil || res.Unrecovered == "" || res.UpstreamErrors != 1 {
		t.Errorf("result %+v, %v", res, err)
	}
}
