package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// fakeHome is the config dir written into paths inside records, so the bytes
// do not depend on where the corpus is generated.
const fakeHome = "/home/dev/.claude"

type gen struct {
	opts               Options
	vocab              *vocab
	prose, code, shell *pool
	b64                string
	base               time.Time
	projects           []project

	// Per-corpus texts the CLI repeats in every run (system prompt, tool
	// definitions, listings), as the real records repeat them.
	systemPrompt, skillText, agentText, envText string
	toolsJSON, deferredTools, shapeHash         string
}

const betas = `["claude-code-20250219","interleaved-thinking-2025-05-14","context-management-2025-06-27","effort-2025-11-24"]`

// fixedTexts builds the texts every run repeats.
func (g *gen) fixedTexts() {
	cut := func(s string, n int) string {
		if n >= len(s) {
			return s
		}
		if i := strings.LastIndexByte(s[:n], '\n'); i > 0 {
			return s[:i]
		}
		return s[:n]
	}
	p := g.prose.text
	g.systemPrompt = cut(p, 30000)
	g.skillText = cut(p[40000:], 13000)
	g.agentText = cut(p[60000:], 3500)
	g.envText = cut(p[70000:], 900)
	tools := []string{"Agent", "Bash", "Edit", "Glob", "Grep", "Read", "Skill", "TaskCreate", "TaskUpdate", "ToolSearch", "Write"}
	o := &obj{}
	o.openArr()
	for i, t := range tools {
		o.elemObj().str("name", t).str("description", cut(g.code.text[i*900:], 800))
		o.obj("input_schema").str("type", "object").obj("properties").obj("input").str("type", "string").close().close().close().close()
	}
	o.closeArr()
	g.toolsJSON = string(o.b)
	g.deferredTools = `["CronCreate","CronDelete","CronList","EnterWorktree","ExitWorktree","Monitor","NotebookEdit","SendMessage","TaskStop","WebFetch","WebSearch"]`
	g.shapeHash = fmt.Sprintf("%x", sha256.Sum256([]byte(g.systemPrompt+g.toolsJSON)))
}

type result struct {
	id       string
	terms    []string
	days     map[string]*Tokens
	mainDays map[string]*Tokens
	bytes    int64
	files    int64
	info     SessionInfo
	history  []byte
}

func newResult(id string) *result {
	return &result{id: id, days: map[string]*Tokens{}, mainDays: map[string]*Tokens{}}
}

type pendingPlant struct {
	term string
	form string
	at   float64 // fraction of the session's bytes after which it fires
	kind string  // prompt, text, tool, subagent, tool_results
}

// sess writes one transcript file: a main session or a subagent.
type sess struct {
	g           *gen
	r           *rand.Rand
	res         *result
	id          string
	proj        project
	entrypoint  string
	interactive bool
	hooks       bool
	side        bool
	agentID     string
	agentType   string
	sessDir     string // projects/<slug>/<session id>
	runStart    bool
	snapshotDue bool
	model       string

	f       *os.File
	zw      *zstd.Encoder
	w       *bufio.Writer
	written *int64 // shared by a session and its subagents
	fileLen int64
	target  int64

	t          time.Time
	parent     string
	promptID   string
	lastReq    string
	keep       int
	blobs      []string // hashes of messages waiting for the next request
	plants     []*pendingPlant
	copying    bool
	copyBuf    []byte
	toolsUsed  []string
	cost       Tokens
	lastPrompt string
	promptIdx  int
	// The current titles, re-appended after last-prompt at the end of
	// each run as Claude Code 2.1.328 does (newest wins).
	customTitle, aiTitle string
	subagents            int
	o                    obj
	err                  error
}

func (s *sess) open(path string, compress bool) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.err = err
		return
	}
	f, err := os.Create(path)
	if err != nil {
		s.err = err
		return
	}
	s.f = f
	var dst io.Writer = f
	if compress {
		s.zw, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if err != nil {
			s.err = err
			return
		}
		dst = s.zw
	}
	s.w = bufio.NewWriterSize(dst, 1<<20)
	s.res.files++
}

func (s *sess) close() {
	if s.w != nil {
		if err := s.w.Flush(); err != nil && s.err == nil {
			s.err = err
		}
	}
	if s.zw != nil {
		if err := s.zw.Close(); err != nil && s.err == nil {
			s.err = err
		}
	}
	if s.f != nil {
		if err := s.f.Close(); err != nil && s.err == nil {
			s.err = err
		}
	}
}

// emit writes one record line; uuid-bearing main-file lines are kept for a fork.
func (s *sess) emit(b []byte, uuidBearing, assistant bool) {
	b = append(b, '\n')
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
	*s.written += int64(len(b))
	s.fileLen += int64(len(b))
	s.res.bytes += int64(len(b))
	if s.copying && uuidBearing {
		if assistant {
			// A forked copy of an assistant record gains requestSessionId.
			s.copyBuf = append(s.copyBuf, b[:len(b)-2]...)
			s.copyBuf = append(s.copyBuf, `,"requestSessionId":`...)
			s.copyBuf = appendString(s.copyBuf, s.id)
			s.copyBuf = append(s.copyBuf, '}', '\n')
		} else {
			s.copyBuf = append(s.copyBuf, b...)
		}
	}
}

func (s *sess) progress() float64 { return float64(*s.written) / float64(max(s.target, 1)) }

// due removes and returns the plants of kind that should fire now.
func (s *sess) due(kind string, force bool) []*pendingPlant {
	var out []*pendingPlant
	keep := s.plants[:0]
	p := s.progress()
	for _, pl := range s.plants {
		if pl.kind == kind && (force || pl.at <= p) {
			out = append(out, pl)
		} else {
			keep = append(keep, pl)
		}
	}
	s.plants = keep
	return out
}

func (s *sess) hasDue(kind string) bool {
	p := s.progress()
	for _, pl := range s.plants {
		if pl.kind == kind && pl.at <= p {
			return true
		}
	}
	return false
}

func (s *sess) tick(lo, hi time.Duration) {
	s.t = s.t.Add(lo + time.Duration(s.r.Int64N(int64(hi-lo)+1)))
}

func (s *sess) begin() *obj {
	s.o.b = s.o.b[:0]
	s.o.first = s.o.first[:0]
	return s.o.open()
}

// chain opens a conversation record: parentUuid, isSidechain and, in a
// subagent file, agentId, in the CLI's order.
func (s *sess) chain(withPrompt bool) *obj {
	o := s.begin()
	o.strOrNull("parentUuid", s.parent)
	o.bool("isSidechain", s.side)
	if withPrompt && s.promptID != "" {
		o.str("promptId", s.promptID)
	}
	if s.agentID != "" {
		o.str("agentId", s.agentID)
	}
	return o
}

// stamp writes uuid then timestamp (user, assistant and attachment records).
func (s *sess) stamp(o *obj) string {
	u := newUUID(s.r)
	o.str("uuid", u)
	o.time("timestamp", s.t)
	return u
}

