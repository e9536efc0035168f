package proxy

import (
	"fmt"
	"time"
)

// atForkPoint reports whether the next main-loop request is the one that
// carries the result of step ForkAt. Called with s.mu held.
func (s *Session) atForkPoint() bool {
	s.skipRound()
	return s.cursor > s.opt.ForkAt
}

// startFork begins the child cassette: the parent's steps before ForkAt,
// then ForkAt with the new result; the fork turn's later calls stay open
// so their results are recorded from this request. Called with s.mu held.
func (s *Session) startFork(a *api, req map[string]any) error {
	if !carriesResult(a, req, s.forkID) {
		return fmt.Errorf("the run reached the fork point without sending the result of step %d (%s)", s.opt.ForkAt, s.forkID)
	}
	p := s.opt.Parent
	s.steps = append([]Step(nil), p[:s.opt.ForkAt]...)
	pm := p[s.opt.ForkAt].Payload.(map[string]any)
	s.steps = append(s.steps, Step{"tool_result", p[s.opt.ForkAt].Timestamp,
		map[string]any{"toolCallId": s.forkID, "toolName": pm["toolName"], "result": s.opt.ForkSet}})
	s.open = nil
	for i := s.opt.ForkAt - 1; i >= 0; i-- {
		if p[i].Type != "model_output" {
			continue
		}
		calls := OutputCalls(p[i].Payload.(map[string]any))
		for j, c := range calls {
			if c.ID == s.forkID {
				s.open = calls[j+1:]
			}
		}
		break
	}
	s.forked = true
	return nil
}

func carriesResult(a *api, req map[string]any, id string) bool {
	found := false
	a.results(req, func(_ map[string]any, rid string) {
		if rid == id {
			found = true
		}
	})
	return found
}

// substitute puts the --set value in place of the fork tool's result in
// req (every later request repeats the history) and returns the new body.
// A string is sent as is, any other value as compact JSON text.
func (s *Session) substitute(a *api, req map[string]any) []byte {
	content, ok := s.opt.ForkSet.(string)
	if !ok {
		content = string(mustMarshal(s.opt.ForkSet))
	}
	a.results(req, func(res map[string]any, id string) {
		if id == s.forkID {
			a.set(res, content)
		}
	})
	return mustMarshal(req)
}

// nextScripted is the next reply of the fork script (Blackbox's replies
// format): final_answer copied, tool_calls with fresh call-N ids. Called
// with s.mu held.
func (s *Session) nextScripted() (map[string]any, error) {
	if s.scriptAt >= len(s.opt.Script) {
		return nil, fmt.Errorf("the script ran out: it has %d replies and the run asked for reply %d", len(s.opt.Script), s.scriptAt+1)
	}
	r, _ := s.opt.Script[s.scriptAt].(map[string]any)
	s.scriptAt++
	switch r["type"] {
	case "final_answer":
		return r, nil
	case "tool_calls":
		var calls []any
		raw, _ := r["calls"].([]any)
		for _, c := range raw {
			cm, _ := c.(map[string]any)
			in := cm["toolInput"]
			if in == nil {
				in = map[string]any{}
			}
			calls = append(calls, map[string]any{"toolCallId": s.ids.Next(), "toolName": cm["toolName"], "toolInput": in})
		}
		out := map[string]any{"type": "tool_calls", "calls": calls}
		if t, ok := r["text"].(string); ok && t != "" {
			out["text"] = t
		}
		return out, nil
	}
	return nil, fmt.Errorf("script reply %d: type must be final_answer or tool_calls", s.scriptAt)
}

// ParseScript checks a script file's value: an array of replies.
func ParseScript(v any) ([]any, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("the script must be a JSON array of model outputs")
	}
	for i, r := range arr {
		m, _ := r.(map[string]any)
		if m == nil || (m["type"] != "final_answer" && m["type"] != "tool_calls") {
			return nil, fmt.Errorf("script reply %d: want an object with type final_answer or tool_calls", i+1)
		}
		if m["type"] == "final_answer" {
			if _, ok := m["text"].(string); !ok {
				return nil, fmt.Errorf("script reply %d: final_answer needs a text string", i+1)
			}
		}
	}
	return arr, nil
}

