package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ccpipe/ccpipe/lib/jq"
	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// Mode is what a Session does with model calls.
type Mode string

// The three modes.
const (
	Record Mode = "record" // forward upstream and record
	Replay Mode = "replay" // answer from the cassette, nothing forwarded
	Fork   Mode = "fork"   // replay up to a tool result, then record live or scripted
)

// Step is one cassette step before hashing: type, timestamp, payload.
type Step struct {
	Type      string
	Timestamp int64
	Payload   any
}

// Options configure a Session.
type Options struct {
	Mode     Mode
	Upstream *url.URL // Anthropic base URL (record, fork --live)
	OpenAI   *url.URL // OpenAI base URL, ending in /v1 (record, fork --live)
	Parent   []Step   // replay, fork: the cassette's steps
	Match    string   // strict (default) or sequence
	Ignore   []string // jq paths removed from both sides before comparing
	ForkAt   int      // fork: index of the tool_result step
	ForkSet  any      // fork: the new result
	Script   []any    // fork: scripted model outputs; nil means live
	Stderr   io.Writer
	Client   *http.Client
}

// Session is the state of one proxied run. Its ServeHTTP is the proxy.
type Session struct {
	opt    Options
	ignore []*jq.Filter
	client *http.Client

	mainMu   sync.Mutex     // model calls of the main loop, one at a time
	inflight sync.WaitGroup // requests being answered; Finish waits for them
	mu       sync.Mutex
	steps    []Step
	ids      *IDs
	main     map[string]string // per API: key of the main loop's first message
	open     []Call            // calls of the last main model_output, awaiting results
	keys     map[string]bool
	err      error // first failure; the cassette is not written
	diverg   *DivergenceError

	cursor        int          // replay: next parent step
	sideUsed      map[int]bool // replay: parent side_call steps served
	unmatchedSide int
	forked        bool   // fork: the fork request went by
	forkID        string // fork: toolCallId of step ForkAt
	scriptAt      int
	replayed      int
	refused       int    // model requests answered with the failure's 400
	upstreamErrs  int    // model calls that failed upstream
	unrecovered   string // the last one, until a main-loop call succeeds
	passed        int    // requests passed through unrecorded
	stopped       string // why the recording stopped (a body over MaxBody), or ""
	stopAt        int    // len(steps) then: later steps are dropped
	afterStop     int    // model requests passed on unrecorded after it
}

// NewSession checks the options and makes a session.
func NewSession(opt Options) (*Session, error) {
	if opt.Match == "" {
		opt.Match = "strict"
	}
	if opt.Match != "strict" && opt.Match != "sequence" {
		return nil, fmt.Errorf("--match must be strict or sequence, not %q", opt.Match)
	}
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	s := &Session{opt: opt, ids: NewIDs(), keys: map[string]bool{}, sideUsed: map[int]bool{}, client: opt.Client, main: map[string]string{}}
	if s.client == nil {
		s.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	for _, p := range opt.Ignore {
		f, err := jq.Compile("del("+p+")", nil)
		if err != nil {
			return nil, fmt.Errorf("--ignore %s: %w", p, err)
		}
		s.ignore = append(s.ignore, f)
	}
	if opt.Mode == Fork {
		if opt.ForkAt < 0 || opt.ForkAt >= len(opt.Parent) || opt.Parent[opt.ForkAt].Type != "tool_result" {
			return nil, fmt.Errorf("--at %d is not a tool_result step (tool_result steps: %s)", opt.ForkAt, toolResultIndexes(opt.Parent))
		}
		pm, _ := opt.Parent[opt.ForkAt].Payload.(map[string]any)
		s.forkID, _ = pm["toolCallId"].(string)
	}
	return s, nil
}

func toolResultIndexes(steps []Step) string {
	var idx []string
	for i, st := range steps {
		if st.Type == "tool_result" {
			idx = append(idx, fmt.Sprint(i))
		}
	}
	if len(idx) == 0 {
		return "none"
	}
	return strings.Join(idx, ", ")
}

// Keys are the credential values seen in request headers (never written
// anywhere; record checks the cassette does not contain them).
func (s *Session) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.keys {
		out = append(out, k)
	}
	return out
}

// Err is the first failure of the session (a divergence, an unsupported
// field, a script that ran out), or nil.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// maskLocked is mask taking s.mu itself.
func (s *Session) maskLocked(msg string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mask(msg)
}

