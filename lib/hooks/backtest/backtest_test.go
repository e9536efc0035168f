package backtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/hooks/rules"
)

const corpus = "../../../testdata/corpus/claude/projects"

// TestCorpusReference: backtest's decisions on the corpus (written by the
// real Claude Code, subagents included) equal a reference computed here
// without lib/extract, lib/transcript or jq: every transcript line read
// with encoding/json, calls joined with results by id, and the rules of
// testdata/hooks/history.yaml written out as Go. A turn ends at an
// assistant message that did not stop for a tool call (SessionStart:
// startup at a main transcript's first record).
func TestCorpusReference(t *testing.T) {
	f, err := rules.LoadFile("../../../testdata/hooks/history.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var payloads []Record
	produce := func(add func(string) error) error {
		mains, _ := filepath.Glob(filepath.Join(corpus, "*", "*.jsonl"))
		for _, m := range mains {
			if err := add(m); err != nil {
				return err
			}
		}
		return nil
	}
	errs, err := Run(context.Background(), f, Options{All: true}, produce, func(r Record) error {
		payloads = append(payloads, r)
		if r.Rule != nil {
			got = append(got, key(r.Event, deref(r.ToolUseID), deref(r.AgentID), *r.Rule, *r.Decision))
		}
		return nil
	})
	if err != nil || errs != 0 {
		t.Fatalf("Run: %v, %d errors", err, errs)
	}
	want := reference(t)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("backtest:\n%s\nreference:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every kind of answer and a subagent's among them: the test can fail.
	joined := strings.Join(want, "\n")
	for _, s := range []string{"deny", "ask", "context", "block", "a7320cfe3f347049a", "Stop ", "SessionStart "} {
		if !strings.Contains(joined, s) {
			t.Errorf("the reference has no %s: the corpus changed?", s)
		}
	}
	// The payloads are what a hook gets: each names its session's main
	// transcript, and subagents' carry their agent_id.
	for _, r := range payloads {
		var p struct {
			TranscriptPath string `json:"transcript_path"`
			AgentID        string `json:"agent_id"`
			Cwd            string `json:"cwd"`
		}
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.TranscriptPath, "subagents") || p.AgentID != deref(r.AgentID) || p.Cwd == "" {
			t.Errorf("payload %s", r.Payload)
		}
	}
}

func key(event, id, agent, rule, decision string) string {
	return strings.Join([]string{event, id, agent, rule, decision}, " ")
}

type line struct {
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype"`
	Cwd           string          `json:"cwd"`
	AgentID       string          `json:"agentId"`
	IsMeta        bool            `json:"isMeta"`
	IsSidechain   bool            `json:"isSidechain"`
	IsCompact     bool            `json:"isCompactSummary"`
	TurnOrigin    string          `json:"turnOrigin"`
	ToolUseResult json.RawMessage `json:"toolUseResult"`
	DenialKind    string          `json:"toolDenialKind"`
	Decision      struct {
		Decision string `json:"decision"`
	} `json:"permissionDecision"`
	Message struct {
		ID         string          `json:"id"`
		Model      string          `json:"model"`
		StopReason string          `json:"stop_reason"`
		Content    json.RawMessage `json:"content"`
	} `json:"message"`
	Attachment struct {
		Type        string `json:"type"`
		Prompt      string `json:"prompt"`
		CommandMode string `json:"commandMode"`
	} `json:"attachment"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Text      string          `json:"text"`
}

type refCall struct {
	agent, name string
	input       map[string]any
	done        bool
	isError     bool
	denied      bool
	text        string
	stdout      *string
}

func reference(t *testing.T) []string {
	files, _ := filepath.Glob(filepath.Join(corpus, "*", "*.jsonl"))
	subs, _ := filepath.Glob(filepath.Join(corpus, "*", "*", "subagents", "*.jsonl"))
	files = append(files, subs...)
	calls := map[string]*refCall{}
	var out []string
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		main := !strings.Contains(path, "/subagents/")
		started := false
		var stopMsg, stopText string
		endTurn := func() {
			if stopMsg != "" && strings.Contains(stopText, "PERIWINKLE") {
				out = append(out, key("Stop", "", "", "stop-unless-done", "block"))
			}
			stopMsg, stopText = "", ""
		}
		for sc.Scan() {
			var l line
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			var blocks []block
			var prompt *string
			var s string
			if json.Unmarshal(l.Message.Content, &s) == nil {
				prompt = &s
			} else {
				_ = json.Unmarshal(l.Message.Content, &blocks)
			}
			if main && !started && (l.Type == "user" || l.Type == "assistant") {
				started = true
				if strings.HasSuffix(l.Cwd, "/gamma") {
					out = append(out, key("SessionStart", "", "", "startup-context", "context"))
				}
			}
			if main && l.Type == "assistant" && l.Message.ID != stopMsg {
				endTurn()
			}
			if main && l.Type == "user" && !isToolResultLine(blocks) {
				endTurn()
			}
			if main && l.Type == "assistant" && l.Message.StopReason != "tool_use" && l.Message.Model != "<synthetic>" {
				stopMsg = l.Message.ID
				for _, b := range blocks {
					stopText += b.Text
				}
			}
			switch {
			case l.Type == "assistant":
				for _, b := range blocks {
					if b.Type == "tool_use" {
						c := &refCall{agent: l.AgentID, name: b.Name}
						_ = json.Unmarshal(b.Input, &c.input)
						calls[b.ID] = c
					}
				}
			case l.Type == "user":
				texts := []string{}
				for _, b := range blocks {
					switch b.Type {
					case "text":
						texts = append(texts, b.Text)
					case "tool_result":
						c := calls[b.ToolUseID]
						if c == nil {
							t.Fatalf("result before its call: %s", b.ToolUseID)
						}
						c.done, c.isError = true, b.IsError
						c.denied = l.DenialKind != "" || l.Decision.Decision == "reject"
						var str string
						if json.Unmarshal(b.Content, &str) == nil {
							c.text = str
						} else {
							var parts []block
							_ = json.Unmarshal(b.Content, &parts)
							for _, p := range parts {
								c.text += p.Text
							}
						}
						var tur struct {
							Stdout *string `json:"stdout"`
						}
						if json.Unmarshal(l.ToolUseResult, &tur) == nil && tur.Stdout != nil {
							c.stdout = tur.Stdout
						}
						texts = nil
					}
				}
				if prompt == nil && len(texts) > 0 {
					s := strings.Join(texts, "\n")
					prompt = &s
				}
				if prompt != nil && !l.IsMeta && !l.IsSidechain && !l.IsCompact && l.AgentID == "" &&
					l.TurnOrigin != "task_notification" && l.TurnOrigin != "peer" &&
					!strings.HasPrefix(*prompt, "<command-") && !strings.HasPrefix(*prompt, "<local-command") &&
					!strings.HasPrefix(*prompt, "[Request interrupted") {
					out = append(out, promptRule(*prompt)...)
				}
			case l.Type == "attachment" && l.Attachment.Type == "queued_command" && l.Attachment.CommandMode == "prompt":
				out = append(out, promptRule(l.Attachment.Prompt)...)
			}
		}
		endTurn()
		fh.Close()
	}
	for id, c := range calls {
		if c.done && c.isError && strings.HasPrefix(c.text, "<tool_use_error>") {
			continue
		}
		str := func(k string) string { s, _ := c.input[k].(string); return s }
		switch {
		case c.name == "Bash" && regexp.MustCompile(`exit [1-9]|^false$`).MatchString(str("command")):
			out = append(out, key("PreToolUse", id, c.agent, "no-failing-exit", "deny"))
		case (c.name == "Write" || c.name == "Edit") && str("content")+str("new_string") != "":
			out = append(out, key("PreToolUse", id, c.agent, "review-writes", "ask"))
		}
		if !c.done || c.denied {
			continue
		}
		stdout := c.text // no toolUseResult (a subagent's): the output shown
		if c.stdout != nil {
			stdout = *c.stdout
		}
		switch {
		case !c.isError && c.name == "Bash" && c.agent != "" && strings.Contains(stdout, "sub-ok"):
			out = append(out, key("PostToolUse", id, c.agent, "subagent-shell", "context"))
		case c.isError && strings.HasPrefix(c.text, "Exit code"):
			out = append(out, key("PostToolUseFailure", id, c.agent, "failure-note", "context"))
		}
	}
	return out
}

func isToolResultLine(blocks []block) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

func promptRule(p string) []string {
	if regexp.MustCompile(`(?i)touch`).MatchString(p) {
		return []string{key("UserPromptSubmit", "", "", "no-touch-prompts", "block")}
	}
	return nil
}

// TestFeedEqualsRun: entries handed one by one (cc-entries lines, each
// session's main transcript then its subagents') give Run's records.
func TestFeedEqualsRun(t *testing.T) {
	f, err := rules.LoadFile("../../../testdata/hooks/history.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mains, _ := filepath.Glob(filepath.Join(corpus, "*", "*.jsonl"))
	line := func(r Record) string {
		b, _ := json.Marshal(r)
		return string(b)
	}
	var want, got []string
	if _, err := Run(context.Background(), f, Options{All: true}, func(add func(string) error) error {
		for _, m := range mains {
			if err := add(m); err != nil {
				return err
			}
		}
		return nil
	}, func(r Record) error { want = append(want, line(r)); return nil }); err != nil {
		t.Fatal(err)
	}
	fd, err := NewFeed(context.Background(), f, Options{All: true}, func(r Record) error { got = append(got, line(r)); return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mains {
		subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(m, ".jsonl"), "subagents", "*.jsonl"))
		for _, p := range append([]string{m}, subs...) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if err := fd.Line([]byte(l), Source{Path: p}); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
			}
		}
	}
	if _, err := fd.Close(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) < 40 {
		t.Errorf("feed (%d records):\n%s\nrun (%d):\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
}

// A Stop hook that sends Claude back: the turn's first Stop fired with
// stop_hook_active false, the next with true (as the contract test saw
// the real CLI send them).
func TestStopHookActive(t *testing.T) {
	f, err := rules.Load([]byte("rules:\n  - {events: Stop, if: 'false', additional_context: x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","uuid":"a1","sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"All done."}]}}`,
		`{"type":"user","uuid":"u2","sessionId":"s","cwd":"/w","isMeta":true,"timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"Stop hook feedback:\n[x]: again"}}`,
		`{"type":"assistant","uuid":"a2","sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:03Z","message":{"id":"m2","role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"Once more."}]}}`,
	}
	var got []string
	fd, err := NewFeed(context.Background(), f, Options{All: true}, func(r Record) error {
		var p struct {
			Active bool   `json:"stop_hook_active"`
			Last   string `json:"last_assistant_message"`
		}
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return err
		}
		got = append(got, fmt.Sprint(r.Event, " ", p.Active, " ", p.Last))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := fd.Line([]byte(l), Source{Path: "/p/s.jsonl"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fd.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"Stop false All done.", "Stop true Once more."}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