// stampSys writes timestamp then uuid, the order of system records.
func (s *sess) stampSys(o *obj) string {
	o.time("timestamp", s.t)
	u := newUUID(s.r)
	o.str("uuid", u)
	return u
}

// done writes the envelope fields that close every conversation record and emits it.
func (s *sess) done(o *obj, u string, assistant bool) {
	o.str("userType", "external")
	o.str("entrypoint", s.entrypoint)
	o.str("cwd", s.proj.cwd)
	o.str("sessionId", s.id)
	o.str("version", Version)
	o.str("gitBranch", s.proj.branch)
	o.close()
	s.emit(o.b, true, assistant)
	s.parent = u
}

// metaFirst starts a metadata record whose sessionId (and agentId) follow
// the type: api-request*, cost-state.
func (s *sess) metaFirst(typ string) *obj {
	o := s.begin()
	o.str("type", typ)
	o.str("sessionId", s.id)
	if s.agentID != "" {
		o.str("agentId", s.agentID)
	}
	return o
}

// metaHead starts a metadata record whose sessionId comes last (metaEnd).
func (s *sess) metaHead(typ string) *obj {
	o := s.begin()
	o.str("type", typ)
	return o
}

func (s *sess) metaEnd(o *obj) {
	o.str("sessionId", s.id)
	s.metaDone(o)
}

func (s *sess) metaDone(o *obj) {
	o.close()
	s.emit(o.b, false, false)
}

func (s *sess) plantText(b []byte, pls []*pendingPlant) []byte {
	for _, pl := range pls {
		b = append(b, pick(s.r, []string{" see ", " about ", "\nnote: ", " (", " — "})...)
		b = append(b, pl.form...)
		b = append(b, pick(s.r, []string{" here", " please.", ")", "\n", " and more"})...)
		s.res.terms = append(s.res.terms, pl.term)
	}
	return b
}

func (s *sess) proseText(n int) string { return s.g.prose.take(s.r, n) }

func lognorm(r *rand.Rand, median, sigma float64, lo, hi int) int {
	v := int(median * math.Exp(sigma*r.NormFloat64()))
	return min(max(v, lo), hi)
}

var models = []string{"claude-opus-4-7", "claude-sonnet-4-6", "claude-opus-4-7", "claude-haiku-4-5-20251001"}

// run writes one CLI invocation: a few turns, then last-prompt and cost-state.
func (s *sess) run(first bool) {
	if s.interactive {
		o := s.metaHead("permission-mode")
		o.str("permissionMode", "default")
		s.metaEnd(o)
		if !first {
			o = s.metaHead("mode")
			o.str("mode", "normal")
			s.metaEnd(o)
		}
	}
	s.runStart = true
	s.snapshotDue = s.r.IntN(2) == 0
	turns := 1
	if s.interactive {
		turns = 1 + s.r.IntN(6)
	}
	for i := 0; i < turns && s.err == nil; i++ {
		s.turn()
		if s.interactive && i == 0 && (first || s.r.IntN(4) == 0) {
			for k := 0; k < 1+s.r.IntN(3); k++ {
				s.aiTitle = titleCase(s.proseText(30))
				o := s.metaHead("ai-title")
				o.str("aiTitle", s.aiTitle)
				s.metaEnd(o)
			}
		}
		if *s.written >= s.target && len(s.plants) == 0 {
			break
		}
	}
	if s.interactive && s.r.IntN(12) == 0 {
		s.rename()
	}
	o := s.metaHead("last-prompt")
	o.str("lastPrompt", s.lastPrompt)
	o.str("leafUuid", s.parent)
	s.metaEnd(o)
	for _, m := range [][3]string{{"custom-title", "customTitle", s.customTitle}, {"ai-title", "aiTitle", s.aiTitle}, {"agent-name", "agentName", s.customTitle}} {
		if m[2] != "" {
			o = s.metaHead(m[0])
			o.str(m[1], m[2])
			s.metaEnd(o)
		}
	}
	o = s.metaHead("tools-used")
	o.arr("tools")
	for _, t := range s.toolsUsed {
		o.elemStr(t)
	}
	o.closeArr()
	s.metaEnd(o)
	s.costState()
}

func titleCase(s string) string {
	s = strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
	if len(s) > 48 {
		s = s[:48]
		if i := strings.LastIndexByte(s, ' '); i > 0 {
			s = s[:i]
		}
	}
	if s == "" {
		return "Untitled"
	}
	return strings.ToUpper(s[:1]) + strings.TrimRight(s[1:], ".")
}

func (s *sess) rename() {
	title := titleCase(s.proseText(24))
	s.customTitle = title
	o := s.chain(false)
	o.str("type", "system").str("subtype", "local_command")
	o.str("content", "<command-name>/rename</command-name>\n<command-message>rename</command-message>\n<command-args>"+title+"</command-args>")
	o.str("level", "info")
	u := s.stampSys(o)
	o.bool("isMeta", false)
	s.done(o, u, false)
	for k := 0; k < 2+s.r.IntN(3); k++ {
		o := s.metaHead("custom-title")
		o.str("customTitle", title)
		s.metaEnd(o)
		o = s.metaHead("agent-name")
		o.str("agentName", title)
		s.metaEnd(o)
	}
	b, _ := jsonBytes(func(o *obj) { o.str("customTitle", title) })
	if err := os.MkdirAll(s.sessDir, 0o755); err == nil {
		if err := os.WriteFile(filepath.Join(s.sessDir, "custom-title.json"), b, 0o644); err != nil && s.err == nil {
			s.err = err
		}
		s.res.files++
	}
}

func jsonBytes(f func(o *obj)) ([]byte, error) {
	o := &obj{}
	o.open()
	f(o)
	o.close()
	return o.b, nil
}

func (s *sess) costState() {
	o := s.metaFirst("cost-state")
	in, out := s.cost.InputTokens, s.cost.OutputTokens
	usd := float64(in)*3e-6 + float64(out)*15e-6 + float64(s.cost.CacheReadInputTokens)*0.3e-6 + float64(s.cost.CacheCreationInputTokens)*3.75e-6
	o.raw("totalCostUSD", strconv.FormatFloat(usd, 'f', 6, 64))
	o.int("totalAPIDuration", s.r.Int64N(600000))
	o.int("totalAPIDurationWithoutRetries", s.r.Int64N(600000))
	o.int("totalToolDuration", s.r.Int64N(300000))
	o.int("totalLinesAdded", s.r.Int64N(400))
	o.int("totalLinesRemoved", s.r.Int64N(200))
	o.int("totalDuration", s.r.Int64N(3600000))
	o.int("startTime", s.t.UnixMilli()-s.r.Int64N(3600000))
	o.obj("modelUsage").obj(s.model)
	o.int("inputTokens", in).int("outputTokens", out).int("thinkingTokens", out/5)
	o.int("cacheReadInputTokens", s.cost.CacheReadInputTokens).int("cacheCreationInputTokens", s.cost.CacheCreationInputTokens)
	o.int("cacheCreationEphemeral5mInputTokens", s.cost.CacheCreationInputTokens).int("cacheCreationEphemeral1hInputTokens", 0)
	o.int("webSearchRequests", 0).raw("costUSD", strconv.FormatFloat(usd, 'f', 6, 64))
	o.close().close()
	o.bool("hasUnknownModelCost", false)
	s.metaDone(o)
}