// mask hides credentials (Blackbox's rules, §3.5, the keys the client
// sent, and lib/secrets' Default rules) in a message. Called with s.mu held.
func (s *Session) mask(msg string) string {
	known := make([]string, 0, len(s.keys))
	for k := range s.keys {
		known = append(known, k)
	}
	return maskAll(msg, known...)
}

func (s *Session) fail(err error) {
	if s.err == nil {
		s.err = err
		var d *DivergenceError
		if errors.As(err, &d) {
			s.diverg = d
		}
		fmt.Fprintf(s.opt.Stderr, "cc-cassette: %s\n", s.mask(err.Error()))
	}
}

// ServeHTTP answers one request of the client.
func (s *Session) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	s.noteKeys(r.Header)
	a := apiFor(r)
	count := a == nil && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens")
	if a == nil && !count {
		s.other(w, r)
		return
	}
	// What is recorded is read whole, up to MaxBody; a larger request is
	// passed on as it comes and stops the recording.
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		http.Error(w, "cc-cassette: reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if a == nil {
		a = anthropicAPI
	}
	switch {
	case len(body) > MaxBody:
		s.bigRequest(a, w, r, body)
	case count:
		s.countTokens(w, r, body)
	default:
		s.model(a, w, r, body)
	}
}

// bigRequest is a model or count_tokens request over MaxBody: passed on
// upstream as it comes and not recorded (the recording stops there), or
// refused offline, where there is nothing to answer it from.
func (s *Session) bigRequest(a *api, w http.ResponseWriter, r *http.Request, read []byte) {
	s.mu.Lock()
	off := s.offline()
	if off {
		s.fail(fmt.Errorf("model request: %w", errRequestTooLarge))
	} else {
		s.stopRecording("model request", errRequestTooLarge)
		s.afterStop++
	}
	s.mu.Unlock()
	if off {
		s.refuse(a, w)
		return
	}
	body, n := requestBody(r, read, false)
	s.passOn(a, w, r, body, n)
}

// stopRecording ends the recording at a request or answer the cassette
// cannot hold (over MaxBody or MaxEvent). The client still gets every
// byte, of this answer and of the later ones, which are passed on
// unrecorded; the cassette keeps the steps before it and ends with
// {"event":"run_failed","reason":"not_recorded"}, and record exits 1.
// Called with s.mu held.
func (s *Session) stopRecording(what string, err error) {
	if s.stopped != "" {
		return
	}
	s.stopped, s.stopAt = what+": "+err.Error(), len(s.steps)
	fmt.Fprintf(s.opt.Stderr, "cc-cassette: %s, passed on whole; the recording stops there (later model calls are passed on unrecorded)\n", s.stopped)
}

// stopLocked is stopRecording taking s.mu itself.
func (s *Session) stopLocked(what string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopRecording(what, err)
}

// passOn forwards a request and copies the answer back, recording nothing.
func (s *Session) passOn(a *api, w http.ResponseWriter, r *http.Request, body io.Reader, n int64) {
	resp, err := s.forward(a, r, body, n, false)
	if err != nil {
		writeError(w, a, http.StatusBadGateway, "api_error", "[cc-cassette] upstream: "+err.Error())
		return
	}
	defer resp.Body.Close()
	_, err = copyResponse(w, resp, nil)
	passCut(err)
}

// admit takes s.mu for a model call (mainCall, sideCall): false, s.mu
// released and the request answered, when the session failed (refused)
// or the recording stopped (passed on, passStopped).
func (s *Session) admit(a *api, w http.ResponseWriter, r *http.Request, body []byte) bool {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		s.refuse(a, w)
		return false
	}
	return !s.passStopped(a, w, r, body)
}

// passStopped passes a model request on unrecorded once the recording
// stopped (live modes only). Called with s.mu held; unlocks it when it
// takes the request.
func (s *Session) passStopped(a *api, w http.ResponseWriter, r *http.Request, body []byte) bool {
	if s.stopped == "" || s.offline() {
		return false
	}
	s.afterStop++
	s.mu.Unlock()
	b, n := requestBody(r, body, true)
	s.passOn(a, w, r, b, n)
	return true
}

func (s *Session) noteKeys(h http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range []string{"x-api-key", "api-key", "authorization"} {
		for _, v := range h.Values(name) {
			v = strings.TrimSpace(v)
			if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
				v = strings.TrimSpace(v[7:])
			}
			if len(v) >= 4 {
				s.keys[v] = true
			}
		}
	}
}

