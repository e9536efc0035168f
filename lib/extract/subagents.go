package extract

import (
	"path/filepath"
	"strings"

	"github.com/ccpipe/ccpipe/lib/layout"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Subagent is a subagents fact: one subagent run. Its head is the parent's
// Agent tool_use entry.
type Subagent struct {
	Base
	SubagentID  *string `json:"subagent_id"`
	AgentType   *string `json:"agent_type"`
	Description *string `json:"description"`
	Prompt      *string `json:"prompt"`
	// ToolUseID is the parent's Agent tool_use id (meta.json toolUseId).
	ToolUseID  string `json:"tool_use_id"`
	Background bool   `json:"background"`
	// Status is completed, failed, killed, ... as reported; async_launched
	// for a background run whose end the transcript does not show; null
	// when the call has no result.
	Status *string `json:"status"`
	// Result is the subagent's report.
	Result       *string     `json:"result"`
	TotalTokens  *int64      `json:"total_tokens"`
	ToolUseCount *int64      `json:"tool_use_count"`
	DurationMs   *int64      `json:"duration_ms"`
	Usage        *TokenUsage `json:"usage"`
	Model        *string     `json:"model"`
	// TranscriptPath is subagents/agent-<id>.jsonl, when it exists.
	TranscriptPath *string `json:"transcript_path"`
}

// TokenUsage is a token count with the API's own field names.
type TokenUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// agentInput is the input of the Agent (formerly Task) tool.
type agentInput struct {
	Description     string `json:"description"`
	Prompt          string `json:"prompt"`
	SubagentType    string `json:"subagent_type"`
	RunInBackground *bool  `json:"run_in_background"`
	Model           string `json:"model"`
}

// agentResult is the Agent tool's toolUseResult.
type agentResult struct {
	Status            string      `json:"status"`
	AgentID           string      `json:"agentId"`
	AgentType         string      `json:"agentType"`
	ResolvedModel     string      `json:"resolvedModel"`
	TotalTokens       *int64      `json:"totalTokens"`
	TotalToolUseCount *int64      `json:"totalToolUseCount"`
	TotalDurationMs   *int64      `json:"totalDurationMs"`
	Usage             *TokenUsage `json:"usage"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func (r *agentResult) text() string {
	var parts []string
	for _, b := range r.Content {
		if b.Type == transcript.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return trimToolsUsed(strings.Join(parts, "\n"))
}

// notification is a <task-notification> prompt: a background task ended.
type notification struct {
	taskID, toolUseID, status, summary, result string
	usage                                      string
	ok                                         bool
}

func parseNotification(text string) notification {
	body, ok := tag(text, "task-notification")
	if !ok {
		return notification{}
	}
	n := notification{ok: true}
	n.taskID, _ = tag(body, "task-id")
	n.toolUseID, _ = tag(body, "tool-use-id")
	n.status, _ = tag(body, "status")
	n.summary, _ = tag(body, "summary")
	n.result, _ = tag(body, "result")
	n.usage, _ = tag(body, "usage")
	n.result = strings.TrimSpace(n.result)
	return n
}

func (n *notification) apply(s *Subagent) {
	s.Status = str(n.status)
	if n.result != "" {
		s.Result = new(n.result)
	}
	if n.usage != "" {
		s.TotalTokens = usageField(n.usage, "subagent_tokens", "total_tokens")
		s.ToolUseCount = usageField(n.usage, "tool_uses")
		s.DurationMs = usageField(n.usage, "duration_ms")
	}
	if s.SubagentID == nil {
		s.SubagentID = str(n.taskID)
	}
}

// maxNotes bounds the notifications kept for runs not yet seen.
const maxNotes = 1000

type subagentRun struct {
	fact    Subagent
	waiting bool // a background run whose notification has not come
}

type subagents struct {
	x     *Extractor
	j     *joiner
	queue []*subagentRun
	notes map[string]notification // by tool_use_id and by task id
	// metas caches the subagent listing of the session being read.
	metaDir string
	metas   map[string]transcript.Subagent // by tool_use_id and agent id
}

func newSubagents(x *Extractor) *subagents {
	h := &subagents{x: x, notes: map[string]notification{}}
	h.j = newJoiner(&x.copies, h.call, nil)
	return h
}

func (h *subagents) entry(o *Origin, e *transcript.Entry) error {
	if err := h.j.entry(o, e); err != nil {
		return err
	}
	if e.Type != "user" {
		return nil
	}
	p, ok := promptOf(o, e)
	if !ok || p.Origin != "task-notification" {
		return nil
	}
	n := parseNotification(p.Text)
	if !n.ok {
		return nil
	}
	for _, r := range h.queue {
		if r.waiting && (r.fact.ToolUseID == n.toolUseID || (r.fact.SubagentID != nil && *r.fact.SubagentID == n.taskID)) {
			n.apply(&r.fact)
			r.waiting = false
			return h.drain(false)
		}
	}
	if len(h.notes) < maxNotes {
		h.notes[n.toolUseID] = n
		h.notes[n.taskID] = n
	}
	return nil
}

func (h *subagents) call(c *call) error {
	if c.name != "Agent" && c.name != "Task" {
		return nil
	}
	var in agentInput
	decodeObject(c.input, &in)
	s := Subagent{Base: c.base, AgentType: str(in.SubagentType), Description: str(in.Description),
		Prompt: str(in.Prompt), ToolUseID: c.id, Model: str(in.Model)}
	run := &subagentRun{}
	if c.res != nil {
		var r agentResult
		decodeObject(c.res.tur, &r)
		s.SubagentID, s.Status = str(r.AgentID), str(r.Status)
		if r.AgentType != "" {
			s.AgentType = &r.AgentType
		}
		if r.ResolvedModel != "" {
			s.Model = &r.ResolvedModel
		}
		s.TotalTokens, s.ToolUseCount, s.DurationMs, s.Usage = r.TotalTokens, r.TotalToolUseCount, r.TotalDurationMs, r.Usage
		switch {
		case r.Status == "async_launched":
			s.Background = true
			run.waiting = true
		case r.Status != "":
			s.Result = new(r.text())
		default:
			// Not an agent result: an error or a refusal.
			s.Result = new(c.res.txt())
			if c.res.isError {
				s.Status = new("failed")
			}
		}
	}
	h.addMeta(&c.origin, &s)
	if s.Background {
		for _, key := range []string{c.id, deref(s.SubagentID)} {
			if n, ok := h.notes[key]; ok && key != "" {
				n.apply(&s)
				run.waiting = false
				delete(h.notes, n.toolUseID)
				delete(h.notes, n.taskID)
				break
			}
		}
	}
	run.fact = s
	h.queue = append(h.queue, run)
	return h.drain(false)
}

// addMeta fills what the subagent's .meta.json and file tell, when the
// transcript's path is known.
func (h *subagents) addMeta(o *Origin, s *Subagent) {
	if o.Path == "" {
		return
	}
	dir := layout.OwnerDir(o.Path)
	if o.AgentID != "" && !layout.IsSubagentPath(o.Path) {
		dir = filepath.Dir(filepath.Dir(o.Path))
	}
	if dir != h.metaDir {
		h.list(dir, true)
	}
	sa, ok := h.metas[s.ToolUseID]
	if !ok && s.SubagentID != nil {
		sa, ok = h.metas[*s.SubagentID]
	}
	if !ok {
		return
	}
	s.SubagentID = &sa.AgentID
	s.TranscriptPath = &sa.Path
	if m := sa.Meta; m != nil {
		if s.AgentType == nil {
			s.AgentType = str(m.AgentType)
		}
		if s.Description == nil {
			s.Description = str(m.Description)
		}
		if s.Model == nil {
			s.Model = str(m.Model)
		}
		switch m.RequestShape {
		case "background":
			s.Background = true
		case "foreground":
			s.Background = false
		}
	}
}

// list reads the subagent listing of the session dir dir (a failure
// warned of when warn).
func (h *subagents) list(dir string, warn bool) {
	h.metaDir, h.metas = dir, map[string]transcript.Subagent{}
	if h.x.listed != nil {
		h.x.listed(layout.SubagentsDirOf(dir + ".jsonl"))
	}
	list, err := transcript.Subagents(dir + ".jsonl")
	if err != nil && warn {
		h.x.opts.Warn("listing subagents of " + dir + ": " + err.Error())
	}
	for _, sa := range list {
		h.metas[sa.AgentID] = sa
		if sa.Meta != nil && sa.Meta.ToolUseID != "" {
			h.metas[sa.Meta.ToolUseID] = sa
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// drain emits the runs at the head of the queue that are complete; with
// all, every run.
func (h *subagents) drain(all bool) error {
	n := 0
	for n < len(h.queue) && (all || !h.queue[n].waiting) {
		if err := h.x.emit(h.queue[n].fact); err != nil {
			return err
		}
		n++
	}
	h.queue = h.queue[n:]
	return nil
}

// endFile emits every run: a background run's notification comes in the
// same transcript as its launch, or not at all.
func (h *subagents) endFile() error {
	if err := h.j.flush(); err != nil {
		return err
	}
	clear(h.notes)
	return h.drain(true)
}

func (h *subagents) finish() error { return nil }
