package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request kinds in the log.
const (
	KindScript      = "script"       // answered by a script turn
	KindSide        = "side"         // no tools: title, summary, classifier
	KindFallback    = "fallback"     // tools, but no unused turn matched
	KindCountTokens = "count_tokens" // POST /v1/messages/count_tokens
	KindOther       = "other"        // any other path, answered {}
)

// Request is one HTTP request the fake received, in arrival order.
type Request struct {
	Seq      int             `json:"seq"`
	Time     time.Time       `json:"time"`
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Query    string          `json:"query,omitempty"`
	Kind     string          `json:"kind"`
	Turn     int             `json:"turn"` // script turn index, -1 if none
	TurnName string          `json:"turn_name,omitempty"`
	Status   int             `json:"status"`
	Body     json.RawMessage `json:"body,omitempty"`
}

// Server is a fake Anthropic Messages API driven by a Script.
type Server struct {
	mu     sync.Mutex
	script Script
	used   []bool // the turn answered at least once
	hits   []int  // requests answered per turn
	reqs   []Request
	log    io.Writer
	side   int
	fall   int
	notify chan struct{} // closed and replaced on every request

	ln  net.Listener
	srv *http.Server
}

// New makes a server for the script without listening (use it as an
// http.Handler, or call Listen).
func New(s *Script) (*Server, error) {
	if s == nil {
		s = &Script{}
	}
	sc := *s
	sc.Turns = append([]Turn(nil), s.Turns...)
	if err := sc.compile(); err != nil {
		return nil, err
	}
	if sc.Model == "" {
		sc.Model = "claude-opus-5-5"
	}
	if sc.Title == "" {
		sc.Title = "Fake session"
	}
	if sc.Fallback == "" {
		sc.Fallback = "Done."
	}
	return &Server{script: sc, used: make([]bool, len(sc.Turns)), hits: make([]int, len(sc.Turns)), notify: make(chan struct{})}, nil
}

// Start makes a server and listens on addr ("" = 127.0.0.1:0, a free port).
func Start(s *Script, addr string) (*Server, error) {
	srv, err := New(s)
	if err != nil {
		return nil, err
	}
	if err := srv.Listen(addr); err != nil {
		return nil, err
	}
	return srv, nil
}

// Listen serves on addr ("" = 127.0.0.1:0) in the background.
func (s *Server) Listen(addr string) error {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("fakeapi: listen: %w", err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return nil
}

// URL is the base URL to put in ANTHROPIC_BASE_URL.
func (s *Server) URL() string {
	if s.ln == nil {
		return ""
	}
	return "http://" + s.ln.Addr().String()
}

// Close stops listening and drops open connections.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// SetLog makes the server append every request as one JSON line to w.
func (s *Server) SetLog(w io.Writer) {
	s.mu.Lock()
	s.log = w
	s.mu.Unlock()
}

// AddTurns appends turns to the script while the server runs (for
// interactive tests that script the next prompt after seeing the screen).
func (s *Server) AddTurns(turns ...Turn) error {
	for i := range turns {
		if err := turns[i].compile(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.Turns = append(s.script.Turns, turns...)
	s.used = append(s.used, make([]bool, len(turns))...)
	s.hits = append(s.hits, make([]int, len(turns))...)
	return nil
}

// Requests returns a copy of the request log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Unused returns the indexes of the script turns no request has taken yet
// (a turn with Times > 1 counts as used after its first answer).
func (s *Server) Unused() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for i, u := range s.used {
		if !u {
			out = append(out, i)
		}
	}
	return out
}

// WaitRequest blocks until a request satisfying pred has been recorded
// (including ones already recorded) or ctx ends.
func (s *Server) WaitRequest(ctx context.Context, pred func(Request) bool) (Request, error) {
	seen := 0
	for {
		s.mu.Lock()
		reqs, ch := s.reqs[seen:], s.notify
		seen = len(s.reqs)
		for _, r := range reqs {
			if pred(r) {
				s.mu.Unlock()
				return r, nil
			}
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Request{}, fmt.Errorf("fakeapi: wait for request: %w", ctx.Err())
		}
	}
}

// ServeHTTP answers the Messages API endpoints; anything else gets 200 {}.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	rec := Request{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Turn: -1, Status: 200}
	if json.Valid(body) {
		rec.Body = body
	} else if len(body) > 0 {
		rec.Body, _ = json.Marshal(string(body))
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, rec)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		rec.Kind = KindCountTokens
		s.record(rec)
		writeJSON(w, 200, map[string]int{"input_tokens": max(1, len(body)/4)})
	default:
		rec.Kind = KindOther
		s.record(rec)
		writeJSON(w, 200, map[string]any{})
	}
}