// offline reports whether requests may not leave the machine now.
func (s *Session) offline() bool {
	switch s.opt.Mode {
	case Replay:
		return true
	case Fork:
		return !s.forked || s.opt.Script != nil
	}
	return false
}

// other passes a request to another path on, body and answer as they
// come (live), or answers 404 (offline).
func (s *Session) other(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	off := s.offline()
	s.passed++
	s.mu.Unlock()
	if off {
		writeError(w, anthropicAPI, http.StatusNotFound, "not_found_error", "[cc-cassette] "+r.URL.Path+" is not served in replay")
		return
	}
	s.passOn(anthropicAPI, w, r, r.Body, r.ContentLength)
}

// model handles a model request: POST /v1/messages or /v1/chat/completions.
func (s *Session) model(a *api, w http.ResponseWriter, r *http.Request, body []byte) {
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, a, http.StatusBadRequest, "invalid_request_error", "[cc-cassette] the request body is not a JSON object")
		return
	}
	stream, _ := req["stream"].(bool)
	if s.isMain(a, req) {
		s.mainMu.Lock()
		defer s.mainMu.Unlock()
		s.mainCall(a, w, r, req, body, stream)
		return
	}
	s.sideCall(a, w, r, req, body, stream)
}

// isMain tells the main loop from side calls: a main-loop request offers
// tools and starts with the same first message as the first request that
// offered tools. Titles, summaries and classifiers offer no tools;
// subagents start with their own prompt.
func (s *Session) isMain(a *api, req map[string]any) bool {
	tools, _ := req["tools"].([]any)
	if len(tools) == 0 {
		return false
	}
	msgs, _ := req["messages"].([]any)
	key := ""
	if len(msgs) > 0 {
		b, _ := ndjson.Marshal(Normalize(msgs[0]))
		key = hashHex(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.main[a.name]; !ok {
		s.main[a.name] = key
	}
	return s.main[a.name] == key
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (s *Session) mainCall(a *api, w http.ResponseWriter, r *http.Request, req map[string]any, body []byte, stream bool) {
	if !s.admit(a, w, r, body) {
		return
	}
	switch {
	case s.opt.Mode == Replay, s.opt.Mode == Fork && !s.forked && !s.atForkPoint():
		if fault := s.nextFault(); fault != nil {
			step := s.cursor
			s.mu.Unlock()
			replayFault(a, w, fault, stream, str(req["model"]), step)
			return
		}
		out, step, ts, err := s.replayMain(a, req)
		s.mu.Unlock()
		if err != nil {
			s.refuse(a, w)
			return
		}
		respond(a, w, a.answer(out, str(req["model"]), step, ts), stream)
		return
	case s.opt.Mode == Fork && !s.forked:
		if err := s.startFork(a, req); err != nil {
			s.fail(err)
			s.mu.Unlock()
			s.refuse(a, w)
			return
		}
	}
	if s.opt.Mode == Fork {
		body = s.substitute(a, req)
	}
	in, inErr := a.input(req, s.ids)
	scripted := s.opt.Mode == Fork && s.opt.Script != nil
	s.mu.Unlock()
	t0 := time.Now().UnixMilli()
	if scripted {
		s.mu.Lock()
		out, err := s.nextScripted()
		if err == nil && inErr == nil {
			s.appendMain(in, out, t0)
		}
		n := len(s.steps) - 1
		if err != nil {
			s.fail(err)
		}
		s.mu.Unlock()
		if err != nil {
			s.refuse(a, w)
			return
		}
		respond(a, w, a.answer(out, str(req["model"]), n, nowMS()), stream)
		return
	}
	if out := s.forwardOutput(a, w, r, body, stream, inErr, "model"); out != nil {
		s.appendMain(in, out, t0)
		s.unrecovered = "" // the client retried and went on
		s.mu.Unlock()
	}
}

// forwardOutput forwards a model call live and normalizes the answer. On
// success it returns the model_output with s.mu held, for the caller to
// append and unlock; nil when there is nothing to record (a non-2xx
// answer, or a failure, which is recorded in the session).
func (s *Session) forwardOutput(a *api, w http.ResponseWriter, r *http.Request, body []byte, stream bool, inErr error, what string) map[string]any {
	msg, ok := s.forwardModel(a, w, r, body, stream, what)
	if !ok {
		return nil
	}
	s.mu.Lock()
	if inErr != nil {
		s.fail(fmt.Errorf("%s request: %w", what, inErr))
		s.mu.Unlock()
		return nil
	}
	out, err := a.output(msg, s.ids)
	if err != nil {
		s.fail(fmt.Errorf("%s response: %w", what, err))
		s.mu.Unlock()
		return nil
	}
	return out
}

// appendMain writes the tool pairs the request answers, then the
// model_input and model_output. Called with s.mu held.
func (s *Session) appendMain(in, out map[string]any, t0 int64) {
	s.appendResults(in, t0)
	s.steps = append(s.steps, Step{"model_input", t0, in}, Step{"model_output", time.Now().UnixMilli(), out})
	s.open = OutputCalls(out)
}

// appendResults writes a tool_call/tool_result pair for each open call
// the request's last user turn answers, in the model's call order.
func (s *Session) appendResults(in map[string]any, t0 int64) {
	results := map[string]map[string]any{}
	msgs, _ := in["messages"].([]any)
	if len(msgs) > 0 {
		last, _ := msgs[len(msgs)-1].(map[string]any)
		parts, _ := last["content"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if pm != nil && pm["type"] == "tool_result" {
				results[str(pm["toolCallId"])] = pm
			}
		}
	}
	for _, c := range s.open {
		res, ok := results[c.ID]
		if !ok {
			continue
		}
		tr := map[string]any{"toolCallId": c.ID, "toolName": c.Name}
		if e, ok := res["error"]; ok {
			tr["error"] = e
		} else {
			tr["result"] = res["result"]
		}
		s.steps = append(s.steps,
			Step{"tool_call", t0, map[string]any{"toolCallId": c.ID, "toolName": c.Name, "toolInput": c.Input}},
			Step{"tool_result", t0, tr})
	}
	s.open = nil
}

// forwardModel sends a model request upstream and copies the answer to
// the client as it comes, and returns the final message of a 2xx answer.
//
// An upstream failure (unreachable, an error status, a cut stream, an
// error event inside a 200 stream) is passed on to the client as it came
// (a cut as a cut), recorded as a metadata step {event:"upstream_error"},
// and remembered until a later main-loop call succeeds: a run that ends
// on one did not recover, and record says so and exits 1.
func (s *Session) forwardModel(a *api, w http.ResponseWriter, r *http.Request, body []byte, stream bool, what string) (map[string]any, bool) {
	main := what == "model"
	resp, err := s.forward(a, r, bytes.NewReader(body), int64(len(body)), true)
	if err != nil {
		s.upstreamFailed(a, main, 0, "unreachable", "unreachable: "+err.Error(), nil)
		writeError(w, a, http.StatusBadGateway, "api_error", "[cc-cassette] upstream: "+err.Error())
		return nil, false
	}
	defer resp.Body.Close()
	ok2xx := resp.StatusCode >= 200 && resp.StatusCode < 300
	if !ok2xx {
		// Only the message of the body is used: the client gets the body
		// whole, the proxy keeps its first MiB.
		buf := &boundedBuffer{max: maxErrorBody, over: errAnswerTooLarge}
		big, err := copyResponse(w, resp, buf)
		what := fmt.Sprintf("HTTP %d", resp.StatusCode)
		if big != nil {
			what += fmt.Sprintf(" (a body over %d MiB, not read for its message)", maxErrorBody>>20)
		}
		// An error status is the API's ordinary answer the client retries:
		// not a step (as before), but the run's failure until a retry works.
		s.upstreamFailed(a, main, resp.StatusCode, "status", errorOf(buf.b, what), nil)
		passCut(err)
		return nil, false
	}
	if stream || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		as := a.assemble()
		p := &sseParser{onData: as.event}
		// Whether the message had started decides what the client does
		// next (Claude Code falls back to a non-streaming request after a
		// started stream broke): replay gives back the same start.
		started := func() map[string]any {
			st, ok := as.(*anthropicStream)
			if !ok || len(st.seen) == 0 {
				return nil
			}
			seen := make([]any, len(st.seen))
			for i, t := range st.seen {
				seen[i] = t
			}
			return map[string]any{"eventsBefore": seen}
		}
		big, err := copyResponse(w, resp, p)
		if big != nil {
			// Not the upstream's failure but the cassette's: the client
			// got the stream as it came, the recording stops there.
			s.stopLocked(what+" response", big)
			passCut(err)
			return nil, false
		}
		if err != nil {
			s.upstreamFailed(a, main, resp.StatusCode, "cut", err.Error(), started())
			passCut(err)
			return nil, false
		}
		if err := p.close(); err != nil {
			var ev *errorEvent
			if errors.As(err, &ev) {
				// Passed on as it came: the client's retry logic reads it.
				s.upstreamFailed(a, main, resp.StatusCode, "error_event", ev.Error(), with(started(), map[string]any{"errorType": ev.typ, "errorMessage": s.maskLocked(ev.msg)}))
				return nil, false
			}
			s.mu.Lock()
			s.fail(fmt.Errorf("model response: %w", err))
			s.mu.Unlock()
			return nil, false
		}
		msg, err := as.message()
		if err != nil {
			s.upstreamFailed(a, main, resp.StatusCode, "cut", err.Error(), started()) // the client saw the same broken stream
			return nil, false
		}
		return msg, true
	}
	buf := &boundedBuffer{max: MaxBody, over: errAnswerTooLarge}
	big, err := copyResponse(w, resp, buf)
	if big != nil {
		s.stopLocked(what+" response", big)
		passCut(err)
		return nil, false
	}
	if err != nil {
		s.upstreamFailed(a, main, resp.StatusCode, "cut", err.Error(), nil)
		passCut(err)
		return nil, false
	}
	var msg map[string]any
	if err := json.Unmarshal(buf.b, &msg); err != nil {
		s.upstreamFailed(a, main, resp.StatusCode, "cut", "the answer is not JSON", nil)
		return nil, false
	}
	return msg, true
}

// upstreamFailed records a failed model call as a metadata step (not for
// an error status: a step-less answer the client retries) and, for the
// main loop, as the run's unrecovered failure until a main-loop call
// succeeds.
func (s *Session) upstreamFailed(a *api, main bool, status int, kind, what string, extra map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	what = s.mask(what)
	if status != 0 && (status < 200 || status > 299) {
		if main {
			s.unrecovered = what
		}
		s.upstreamErrs++
		return
	}
	p := map[string]any{"event": "upstream_error", "api": a.name, "call": "side", "kind": kind, "error": what}
	for k, v := range extra {
		p[k] = v
	}
	if main {
		p["call"] = "main"
		s.unrecovered = what
	}
	if status != 0 {
		p["status"] = status
	}
	s.steps = append(s.steps, Step{"metadata", time.Now().UnixMilli(), p})
	s.upstreamErrs++
}

// with is m with more's keys added (m may be nil).
func with(m, more map[string]any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	for k, v := range more {
		m[k] = v
	}
	return m
}

// errorOf is the message of an API error body ({"error":{"type","message"}}),
// or def.
func errorOf(body []byte, def string) string {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error.Type == "" && e.Error.Message == "" {
		return def
	}
	return strings.TrimSpace(def + " " + e.Error.Type + ": " + firstLine(e.Error.Message))
}

// replayMain answers a main-loop request from the cassette. Called with
// s.mu held.
func (s *Session) replayMain(a *api, req map[string]any) (map[string]any, int, int64, error) {
	p := s.opt.Parent
	s.skipRound()
	if s.cursor >= len(p) || p[s.cursor].Type != "model_input" {
		err := &DivergenceError{Step: min(s.cursor, len(p)), Diff: Difference{Path: "model call",
			Recorded: fmt.Sprintf("no further model call (the cassette records %d)", s.countInputs()),
			Actual:   "the agent made another model call"}}
		s.fail(err)
		return nil, 0, 0, err
	}
	in, err := a.input(req, s.ids)
	if err != nil {
		s.fail(fmt.Errorf("model request: %w", err))
		return nil, 0, 0, err
	}
	if s.opt.Match == "strict" {
		if d := FirstDifference(s.comparable(p[s.cursor].Payload), s.comparable(in)); d != nil {
			err := &DivergenceError{Step: s.cursor, Diff: *d, Hint: "(if the difference does not matter, add --ignore PATH or use --match sequence)"}
			s.fail(err)
			return nil, 0, 0, err
		}
	}
	if s.cursor+1 >= len(p) || p[s.cursor+1].Type != "model_output" {
		err := fmt.Errorf("the cassette has no model_output after step %d", s.cursor)
		s.fail(err)
		return nil, 0, 0, err
	}
	out, _ := p[s.cursor+1].Payload.(map[string]any)
	ts := p[s.cursor+1].Timestamp
	for _, c := range OutputCalls(out) {
		s.ids.Register(c.ID)
	}
	step := s.cursor + 1
	s.cursor += 2
	s.replayed += 2
	return out, step, ts, nil
}

// nextFault consumes a recorded main-loop upstream failure at the cursor,
// if one is next. Called with s.mu held.
func (s *Session) nextFault() map[string]any {
	s.skipRound()
	p := s.opt.Parent
	if s.cursor < len(p) && p[s.cursor].Type == "metadata" && isUpstreamError(p[s.cursor].Payload, "main") {
		m, _ := p[s.cursor].Payload.(map[string]any)
		s.cursor++
		s.replayed++
		return m
	}
	return nil
}

// skipRound moves the cursor past recorded tool pairs and side calls: in
// a Claude Code run the tools run in the client, and their results are
// checked as part of the next model_input.
func (s *Session) skipRound() {
	p := s.opt.Parent
	for s.cursor < len(p) {
		switch st := p[s.cursor]; {
		case st.Type == "tool_call" || st.Type == "tool_result":
		case st.Type == "metadata" && (isSide(st.Payload) || isUpstreamError(st.Payload, "side")):
		default:
			return
		}
		s.cursor++
		s.replayed++
	}
}

// isUpstreamError is a recorded upstream failure of a main-loop or side
// call: replay gives the main loop's back to the client as it came (the
// client's retry, which may differ from the request, is the next model
// call) and skips a side call's.
func isUpstreamError(payload any, call string) bool {
	m, _ := payload.(map[string]any)
	return m != nil && m["event"] == "upstream_error" && m["call"] == call
}

// replayFault reproduces a recorded main-loop upstream failure: the error
// event inside a 200 stream, the cut, the 502.
func replayFault(a *api, w http.ResponseWriter, fault map[string]any, stream bool, model string, step int) {
	begin := func() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		seen, _ := fault["eventsBefore"].([]any)
		for _, t := range seen {
			if a != anthropicAPI {
				break
			}
			switch t {
			case "message_start":
				start := a.answer(map[string]any{"type": "final_answer", "text": ""}, model, step, 0)
				start["content"], start["stop_reason"] = []any{}, nil
				_ = writeEvent(w, "message_start", map[string]any{"type": "message_start", "message": start})
			case "content_block_start":
				_ = writeEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			case "content_block_delta":
				_ = writeEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": ""}})
			}
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	switch {
	case fault["kind"] == "unreachable":
		writeError(w, a, http.StatusBadGateway, "api_error", "[cc-cassette] upstream: "+str(fault["error"]))
	case fault["kind"] == "error_event" && stream:
		begin()
		_ = writeEvent(w, "error", map[string]any{"type": "error", "error": map[string]any{"type": fault["errorType"], "message": fault["errorMessage"]}})
	case fault["kind"] == "error_event":
		writeError(w, a, http.StatusInternalServerError, str(fault["errorType"]), str(fault["errorMessage"]))
	default: // a cut
		if stream {
			begin()
		} else {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"id":`))
		}
		panic(http.ErrAbortHandler)
	}
}

func isSide(payload any) bool {
	m, _ := payload.(map[string]any)
	return m != nil && m["event"] == "side_call"
}

func (s *Session) countInputs() int {
	n := 0
	for _, st := range s.opt.Parent {
		if st.Type == "model_input" {
			n++
		}
	}
	return n
}

// comparable is a model_input as replay compares it: volatile text
// normalized, --ignore paths deleted.
func (s *Session) comparable(v any) any {
	v = Normalize(v)
	for _, f := range s.ignore {
		_ = f.Run(v, func(r any) error { v = r; return nil })
	}
	return v
}

// refuse answers a failed session's request: a 400 Claude Code does not
// retry (x-should-retry: false), with the [cc-cassette] message.
func (s *Session) refuse(a *api, w http.ResponseWriter) {
	s.mu.Lock()
	msg := "[cc-cassette] the session failed"
	if s.diverg != nil {
		msg = "[cc-cassette] " + s.diverg.Short()
	} else if s.err != nil {
		msg = "[cc-cassette] " + firstLine(s.err.Error())
	}
	msg = s.mask(msg)
	s.refused++
	s.mu.Unlock()
	writeError(w, a, http.StatusBadRequest, "invalid_request_error", msg)
}

func writeError(w http.ResponseWriter, a *api, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-should-retry", "false")
	w.WriteHeader(status)
	b, _ := ndjson.Marshal(a.errBody(typ, msg))
	_, _ = w.Write(b)
}

// respond writes a synthesized message as JSON or as an SSE stream.
func respond(a *api, w http.ResponseWriter, msg map[string]any, stream bool) {
	if !stream {
		b, _ := ndjson.Marshal(msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = a.stream(w, func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}, msg)
}
