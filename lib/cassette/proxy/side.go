package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// Side calls are model requests outside the main loop: Claude Code's
// titles, summaries and classifiers (no tools), subagents (tools, but
// another first message), and count_tokens. They are recorded as
// metadata steps {event:"side_call", api, key, input?, output} so that
// replay can answer them; key is the SHA-256 of the volatile-normalized
// model_input, which replay looks up first, then the next unused side
// call of the same api in recorded order.

func (s *Session) sideKey(in any) string {
	b, _ := ndjson.Marshal(Normalize(in))
	return hashHex(b)
}

func (s *Session) sideCall(a *api, w http.ResponseWriter, r *http.Request, req map[string]any, body []byte, stream bool) {
	if !s.admit(a, w, r, body) {
		return
	}
	in, inErr := a.input(req, s.ids)
	off := s.offline()
	s.mu.Unlock()
	if inErr != nil && off {
		s.mu.Lock()
		s.fail(fmt.Errorf("side request: %w", inErr))
		s.mu.Unlock()
		s.refuse(a, w)
		return
	}
	key := ""
	if inErr == nil {
		key = s.sideKey(in)
	}
	if off {
		s.mu.Lock()
		st := s.findSide(a.name, key)
		var out map[string]any
		step := 0
		if st >= 0 {
			p := s.opt.Parent[st].Payload.(map[string]any)
			out, _ = p["output"].(map[string]any)
			step = st
		}
		if out == nil {
			s.unmatchedSide++
			out = map[string]any{"type": "final_answer", "text": ""}
		}
		for _, c := range OutputCalls(out) {
			s.ids.Register(c.ID)
		}
		s.mu.Unlock()
		ts := nowMS()
		if st >= 0 {
			ts = s.opt.Parent[st].Timestamp
		}
		respond(a, w, a.answer(out, str(req["model"]), step, ts), stream)
		return
	}
	t0 := time.Now().UnixMilli()
	if out := s.forwardOutput(a, w, r, body, stream, inErr, "side"); out != nil {
		s.steps = append(s.steps, Step{"metadata", t0, map[string]any{"event": "side_call", "api": a.name, "key": key, "input": in, "output": out}})
		s.mu.Unlock()
	}
}

func (s *Session) countTokens(w http.ResponseWriter, r *http.Request, body []byte) {
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	key := hashHex(mustMarshal(Normalize(req)))
	s.mu.Lock()
	if s.passStopped(anthropicAPI, w, r, body) {
		return
	}
	off := s.offline()
	s.mu.Unlock()
	if off {
		s.mu.Lock()
		n := float64(len(body) / 4)
		if st := s.findSide("count_tokens", key); st >= 0 {
			p := s.opt.Parent[st].Payload.(map[string]any)
			if v, ok := number(p["inputTokens"]); ok {
				n = v
			}
		} else {
			s.unmatchedSide++
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		b, _ := ndjson.Marshal(map[string]any{"input_tokens": n})
		_, _ = w.Write(b)
		return
	}
	resp, err := s.forward(anthropicAPI, r, bytes.NewReader(body), int64(len(body)), true)
	if err != nil {
		writeError(w, anthropicAPI, http.StatusBadGateway, "api_error", "[cc-cassette] upstream: "+err.Error())
		return
	}
	defer resp.Body.Close()
	buf := &boundedBuffer{max: MaxBody, over: errAnswerTooLarge}
	big, err := copyResponse(w, resp, buf)
	if big != nil && resp.StatusCode/100 == 2 {
		s.stopLocked("count_tokens response", big)
	}
	if big != nil || err != nil || resp.StatusCode/100 != 2 {
		passCut(err)
		return
	}
	var out struct {
		InputTokens *float64 `json:"input_tokens"`
	}
	if json.Unmarshal(buf.b, &out) != nil || out.InputTokens == nil {
		return
	}
	s.mu.Lock()
	s.steps = append(s.steps, Step{"metadata", time.Now().UnixMilli(), map[string]any{"event": "side_call", "api": "count_tokens", "key": key, "inputTokens": *out.InputTokens}})
	s.mu.Unlock()
}

func mustMarshal(v any) []byte {
	b, _ := ndjson.Marshal(v)
	return b
}

// findSide picks the parent side_call for a request: the first unused one
// of the api with the same key, else the first unused one of the api,
// else any one with the key (a repeated call). -1 when none. Called with
// s.mu held.
func (s *Session) findSide(api, key string) int {
	first, reuse := -1, -1
	for i, st := range s.opt.Parent {
		if st.Type != "metadata" || !isSide(st.Payload) {
			continue
		}
		p := st.Payload.(map[string]any)
		if p["api"] != api {
			continue
		}
		if s.sideUsed[i] {
			if reuse < 0 && p["key"] == key {
				reuse = i
			}
			continue
		}
		if p["key"] == key {
			s.sideUsed[i] = true
			return i
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		s.sideUsed[first] = true
		return first
	}
	return reuse
}