// turn writes one prompt and the model's work on it.
func (s *sess) turn() {
	s.promptIdx++
	s.tick(20*time.Second, 15*time.Minute)
	pb := []byte(s.proseText(lognorm(s.r, 160, 1.0, 12, 4000)))
	if s.r.IntN(20) == 0 {
		pb = append(pb, ' ')
		pb = append(pb, pick(s.r, nonASCII)...)
	}
	pb = s.plantText(pb, s.due("prompt", false))
	prompt := string(pb)
	s.lastPrompt = prompt
	s.promptID = newUUID(s.r)

	for _, op := range []string{"enqueue", "dequeue"} {
		o := s.metaHead("queue-operation")
		o.str("operation", op)
		o.time("timestamp", s.t)
		o.str("sessionId", s.id)
		if op == "enqueue" {
			o.str("content", prompt)
		}
		s.metaDone(o)
	}
	if s.interactive {
		o := s.metaHead("file-history-snapshot")
		mid := newUUID(s.r)
		o.str("messageId", mid)
		o.obj("snapshot").str("messageId", mid).obj("trackedFileBackups")
		for k := 0; k < s.r.IntN(3); k++ {
			p := s.filePath()
			o.obj(p).str("backupFileName", randID(s.r, "", 16, hexChars)+"@v"+strconv.Itoa(1+k)).int("version", int64(1+k)).time("backupTime", s.t).str("realParentDir", filepath.Dir(p)).close()
		}
		o.close().time("timestamp", s.t).close()
		o.bool("isSnapshotUpdate", false)
		s.metaDone(o)
		s.res.history = s.historyLine(s.res.history, prompt)
	}
	o := s.chain(true)
	o.str("type", "user")
	o.obj("message").str("role", "user").str("content", prompt).close()
	u := s.stamp(o)
	o.str("permissionMode", "default")
	if s.interactive {
		o.obj("origin").str("kind", "human").close()
		o.str("promptSource", "typed").str("turnOrigin", "human")
	} else {
		o.str("promptSource", "sdk").str("turnOrigin", "sdk")
	}
	o.obj("turnPosition").int("promptIndex", int64(s.promptIdx-1)).int("turnIndex", 1).close()
	s.done(o, u, false)
	if s.runStart {
		s.runAttachments()
		s.runStart = false
	}
	s.blobs = append(s.blobs, randID(s.r, "", 64, hexChars))
	if s.hooks && s.r.IntN(3) == 0 {
		s.attachment("hook_additional_context", "UserPromptSubmit", "")
	}
	if s.r.IntN(5) == 0 {
		s.attachment("todo_reminder", "", "")
	}

	rounds := lognorm(s.r, 3, 0.8, 1, 40)
	for i := 0; i < rounds && s.err == nil; i++ {
		if !s.toolRound() {
			return // an API error ended the turn
		}
		if s.snapshotDue {
			s.snapshotDue = false
			s.fixedAttachment(func(o *obj) {
				o.str("type", "prompt_snapshot").arr("systemPrompt").elemStr(s.g.systemPrompt).closeArr()
			}, "")
		}
		if *s.written >= s.target && len(s.plants) == 0 {
			break
		}
	}
	for s.hasDue("subagent") || s.hasDue("tool_results") || s.hasDue("tool") || (s.progress() >= 1 && len(s.plants) > 0 && !s.onlyPromptText()) {
		s.toolRound()
	}
	s.finalText()
	if s.hooks {
		s.tick(50*time.Millisecond, 2*time.Second)
		o := s.chain(false)
		o.str("type", "system").str("subtype", "stop_hook_summary").int("hookCount", 1).arr("hookInfos").elemObj().str("command", "~/.claude/hooks/stop.sh").int("durationMs", 5+s.r.Int64N(300)).close().closeArr()
		o.arr("hookErrors").closeArr().bool("preventedContinuation", false).str("stopReason", "").bool("hasOutput", false).str("level", "suggestion")
		u := s.stampSys(o)
		s.done(o, u, false)
	}
	if s.interactive {
		o := s.chain(false)
		o.str("type", "system").str("subtype", "turn_duration").int("durationMs", 2000+s.r.Int64N(600000)).int("messageCount", int64(2+2*rounds))
		u := s.stampSys(o)
		o.bool("isMeta", false)
		s.done(o, u, false)
	}
}

func (s *sess) onlyPromptText() bool {
	for _, p := range s.plants {
		if p.kind != "prompt" && p.kind != "text" {
			return false
		}
	}
	return true
}

func (s *sess) historyLine(b []byte, prompt string) []byte {
	o := &obj{b: b}
	o.open()
	d := prompt
	if len(d) > 200 {
		d = strings.ToValidUTF8(d[:200], "")
	}
	o.str("display", d).obj("pastedContents").close().int("timestamp", s.t.UnixMilli()).str("project", s.proj.cwd).str("sessionId", s.id)
	o.close()
	return append(o.b, '\n')
}

func (s *sess) attachment(kind, event, toolUseID string) {
	o := s.chain(false)
	o.obj("attachment").str("type", kind)
	switch kind {
	case "hook_success":
		o.str("hookName", event+":Bash").str("toolUseID", toolUseID).str("hookEvent", event)
		o.str("content", "").str("stdout", "ok\n").str("stderr", "").int("exitCode", 0)
		o.str("command", "~/.claude/hooks/guard.sh").int("durationMs", 3+s.r.Int64N(80))
	case "hook_additional_context":
		o.arr("content").elemStr(s.proseText(120)).closeArr().str("hookName", event).str("toolUseID", event).str("hookEvent", event)
	case "todo_reminder":
		o.arr("content").closeArr().int("itemCount", 0)
	case "edited_text_file":
		o.str("filename", s.filePath()).str("snippet", s.g.code.take(s.r, 300))
	}
	o.close()
	o.str("type", "attachment")
	u := s.stamp(o)
	s.done(o, u, false)
}

// fixedAttachment writes an attachment whose body and rendered text are given.
func (s *sess) fixedAttachment(body func(o *obj), rendered string) {
	o := s.chain(false)
	o.obj("attachment")
	body(o)
	o.close()
	o.str("type", "attachment")
	u := s.stamp(o)
	if rendered != "" {
		o.arr("rendered").elemObj().str("content", "<system-reminder>\n"+rendered+"\n</system-reminder>").close().closeArr()
		o.str("renderedRole", "system")
	}
	s.done(o, u, false)
}