func (s *Server) messages(w http.ResponseWriter, rec Request) {
	var req apiRequest
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		rec.Kind, rec.Status = KindOther, 400
		s.record(rec)
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "fakeapi: body is not a JSON object: " + err.Error()}})
		return
	}
	turn, msgID := s.pick(&rec, &req)
	w.Header().Set("request-id", "req_"+strings.TrimPrefix(msgID, "msg_"))
	if turn.Status != 0 && turn.Status != 200 {
		status, b := turn.errorBody()
		rec.Status = status
		s.record(rec)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
		return
	}
	s.record(rec)
	u := Usage{InputTokens: 100, OutputTokens: 20}
	if turn.Usage != nil {
		u = *turn.Usage
	}
	model := s.script.Model
	if turn.Model != "" {
		model = turn.Model
	}
	m := NewMessage(msgID, model, turn.Blocks, turn.stopReason(), u)
	if !req.Stream {
		if turn.CutAfter > 0 {
			b, _ := json.Marshal(m)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, _ = w.Write(b[:len(b)/2])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			panic(http.ErrAbortHandler) // half the body, then a reset
		}
		writeJSON(w, 200, m)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	events := Events(m)
	switch {
	case turn.CutAfter > 0:
		_ = writeStream(w, flush, events[:min(turn.CutAfter, len(events))], time.Duration(turn.DelayMS)*time.Millisecond)
		panic(http.ErrAbortHandler) // the connection is reset, the chunked body never ends
	case turn.ErrorAfter > 0:
		typ := turn.ErrorType
		if typ == "" {
			typ = "overloaded_error"
		}
		msg := turn.ErrorMessage
		if msg == "" {
			msg = "Overloaded"
		}
		events = append(events[:min(turn.ErrorAfter, len(events)):min(turn.ErrorAfter, len(events))],
			Event{Name: "error", Data: map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}})
	}
	_ = writeStream(w, flush, events, time.Duration(turn.DelayMS)*time.Millisecond)
}

// pick chooses the answer for a messages request and labels rec. The
// returned turn has ids and signatures filled in.
func (s *Server) pick(rec *Request, req *apiRequest) (Turn, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(req.Tools) == 0 {
		s.side++
		rec.Kind = KindSide
		text := "OK."
		if req.wantsTitle() {
			b, _ := json.Marshal(map[string]string{"title": s.script.Title})
			text = string(b)
		}
		return Turn{Blocks: []Block{Text(text)}, Usage: &Usage{InputTokens: 50, OutputTokens: 5}}, fmt.Sprintf("msg_fake_side%03d", s.side)
	}
	last := req.lastUserText()
	for i := range s.script.Turns {
		if s.exhausted(i) || !s.script.Turns[i].matches(last) {
			continue
		}
		s.used[i] = true
		s.hits[i]++
		rec.Kind, rec.Turn, rec.TurnName = KindScript, i, s.script.Turns[i].Name
		t := s.script.Turns[i]
		t.Blocks = append([]Block(nil), t.Blocks...)
		for j := range t.Blocks {
			b := &t.Blocks[j]
			if b.Type == "tool_use" && b.ID == "" {
				b.ID = fmt.Sprintf("toolu_fake_t%03d_b%d", i, j)
			}
			if b.Type == "thinking" && b.Signature == "" {
				b.Signature = fmt.Sprintf("fakesig_t%03d_b%d", i, j)
			}
		}
		return t, fmt.Sprintf("msg_fake_t%03d", i)
	}
	s.fall++
	rec.Kind = KindFallback
	text := s.script.Fallback
	if strings.Contains(last, "CRITICAL: Respond with TEXT ONLY") {
		text = "<analysis>fake analysis</analysis>\n<summary>Fake summary of the conversation.</summary>"
	}
	return Turn{Blocks: []Block{Text(text)}}, fmt.Sprintf("msg_fake_fall%03d", s.fall)
}