// Result is how a session ended.
type Result struct {
	Steps    []Step // record, fork: the cassette's steps (terminal included)
	Replayed int    // replay: parent steps served or passed
	Unserved int    // side calls answered without a recording
	Passed   int    // requests passed through unrecorded
	// Unrecovered is the upstream failure the run ended on (no main-loop
	// call succeeded after it), "" when none; UpstreamErrors counts them all.
	Unrecovered    string
	UpstreamErrors int
	ModelCalls     int // record, fork: model_output steps recorded live
	// Stopped is why the recording stopped early (a request or answer
	// over MaxBody or MaxEvent), "" when it did not; AfterStop counts the
	// model requests passed on unrecorded after it.
	Stopped   string
	AfterStop int
}

// Finish ends the session after the child exited with exitCode: record
// and fork add the terminal step; replay checks the run used the whole
// cassette. The error is the session's first failure.
func (s *Session) Finish(exitCode int) (Result, error) {
	// A client may have read a whole answer before its handler recorded
	// the step: wait for the handlers, not only for the client (bounded:
	// a handler stuck upstream must not hold the run's end forever).
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	s.mainMu.Lock()
	defer s.mainMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	res := Result{Unserved: s.unmatchedSide, Passed: s.passed}
	if s.err != nil {
		// How often the client asked again shows whether it retried.
		fmt.Fprintf(s.opt.Stderr, "cc-cassette: %d model request(s) got the 400 (HTTP 400, x-should-retry: false)\n", s.refused)
		return res, s.err
	}
	switch {
	case s.opt.Mode == Replay || (s.opt.Mode == Fork && !s.forked):
		if s.opt.Mode == Fork {
			s.fail(fmt.Errorf("the run ended before reaching the fork point (step %d)", s.opt.ForkAt))
			return res, s.err
		}
		s.skipRound()
		p := s.opt.Parent
		for i := s.cursor; i < len(p); i++ {
			if p[i].Type != "metadata" {
				s.fail(&DivergenceError{Step: i, Diff: Difference{Path: "end of run",
					Recorded: fmt.Sprintf("%d more step(s), the next one a %s", len(p)-i, p[i].Type), Actual: "the agent finished"}})
				return res, s.err
			}
		}
		res.Replayed = s.replayed
		return res, nil
	}
	steps := s.steps
	res.Unrecovered, res.UpstreamErrors = s.unrecovered, s.upstreamErrs
	res.Stopped, res.AfterStop = s.stopped, s.afterStop
	if s.stopped != "" {
		// A side call may have ended after the stop: the recording is
		// what came before it.
		steps = steps[:s.stopAt:s.stopAt]
	}
	for _, st := range steps {
		if st.Type == "model_output" {
			res.ModelCalls++
		}
	}
	var end map[string]any
	switch last := lastOutput(steps); {
	case s.stopped != "":
		end = map[string]any{"event": "run_failed", "status": "error", "reason": "not_recorded", "message": s.stopped, "exitCode": exitCode}
	case exitCode != 0:
		end = map[string]any{"event": "run_failed", "status": "error", "reason": "process_exit", "exitCode": exitCode}
	case s.unrecovered != "":
		end = map[string]any{"event": "run_failed", "status": "error", "reason": "upstream_error", "error": s.unrecovered}
	case last != nil && last["type"] == "final_answer":
		end = map[string]any{"event": "run_completed", "status": "success", "result": last["text"]}
	}
	if end != nil {
		steps = append(steps, Step{"metadata", time.Now().UnixMilli(), end})
	}
	res.Steps = steps
	return res, nil
}

func lastOutput(steps []Step) map[string]any {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Type == "model_output" {
			m, _ := steps[i].Payload.(map[string]any)
			return m
		}
	}
	return nil
}