// runAttachments writes what every CLI run records after its first prompt:
// the context attachments, the system prompt snapshot and the request shape.
// In 2.1.328 these large, usage-free lines are a big share of a transcript.
func (s *sess) runAttachments() {
	g := s.g
	s.fixedAttachment(func(o *obj) {
		o.str("type", "environment").obj("snapshot").str("workingDirectory", s.proj.cwd).bool("isWorktree", strings.Contains(s.proj.cwd, "/worktrees/"))
		o.bool("isGitRepo", s.proj.branch != "HEAD").arr("additionalWorkingDirectories").closeArr().str("platform", "linux").str("shell", "bash").str("osVersion", "Linux 6.8.0").close()
	}, "# Environment\nYou have been invoked in the following environment: \n - Primary working directory: "+s.proj.cwd+"\n"+g.envText)
	s.fixedAttachment(func(o *obj) {
		o.str("type", "model").obj("identity").str("modelId", s.model).str("marketingName", s.model).str("knowledgeCutoff", "June 2026").close()
		o.str("text", "You are powered by the model named "+s.model+".")
	}, "You are powered by the model named "+s.model+".")
	s.fixedAttachment(func(o *obj) {
		o.str("type", "deferred_tools_delta").raw("addedNames", g.deferredTools).raw("addedLines", g.deferredTools)
		o.raw("removedNames", "[]").raw("wireHiddenNames", "[]").raw("readdedNames", "[]").raw("pendingMcpServers", "[]").raw("needsAuthMcpServers", "[]").raw("failedMcpServers", "[]")
	}, "The following deferred tools are now available via ToolSearch.")
	s.fixedAttachment(func(o *obj) {
		o.str("type", "agent_listing_delta").raw("addedTypes", `["claude","Explore","general-purpose","Plan","statusline-setup"]`).str("addedLines", g.agentText)
	}, g.agentText)
	s.fixedAttachment(func(o *obj) {
		o.str("type", "skill_listing").str("content", g.skillText)
	}, g.skillText)
	s.fixedAttachment(func(o *obj) { o.str("type", "session_context").obj("context").close() }, "")
	s.fixedAttachment(func(o *obj) { o.str("type", "date").str("date", s.t.Format("2006-01-02")) }, "Today's date is "+s.t.Format("2006-01-02")+".")
	s.fixedAttachment(func(o *obj) {
		o.str("type", "prompt_snapshot").arr("systemPrompt").elemStr(g.systemPrompt[:len(g.systemPrompt)/5]).closeArr()
	}, "")
	o := s.metaFirst("api-request-shape")
	o.str("shapeHash", g.shapeHash).time("timestamp", s.t).str("version", Version)
	o.obj("shape").arr("system").elemObj().str("type", "text").str("text", g.systemPrompt).close().closeArr().raw("tools", g.toolsJSON).close()
	s.metaDone(o)
	o = s.metaHead("atis-latch")
	o.str("atis", "")
	s.metaEnd(o)
}

type block struct {
	kind  string // thinking, text, tool_use
	text  string
	id    string
	name  string
	input []byte // JSON object
	tool  *toolCall
}

type toolCall struct {
	id, name string
	input    []byte
	content  string // tool_result content (string form)
	isErr    bool
	errSet   bool // write is_error even when false (Bash)
	result   []byte
}

// toolRound writes one assistant message with tool calls and their results.
// It returns false when the API failed and the turn ended.
func (s *sess) toolRound() bool {
	s.tick(2*time.Second, 90*time.Second)
	if s.r.IntN(300) == 0 {
		s.apiError()
		return false
	}
	var blocks []block
	if s.r.IntN(5) < 2 {
		blocks = append(blocks, s.thinkingBlock())
	}
	if s.r.IntN(2) == 0 || s.hasDue("text") {
		blocks = append(blocks, s.textBlock(120))
	}
	n := 1
	if s.r.IntN(10) < 3 {
		n = 2 + s.r.IntN(3)
	}
	var calls []*toolCall
	for i := 0; i < n; i++ {
		c := s.toolCall(i == 0)
		calls = append(calls, c)
		blocks = append(blocks, block{kind: "tool_use", id: c.id, name: c.name, input: c.input, tool: c})
	}
	uuids := s.message(blocks, "tool_use")
	for i, c := range calls {
		s.tick(100*time.Millisecond, 20*time.Second)
		s.toolResult(c, uuids[len(uuids)-len(calls)+i])
	}
	return true
}

func (s *sess) finalText() {
	s.tick(2*time.Second, 60*time.Second)
	s.message([]block{s.textBlock(400)}, "end_turn")
}

func (s *sess) thinkingBlock() block {
	t := ""
	if s.r.IntN(3) > 0 {
		t = s.proseText(lognorm(s.r, 400, 1.0, 20, 8000))
	}
	return block{kind: "thinking", text: t}
}

func (s *sess) textBlock(median float64) block {
	b := []byte(s.proseText(lognorm(s.r, median, 1.0, 10, 20000)))
	if s.r.IntN(40) == 0 {
		b = append(b, '\n')
		b = append(b, pick(s.r, nonASCII)...)
	}
	b = s.plantText(b, s.due("text", false))
	return block{kind: "text", text: string(b)}
}

func (s *sess) usage() Tokens {
	u := Tokens{
		InputTokens:              int64(lognorm(s.r, 6, 1.2, 1, 30000)),
		CacheCreationInputTokens: int64(lognorm(s.r, 900, 1.4, 0, 60000)),
		CacheReadInputTokens:     int64(lognorm(s.r, 40000, 0.7, 0, 400000)),
		OutputTokens:             int64(lognorm(s.r, 250, 1.1, 1, 32000)),
		Messages:                 1,
	}
	if s.r.IntN(10) == 0 {
		u.CacheReadInputTokens = 0
	}
	u.TotalTokens = u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	return u
}

func (s *sess) account(day string, u Tokens) {
	add := func(m map[string]*Tokens) {
		if m[day] == nil {
			m[day] = &Tokens{}
		}
		m[day].Add(u)
	}
	add(s.res.days)
	if !s.side {
		add(s.res.mainDays)
	}
	s.cost.Add(u)
}

// apiRequest writes the api-request record (and blobs) for the next message.
func (s *sess) apiRequest() string {
	for _, h := range s.blobs {
		o := s.metaFirst("api-request-blob")
		o.str("hash", h)
		o.obj("message").str("role", "user").arr("content").elemObj().str("type", "text").str("text", s.proseText(300)).close().closeArr().close()
		s.metaDone(o)
	}
	id := newUUID(s.r)
	o := s.metaFirst("api-request")
	o.str("id", id).time("timestamp", s.t).str("version", Version)
	qs := "repl_main_thread"
	if !s.interactive {
		qs = "sdk"
	}
	if s.side {
		qs = "agent:builtin:general-purpose"
	}
	o.str("querySource", qs).str("shapeHash", s.g.shapeHash)
	o.obj("params").str("model", s.model).raw("betas", betas)
	o.int("max_tokens", 128000).obj("thinking").str("type", "adaptive").str("display", "omitted").close()
	o.raw("context_management", `{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`).raw("output_config", `{"effort":"medium"}`).close()
	if s.lastReq != "" {
		o.str("base", s.lastReq)
	}
	o.int("keep", int64(s.keep)).arr("tail")
	for _, h := range s.blobs {
		o.elemStr(h)
	}
	o.closeArr()
	o.arr("cacheControl").elemObj().str("path", "messages.-1").str("value", "5m").close().closeArr()
	o.str("requestDigest", randID(s.r, "", 64, hexChars))
	s.metaDone(o)
	s.keep += len(s.blobs) + 1
	s.blobs = s.blobs[:0]
	s.lastReq = id
	return id
}