// exhausted reports whether turn i has answered all the requests it may.
func (s *Server) exhausted(i int) bool {
	switch n := s.script.Turns[i].Times; {
	case n == -1:
		return false
	case n == 0:
		return s.hits[i] >= 1
	default:
		return s.hits[i] >= n
	}
}

func (s *Server) record(rec Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, rec)
	close(s.notify)
	s.notify = make(chan struct{})
	if s.log != nil {
		if b, err := json.Marshal(rec); err == nil {
			_, _ = s.log.Write(append(b, '\n'))
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// apiRequest is the part of a Messages API request the fake looks at.
type apiRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	System       json.RawMessage   `json:"system"`
	Messages     []apiMessage      `json:"messages"`
	Tools        []json.RawMessage `json:"tools"`
	OutputConfig json.RawMessage   `json:"output_config"`
}

type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// wantsTitle reports a session-title side call: its system prompt starts
// "You are naming a coding session" and it asks for JSON {"title": ...}.
func (r *apiRequest) wantsTitle() bool {
	return strings.Contains(contentText(r.System), "naming a coding session") ||
		strings.Contains(string(r.OutputConfig), `"title"`)
}

func (r *apiRequest) lastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return contentText(r.Messages[i].Content)
		}
	}
	return ""
}

// contentText joins the text of a content value: a string, or blocks
// whose text, thinking and tool_result contents are taken.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = append(parts, contentText(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}

// Decoded is a Messages API request body, decoded for assertions.
type Decoded struct {
	Model    string
	Stream   bool
	System   string // system prompt text
	Tools    int    // number of tools offered
	Messages []DecodedMessage
}

// DecodedMessage is one message with its text (see LastUserText).
type DecodedMessage struct {
	Role string
	Text string
	Raw  json.RawMessage
}

// Decode parses a /v1/messages body.
func (r Request) Decode() (Decoded, error) {
	var req apiRequest
	if len(r.Body) == 0 {
		return Decoded{}, errors.New("fakeapi: empty body")
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return Decoded{}, fmt.Errorf("fakeapi: decode request %d: %w", r.Seq, err)
	}
	d := Decoded{Model: req.Model, Stream: req.Stream, System: contentText(req.System), Tools: len(req.Tools)}
	for _, m := range req.Messages {
		d.Messages = append(d.Messages, DecodedMessage{Role: m.Role, Text: contentText(m.Content), Raw: m.Content})
	}
	return d, nil
}

// LastUserText is the text the script's Match is tested against.
func (r Request) LastUserText() string {
	var req apiRequest
	if json.Unmarshal(r.Body, &req) != nil {
		return ""
	}
	return req.lastUserText()
}

// Contains reports whether any message of the request (decoded, so JSON
// escapes do not matter) contains s: a tool result, a hook's additional
// context, a message injected over the socket.
func (r Request) Contains(s string) bool {
	d, err := r.Decode()
	if err != nil {
		return false
	}
	for _, m := range d.Messages {
		if strings.Contains(m.Text, s) {
			return true
		}
	}
	return false
}