// message writes one API message as one assistant record per content block,
// each repeating the same final usage (§2.7), and returns their uuids.
func (s *sess) message(blocks []block, stop string) []string {
	ref := s.apiRequest()
	msgID := randID(s.r, "msg_01", 22, alnum)
	reqID := randID(s.r, "req_011C", 18, alnum)
	u := s.usage()
	// All blocks of a message fall on one UTC day.
	if d := s.t.Add(time.Duration(len(blocks)) * 2 * time.Second); d.YearDay() != s.t.YearDay() {
		s.t = d.Truncate(24 * time.Hour)
	}
	s.account(s.t.UTC().Format("2006-01-02"), u)
	uuids := make([]string, 0, len(blocks))
	for i, b := range blocks {
		o := s.chain(false)
		o.obj("message").str("id", msgID).str("type", "message").str("role", "assistant").str("model", s.model)
		o.arr("content").elemObj()
		switch b.kind {
		case "thinking":
			o.str("signature", s.g.b64[:200+s.r.IntN(600)]).str("thinking", b.text).str("type", "thinking")
		case "text":
			o.str("text", b.text).str("type", "text")
		case "tool_use":
			o.str("id", b.id).raw("input", string(b.input)).str("name", b.name).str("type", "tool_use")
		}
		o.close().closeArr()
		o.str("stop_reason", stop).null("stop_sequence")
		o.obj("usage").int("input_tokens", u.InputTokens).int("cache_creation_input_tokens", u.CacheCreationInputTokens)
		o.int("cache_read_input_tokens", u.CacheReadInputTokens).int("output_tokens", u.OutputTokens)
		o.obj("output_tokens_details").int("thinking_tokens", u.OutputTokens/4).close()
		o.obj("server_tool_use").int("web_search_requests", 0).int("web_fetch_requests", 0).close()
		o.str("service_tier", "standard")
		o.obj("cache_creation").int("ephemeral_1h_input_tokens", 0).int("ephemeral_5m_input_tokens", u.CacheCreationInputTokens).close()
		o.str("inference_geo", "").raw("iterations", "[]").str("speed", "standard").null("fallback_credit")
		o.close()
		o.null("stop_details").close()
		switch b.kind {
		case "thinking":
			o.int("thinkingDurationMs", 200+s.r.Int64N(20000)).str("thinkingDisplay", "omitted")
		case "tool_use":
			o.int("toolInputStreamMs", 5+s.r.Int64N(3000))
		}
		o.int("apiBlockIndex", int64(i)).str("requestId", reqID).str("requestRef", ref)
		o.str("requestedModel", s.model).str("promptCacheRequested", "5m")
		if s.side {
			o.str("attributionAgent", s.agentType)
		}
		o.str("type", "assistant")
		id := s.stamp(o)
		o.str("effort", "medium").str("perTurnEffort", "medium").str("madeBy", "model")
		uuids = append(uuids, id)
		s.done(o, id, true)
		s.t = s.t.Add(time.Duration(1+s.r.IntN(1500)) * time.Millisecond)
	}
	return uuids
}

func (s *sess) apiError() {
	reqID := randID(s.r, "req_011C", 18, alnum)
	for k := 1; k <= 2; k++ {
		o := s.chain(false)
		o.str("type", "system").str("subtype", "api_error").str("level", "error")
		o.obj("error").str("message", `529 {"error":{"message":"Overloaded","type":"overloaded_error"},"type":"error"}`).int("status", 529).str("requestId", reqID)
		o.str("formatted", "529 Overloaded").null("connection").bool("isNetworkDown", false).null("rateLimits").null("noResponse").close()
		o.int("retryInMs", int64(500*k)).int("retryAttempt", int64(k)).int("maxRetries", 2).str("source", "request_retry")
		u := s.stampSys(o)
		s.done(o, u, false)
		s.tick(500*time.Millisecond, 3*time.Second)
	}
	o := s.chain(false)
	o.str("type", "assistant")
	u := s.stamp(o)
	o.obj("message").null("diagnostics").str("id", newUUID(s.r)).null("container").str("model", "<synthetic>").str("role", "assistant")
	o.null("stop_details").str("stop_reason", "stop_sequence").str("stop_sequence", "").str("type", "message")
	o.obj("usage").null("output_tokens_details").int("input_tokens", 0).int("output_tokens", 0).int("cache_creation_input_tokens", 0).int("cache_read_input_tokens", 0)
	o.obj("server_tool_use").int("web_search_requests", 0).int("web_fetch_requests", 0).close().null("service_tier")
	o.obj("cache_creation").int("ephemeral_1h_input_tokens", 0).int("ephemeral_5m_input_tokens", 0).close()
	o.null("inference_geo").null("iterations").null("speed").null("fallback_credit").close()
	o.arr("content").elemObj().str("type", "text").str("text", "API Error: 529 Overloaded").close().closeArr().null("context_management").close()
	o.str("requestId", reqID).str("error", "unknown").bool("isApiErrorMessage", true).int("apiErrorStatus", 529).str("apiErrorType", "overloaded_error")
	o.str("perTurnEffort", "medium").bool("failedResponseHadNoToolCall", true).str("madeBy", "model")
	s.done(o, u, true)
}

var bashCommands = []string{"go test ./...", "go build ./...", "git status", "git diff --stat", "ls -la", "npm run build",
	"npm test", "cargo build", "make lint", "rg -n TODO", "python -m pytest -x", "git log --oneline -20", "go vet ./...",
	"docker compose ps", "kubectl get pods", "cat go.mod", "find . -name '*.go' | wc -l"}

var fileExts = []string{".go", ".go", ".ts", ".py", ".rs", ".md", "_test.go", ".json", ".sql"}

func (s *sess) filePath() string {
	return s.proj.cwd + "/" + pick(s.r, s.g.vocab.prose[:60]) + "/" + pick(s.r, s.g.vocab.ident) + pick(s.r, fileExts)
}

func (s *sess) toolID() string { return randID(s.r, "toolu_01", 22, alnum) }

func (s *sess) noteTool(name string) {
	for _, t := range s.toolsUsed {
		if t == name {
			return
		}
	}
	s.toolsUsed = append(s.toolsUsed, name)
}

// toolCall picks a tool and prepares its call and result; due plants steer it.
func (s *sess) toolCall(lead bool) *toolCall {
	c := &toolCall{id: s.toolID()}
	var name string
	switch {
	case lead && s.hasDue("subagent"):
		name = "Agent"
	case lead && s.hasDue("tool_results"):
		name = "BashLarge"
	case lead && s.hasDue("tool"):
		name = "Bash"
	default:
		x := s.r.IntN(100)
		switch {
		case x < 37:
			name = "Bash"
		case x < 38:
			name = "BashLarge"
		case x < 62:
			name = "Read"
		case x < 76:
			name = "Edit"
		case x < 83:
			name = "Write"
		case x < 91:
			name = "Grep"
		case x < 96:
			name = "Glob"
		default:
			name = "Agent"
		}
		if s.side && name == "Agent" {
			name = "Read"
		}
	}
	switch name {
	case "Bash":
		s.bash(c, false)
	case "BashLarge":
		s.bash(c, true)
	case "Read":
		s.read(c)
	case "Edit":
		s.edit(c)
	case "Write":
		s.write(c)
	case "Grep":
		s.grep(c)
	case "Glob":
		s.glob(c)
	case "Agent":
		s.agent(c)
	}
	s.noteTool(c.name)
	return c
}

func inputOf(f func(o *obj)) []byte { b, _ := jsonBytes(f); return b }

func (s *sess) bash(c *toolCall, large bool) {
	c.name = "Bash"
	cmd := pick(s.r, bashCommands)
	c.input = inputOf(func(o *obj) { o.str("command", cmd).str("description", titleCase(s.proseText(30))) })
	var out []byte
	var trPlants []*pendingPlant
	if large {
		out = []byte(s.g.shell.take(s.r, lognorm(s.r, 80<<10, 1.0, 40<<10, 4<<20)))
		trPlants = s.due("tool_results", true)
	} else if s.r.IntN(20) > 0 {
		out = []byte(s.g.shell.take(s.r, lognorm(s.r, 400, 1.5, 10, 28000)))
	}
	if pls := s.due("tool", false); len(pls) > 0 {
		// Up front, so the term stays inline even when the output is persisted.
		out = append(s.plantText(nil, pls), out...)
	}
	if len(trPlants) > 0 {
		// Past the 2 KB preview and the 30000-char stdout kept inline.
		out = append(out, '\n')
		out = s.plantText(out, trPlants)
		out = append(out, '\n')
		out = append(out, s.g.shell.take(s.r, 200)...)
	}
	failed := !large && s.r.IntN(8) == 0
	code := 1 + s.r.IntN(3)
	c.errSet = true
	switch {
	case failed:
		c.isErr = true
		c.content = "Exit code " + strconv.Itoa(code)
		if len(out) > 0 {
			c.content += "\n" + string(out)
		}
		c.result = appendString(nil, "Error: "+c.content)
	case len(out) > 30000:
		path := s.toolResultFile(out)
		preview := string(out[:2048])
		if i := strings.LastIndexByte(preview, '\n'); i > 0 {
			preview = preview[:i]
		}
		c.content = fmt.Sprintf("<persisted-output>\nOutput too large (%.1fKB). Full output saved to: %s\n\nPreview (first 2KB):\n%s\n...\n</persisted-output>", float64(len(out))/1024, path, preview)
		c.result = inputOf(func(o *obj) {
			o.str("stdout", string(out[:30000])).str("stderr", "").bool("interrupted", false).bool("isImage", false).bool("noOutputExpected", false)
			o.str("persistedOutputPath", path).int("persistedOutputSize", int64(len(out)))
		})
	default:
		c.content = string(out)
		if len(out) == 0 {
			c.content = "(Bash completed with no output)"
		}
		c.result = inputOf(func(o *obj) {
			o.str("stdout", string(out)).str("stderr", "").bool("interrupted", false).bool("isImage", false).bool("noOutputExpected", false)
		})
	}
}

// toolResultFile writes output to <session>/tool-results/<id>.txt and returns its path as the CLI shows it.
func (s *sess) toolResultFile(out []byte) string {
	name := randID(s.r, "", 9, "abcdefghijklmnopqrstuvwxyz0123456789") + ".txt"
	dir := filepath.Join(s.sessDir, "tool-results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.err = err
	} else if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
		s.err = err
	}
	*s.written += int64(len(out))
	s.res.bytes += int64(len(out))
	s.res.files++
	rel, _ := filepath.Rel(s.g.opts.Out, filepath.Join(dir, name))
	return fakeHome + "/" + filepath.ToSlash(rel)
}

func (s *sess) read(c *toolCall) {
	c.name = "Read"
	path := s.filePath()
	c.input = inputOf(func(o *obj) { o.str("file_path", path) })
	if s.r.IntN(30) == 0 {
		c.isErr = true
		c.content = "<tool_use_error>File does not exist. Note: your current working directory is " + s.proj.cwd + ".</tool_use_error>"
		c.result = appendString(nil, "Error: File does not exist. Note: your current working directory is "+s.proj.cwd+".")
		return
	}
	body := s.g.code.take(s.r, lognorm(s.r, 3000, 1.1, 40, 60000))
	if pls := s.due("tool", false); len(pls) > 0 {
		body = string(s.plantText([]byte(body), pls))
	}
	lines := strings.Split(body, "\n")
	var numbered []byte
	for i, l := range lines {
		numbered = fmt.Appendf(numbered, "%6d\t", i+1)
		numbered = append(numbered, l...)
		numbered = append(numbered, '\n')
	}
	c.content = string(numbered)
	c.result = inputOf(func(o *obj) {
		o.str("type", "text").obj("file").str("filePath", path).str("content", body).int("numLines", int64(len(lines))).int("startLine", 1).int("totalLines", int64(len(lines))).close()
	})
}

func (s *sess) edit(c *toolCall) {
	c.name = "Edit"
	path := s.filePath()
	orig := s.g.code.take(s.r, lognorm(s.r, 6000, 1.0, 200, 80000))
	oldS := s.g.code.take(s.r, 120)
	newS := s.g.code.take(s.r, 160)
	c.input = inputOf(func(o *obj) {
		o.str("file_path", path).str("old_string", oldS).str("new_string", newS).bool("replace_all", false)
	})
	if s.r.IntN(25) == 0 {
		c.isErr = true
		c.content = "<tool_use_error>String to replace not found in file.\nString: " + oldS + "</tool_use_error>"
		c.result = appendString(nil, "Error: String to replace not found in file.\nString: "+oldS)
		return
	}
	c.content = "The file " + path + " has been updated successfully."
	start := int64(1 + s.r.IntN(400))
	c.result = inputOf(func(o *obj) {
		o.str("filePath", path).str("oldString", oldS).str("newString", newS).str("originalFile", orig)
		o.arr("structuredPatch").elemObj().int("oldStart", start).int("oldLines", 4).int("newStart", start).int("newLines", 5).arr("lines")
		for _, l := range strings.Split(oldS, "\n") {
			o.elemStr("-" + l)
		}
		for _, l := range strings.Split(newS, "\n") {
			o.elemStr("+" + l)
		}
		o.closeArr().close().closeArr()
		o.bool("userModified", false).bool("replaceAll", false)
	})
}

func (s *sess) write(c *toolCall) {
	c.name = "Write"
	path := s.filePath()
	body := s.g.code.take(s.r, lognorm(s.r, 2500, 1.0, 50, 50000))
	c.input = inputOf(func(o *obj) { o.str("file_path", path).str("content", body) })
	c.content = "File created successfully at: " + path
	c.result = inputOf(func(o *obj) {
		o.str("type", "create").str("filePath", path).str("content", body).arr("structuredPatch").closeArr().null("originalFile").bool("userModified", false)
	})
}

func (s *sess) grep(c *toolCall) {
	c.name = "Grep"
	pat := pick(s.r, s.g.vocab.ident)
	mode := "files_with_matches"
	if s.r.IntN(3) == 0 {
		mode = "content"
	}
	c.input = inputOf(func(o *obj) { o.str("pattern", pat).str("path", s.proj.cwd).str("output_mode", mode) })
	n := lognorm(s.r, 6, 1.0, 0, 200)
	var files []string
	for i := 0; i < n; i++ {
		files = append(files, s.filePath())
	}
	if mode == "content" {
		var b []byte
		for _, f := range files {
			b = fmt.Appendf(b, "%s:%d:%s\n", f, 1+s.r.IntN(500), strings.TrimSpace(s.g.code.take(s.r, 40)))
		}
		c.content = string(b)
	} else if n == 0 {
		c.content = "No files found"
	} else {
		c.content = "Found " + strconv.Itoa(n) + " files\n" + strings.Join(files, "\n")
	}
	c.result = inputOf(func(o *obj) {
		o.str("mode", mode).arr("filenames")
		for _, f := range files {
			o.elemStr(f)
		}
		o.closeArr().int("numFiles", int64(n))
		if mode == "content" {
			o.str("content", c.content).int("numLines", int64(n))
		}
	})
}

func (s *sess) glob(c *toolCall) {
	c.name = "Glob"
	c.input = inputOf(func(o *obj) { o.str("pattern", "**/*"+pick(s.r, fileExts)) })
	n := lognorm(s.r, 10, 1.0, 0, 100)
	var files []string
	for i := 0; i < n; i++ {
		files = append(files, s.filePath())
	}
	c.content = strings.Join(files, "\n")
	if n == 0 {
		c.content = "No files found"
	}
	c.result = inputOf(func(o *obj) {
		o.arr("filenames")
		for _, f := range files {
			o.elemStr(f)
		}
		o.closeArr().int("durationMs", s.r.Int64N(200)).int("numFiles", int64(n)).bool("truncated", false)
	})
}

// toolResult writes the user record that answers one tool_use.
func (s *sess) toolResult(c *toolCall, assistantUUID string) {
	o := s.chain(true)
	o.str("type", "user")
	o.obj("message").str("role", "user").arr("content").elemObj()
	o.str("tool_use_id", c.id).str("type", "tool_result")
	if c.name == "Agent" && !c.isErr {
		o.arr("content").elemObj().str("type", "text").str("text", c.content).close().closeArr()
	} else {
		o.str("content", c.content)
	}
	if c.isErr || c.errSet {
		o.bool("is_error", c.isErr)
	}
	o.close().closeArr().close()
	u := s.stamp(o)
	if !s.side {
		// Subagent files keep no toolUseResult.
		o.raw("toolUseResult", string(c.result))
	}
	if c.name == "Bash" {
		o.bool("sandboxed", false)
	}
	o.str("sourceToolAssistantUUID", assistantUUID)
	o.obj("permissionDecision").str("decision", "accept").str("source", "config").str("reasonType", "rule").str("ruleSource", "cliArg").close()
	s.done(o, u, false)
	s.blobs = append(s.blobs, randID(s.r, "", 64, hexChars))
	if s.hooks && c.name == "Bash" && s.r.IntN(2) == 0 {
		s.attachment("hook_success", "PostToolUse", c.id)
	}
}

// agent runs a subagent: its own transcript under subagents/, then the hand-back.
func (s *sess) agent(c *toolCall) {
	c.name = "Agent"
	agentID := randID(s.r, "a", 16, hexChars)
	prompt := s.proseText(lognorm(s.r, 500, 0.8, 40, 6000))
	desc := titleCase(s.proseText(30))
	agentType := pick(s.r, []string{"general-purpose", "Explore", "general-purpose"})
	c.input = inputOf(func(o *obj) {
		o.str("description", desc).str("prompt", prompt).str("subagent_type", agentType)
	})
	dir := filepath.Join(s.sessDir, "subagents")
	sub := &sess{
		g: s.g, r: s.r, res: s.res, id: s.id, proj: s.proj, entrypoint: s.entrypoint, interactive: s.interactive,
		side: true, agentID: agentID, agentType: agentType, sessDir: s.sessDir, model: s.model, written: s.written,
		t: s.t, promptID: s.promptID,
	}
	size := int64(lognorm(s.r, 40<<10, 1.0, 4<<10, 4<<20))
	sub.target = *s.written + min(size, max(s.target/10, 8<<10))
	sub.plants = s.due("subagent", true)
	for _, p := range sub.plants {
		p.kind = "tool" // inside the subagent, into a tool output
		p.at = 0
	}
	sub.open(filepath.Join(dir, "agent-"+agentID+".jsonl"), false)
	o := sub.chain(true)
	o.str("type", "user")
	o.obj("message").str("role", "user").str("content", prompt).close()
	u := sub.stamp(o)
	sub.done(o, u, false)
	rounds := 0
	for (*sub.written < sub.target || len(sub.plants) > 0) && sub.err == nil {
		sub.toolRound()
		rounds++
	}
	report := sub.textBlock(600)
	sub.message([]block{report}, "end_turn")
	sub.close()
	if sub.err != nil && s.err == nil {
		s.err = sub.err
	}
	s.t = sub.t
	meta, _ := jsonBytes(func(o *obj) {
		o.str("agentType", agentType).bool("isBuiltIn", true).str("description", desc).str("toolUseId", c.id)
		o.int("spawnDepth", 1).str("requestShape", "foreground").bool("requestNonInteractive", !s.interactive)
		o.str("model", s.model).bool("pickedEffortModel", false).bool("finished", true)
	})
	if err := os.WriteFile(filepath.Join(dir, "agent-"+agentID+".meta.json"), meta, 0o644); err != nil && s.err == nil {
		s.err = err
	}
	s.res.files++
	s.subagents++
	dur := 5000 + s.r.Int64N(300000)
	tokens := sub.cost.TotalTokens
	var ind []byte
	for _, l := range strings.Split(report.text, "\n") {
		ind = append(ind, "  "...)
		ind = append(ind, l...)
		ind = append(ind, '\n')
	}
	c.content = fmt.Sprintf("[Subagent hand-back] %s\n%s\nagentId: %s (use SendMessage with to: '%s' to continue this agent)\n<usage>subagent_tokens: %d\ntool_uses: %d\nduration_ms: %d</usage>",
		desc, ind, agentID, agentID, tokens, rounds, dur)
	c.result = inputOf(func(o *obj) {
		o.str("status", "completed").str("prompt", prompt).str("agentId", agentID).str("agentType", agentType)
		o.arr("toolsUsed")
		for _, t := range sub.toolsUsed {
			o.elemStr(t)
		}
		o.closeArr()
		o.arr("content").elemObj().str("type", "text").str("text", report.text).close().closeArr()
		o.str("resolvedModel", s.model).int("totalDurationMs", dur).int("totalTokens", tokens).int("totalToolUseCount", int64(rounds))
		o.obj("usage").int("input_tokens", sub.cost.InputTokens).int("output_tokens", sub.cost.OutputTokens).close()
	})
}

// hugeLine writes one user record of about n bytes: a Read of a screenshot
// whose base64 data is repeated in toolUseResult, with a planted term between.
func (s *sess) hugeLine(n int64) {
	s.tick(time.Second, 10*time.Second)
	id := s.toolID()
	path := s.proj.cwd + "/docs/screenshot-full.png"
	blocks := []block{{kind: "tool_use", id: id, name: "Read", input: inputOf(func(o *obj) { o.str("file_path", path) })}}
	uuids := s.message(blocks, "tool_use")
	half := int(n / 2)
	o := s.chain(true)
	o.str("type", "user")
	o.obj("message").str("role", "user").arr("content").elemObj()
	o.str("tool_use_id", id).str("type", "tool_result").arr("content")
	o.elemObj().str("type", "image").obj("source").str("type", "base64")
	o.key("data")
	o.b = s.appendB64(o.b, half)
	o.str("media_type", "image/png").close().close()
	o.elemObj().str("type", "text").str("text", "Screenshot read; see "+TermHugeLine+" for details.").close()
	o.closeArr().close().closeArr().close()
	u := s.stamp(o)
	o.key("toolUseResult")
	o.open().str("type", "image").obj("file").key("base64")
	o.b = s.appendB64(o.b, half)
	o.str("type", "image/png").int("originalSize", int64(half*3/4)).obj("dimensions").int("originalWidth", 7680).int("originalHeight", 43200).close().close().close()
	o.str("sourceToolAssistantUUID", uuids[0])
	s.done(o, u, false)
	s.res.terms = append(s.res.terms, TermHugeLine)
}

func (s *sess) appendB64(b []byte, n int) []byte {
	b = append(b, '"')
	p := s.g.b64
	for n > 0 {
		k := min(n, len(p))
		b = append(b, p[:k]...)
		n -= k
	}
	return append(b, '"')
}

// session writes plan i (and its fork, if it has one).
func (g *gen) session(plans []plan, i int) (*result, *result, error) {
	p := plans[i]
	r := rand.New(rand.NewPCG(g.opts.Seed, uint64(i)+1))
	proj := g.projects[p.project]
	res := newResult(p.id)
	var written int64
	s := &sess{
		g: g, r: r, res: res, id: p.id, proj: proj, written: &written, target: p.target,
		sessDir: filepath.Join(g.opts.Out, "projects", proj.slug, p.id),
		model:   pick(r, models),
	}
	s.interactive = r.IntN(10) < 7
	s.entrypoint = "sdk-cli"
	if s.interactive {
		s.entrypoint = "cli"
	}
	s.hooks = r.IntN(10) < 3
	s.t = g.base.Add(-time.Duration(r.Int64N(int64(60 * 24 * time.Hour))))
	for _, term := range p.plants {
		pl := &pendingPlant{term: term, at: r.Float64() * 0.9, form: caseForm(r, term)}
		switch plantKind(term) {
		case "subagent":
			pl.kind = "subagent"
		case "tool_results":
			pl.kind = "tool_results"
		case "huge_line":
			continue
		default:
			pl.kind = pick(r, []string{"prompt", "text", "tool"})
		}
		s.plants = append(s.plants, pl)
	}
	s.copying = p.forkID != ""
	ext := ".jsonl"
	if p.zst {
		ext = ".jsonl.zst"
	}
	path := filepath.Join(g.opts.Out, "projects", proj.slug, p.id+ext)
	s.open(path, p.zst)
	hugeDone := !p.huge
	if p.huge {
		s.target += g.opts.HugeLine
	}
	first := true
	for s.err == nil && (written < s.target || len(s.plants) > 0 || !hugeDone) {
		s.run(first)
		first = false
		if !hugeDone && s.progress() > 0.3 {
			s.hugeLine(g.opts.HugeLine)
			hugeDone = true
		}
		// A resumed session comes back hours or days later; long ones sooner,
		// so that even a giant spans weeks, not years.
		scale := min(1, float64(4<<20)/float64(s.target))
		s.tick(time.Duration(scale*float64(time.Hour)), time.Duration(scale*float64(3*24*time.Hour)))
	}
	s.close()
	if s.err != nil {
		return nil, nil, fmt.Errorf("write session %s: %w", p.id, s.err)
	}
	rel, _ := filepath.Rel(g.opts.Out, path)
	res.info = SessionInfo{SessionID: p.id, TranscriptPath: filepath.ToSlash(rel), Bytes: res.bytes, Giant: p.giant, HugeLine: p.huge, Subagents: s.subagents, Compressed: p.zst}
	if p.forkID == "" {
		return res, nil, nil
	}
	fork, err := g.fork(plans[i+1], s)
	return res, fork, err
}

// fork writes a --fork-session copy of s: every uuid-bearing record with the
// new session id, then a few turns of its own.
func (g *gen) fork(p plan, src *sess) (*result, error) {
	r := rand.New(rand.NewPCG(g.opts.Seed, uint64(p.index)+1))
	res := newResult(p.id)
	var written int64
	s := &sess{
		g: g, r: r, res: res, id: p.id, proj: src.proj, written: &written, target: p.target,
		sessDir: filepath.Join(g.opts.Out, "projects", src.proj.slug, p.id), model: src.model,
		interactive: true, entrypoint: "cli", parent: src.parent,
	}
	s.t = src.t.Add(time.Duration(1+r.IntN(48)) * time.Hour)
	path := filepath.Join(g.opts.Out, "projects", src.proj.slug, p.id+".jsonl")
	s.open(path, false)
	o := s.metaHead("mode")
	o.str("mode", "normal")
	s.metaEnd(o)
	copied := bytes.ReplaceAll(src.copyBuf, []byte(`"sessionId":"`+src.id+`"`), []byte(`"sessionId":"`+p.id+`"`))
	if s.err == nil {
		_, s.err = s.w.Write(copied)
	}
	written += int64(len(copied))
	res.bytes += int64(len(copied))
	s.target += written
	s.promptIdx = src.promptIdx
	// Only main-file plants were copied; subagent, tool-results and huge-line terms stay with the source.
	for _, t := range src.res.terms {
		if plantKind(t) == "main" {
			res.terms = append(res.terms, t)
		}
	}
	for s.err == nil && written < s.target {
		s.run(false)
	}
	s.close()
	if s.err != nil {
		return nil, fmt.Errorf("write fork %s: %w", p.id, s.err)
	}
	rel, _ := filepath.Rel(g.opts.Out, path)
	res.info = SessionInfo{SessionID: p.id, TranscriptPath: filepath.ToSlash(rel), Bytes: res.bytes, ForkOf: src.id, Subagents: s.subagents}
	return res, nil
}

func caseForm(r *rand.Rand, term string) string {
	if term == TermNonASCII {
		return pick(r, NonASCIIForms)
	}
	switch r.IntN(3) {
	case 0:
		return strings.ToUpper(term)
	case 1:
		return strings.ToUpper(term[:1]) + term[1:]
	}
	return term
}
