package cccassette

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccpipe/ccpipe/lib/atomicfile"
	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/records"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

const importHelp = `usage: cc-cassette import [flags] [TRANSCRIPT... | -]

Turns Claude Code sessions into cassettes following Blackbox's importer:
records of type user and assistant are kept (a file of sidechain records
only is a subagent transcript; elsewhere sidechain records are skipped);
assistant records sharing a message id are one model turn (Claude Code
writes one block per line) at its first record's time; each model turn
becomes a model_input (the conversation so far and the tools seen) and a
model_output: final_answer {text}, or tool_calls {calls, text?} with the
calls numbered call-0, call-1, ... in transcript order (provider ids are
never stored); each call with a result gives a tool_call and a
tool_result (result: the content, JSON-parsed when it parses; error: its
text when is_error) at the result's time. A call without a result is
allowed only in the last model turn (a session cut off mid-tool): it
gets its tool_call only, the turn's other calls keep theirs and their
results, and the run ends with that turn, incomplete. The run ends with the last answer
(metadata run_completed, success): user records after it (a prompt, a
meta reminder such as the one /rename writes, a prompt answered only by
thinking or empty text) open no step; it stays incomplete when tool calls
came after the last answer. A transcript without an assistant message is
refused. Thinking, model names, usage and stop reasons are dropped.
A user record's text is its string content, or its blocks joined by
newlines (a text block's text; else "[<type> omitted]", "[content
omitted]" without a type, "[text omitted]" for text that is not a
string; entries that are not objects are dropped); an empty text adds
nothing. Tool result content that is neither a string, an array of
blocks nor null refuses the transcript.

Input: transcript paths (.jsonl, .jsonl.gz, .jsonl.zst), or on stdin
session records (any record with a transcript_path, such as cc-sessions
output) or transcript lines (cc-entries output, grouped into one cassette
per transcript by cc_source.path, else sessionId and agentId); "-" reads
stdin. A cassette's id is its transcript's file name without .jsonl (the
session id, or agent-<id> for a subagent) unless --id is given.
--from chat-json reads chat JSON documents instead ({tools?, messages},
the shape of OpenAI chat transcripts; Blackbox's chat-json rules).

Each cassette is verified before it is written; one that fails verify, or
that holds the literal value of $ANTHROPIC_API_KEY or $OPENAI_API_KEY,
is not written: one line on stderr names the cassette and why (never the
value) and the exit status is 1. Malformed transcript lines are skipped
with a warning (Blackbox refuses the whole file).

Size: Blackbox's format repeats the conversation so far in every
model_input, so a cassette grows with the square of a session's turns: a
session of n model turns whose messages average b bytes gives about
n²·b/2 bytes (a 3.5 MB transcript of 2,000 tool calls is a 2.9 GB
cassette). A cassette over --max-bytes (default 1 GiB; 0 for no limit) is
refused before anything is written: one line on stderr names it and its
size, and the exit status is 1. In memory the model_inputs share the
conversation, so memory stays near the transcript's size.

Output: the cassettes in the NDJSON form (header, then steps), one after
the other; with --out-dir, each to DIR/<id>.ndjson and one record per
cassette on stdout instead: id, path, source, steps, status, tools.

Beyond Blackbox: --subagents, --keep-thinking (a model_output keeps the
turn's thinking text as "thinking"), --with-usage (after each
model_output a metadata step {event:"model_usage", model_output_step,
model, input_tokens, output_tokens, cache_creation_input_tokens,
cache_read_input_tokens}; model payloads are unchanged and no provider
marker is written, so neutrality holds).

Examples:
  $ cc-sessions --find my-project | cc-cassette import > run.ndjson
  $ cc-cassette import --subagents --out-dir cassettes ~/.claude/projects/-x/ID.jsonl
  $ cc-entries --branch ID.jsonl | cc-cassette import | cc-cassette show
  $ cc-cassette import --from chat-json chat.json

Exit status: 0 ok, 1 a transcript could not be read or imported, or a
cassette was refused, 2 usage error.`

type importOptions struct {
	from      string
	id        string
	outDir    string
	subagents bool
	thinking  bool
	usage     bool
	maxLine   int
	maxBytes  int
	getenv    func(string) string
	keys      []string
	keyNames  []string
	written   int
	failed    bool
	usedIDs   map[string]bool
}

func importCommand(getenv func(string) string) *cli.Command {
	o := &importOptions{getenv: getenv, usedIDs: map[string]bool{}}
	return &cli.Command{
		Name:     "import",
		Short:    "a Claude Code session (or a chat JSON transcript) as a cassette",
		Synopsis: "cc-cassette import [--subagents] [--out-dir DIR] [--id ID] [--from claude-code|chat-json] [TRANSCRIPT... | -]",
		Help:     importHelp,
		SetFlags: func(f *cli.Flags) {
			f.Enum(&o.from, "from", "claude-code", "input `FORMAT`", []string{"claude-code", "chat-json"})
			f.StringVar(&o.id, "id", "", "the cassette `ID` (one cassette only)")
			f.StringVar(&o.outDir, "out-dir", "", "write each cassette to `DIR`/<id>.ndjson and print a record per cassette")
			f.BoolVar(&o.subagents, "subagents", false, "also import each session's subagent transcripts, each as its own cassette")
			f.BoolVar(&o.thinking, "keep-thinking", false, "keep thinking text in model_output payloads")
			f.BoolVar(&o.usage, "with-usage", false, "add a metadata step with token usage after each model_output")
			f.IntVar(&o.maxLine, "max-line", 0, "skip transcript lines longer than `BYTES` (default 1 GiB)")
			f.Exclusive("id", "subagents").Says("--id names one cassette and cannot go with --subagents")
			f.IntVar(&o.maxBytes, "max-bytes", 1<<30, "refuse a cassette that would be larger than `BYTES` (0: no limit)")
			f.AtLeast("max-bytes", 0)
		},
		Run: o.run,
	}
}

func (o *importOptions) run(env *cli.Env, args []string) error {
	for _, name := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
		if v := strings.TrimSpace(o.getenv(name)); len(v) >= 4 && v != "blackbox-offline-placeholder" {
			o.keys = append(o.keys, v)
			o.keyNames = append(o.keyNames, name)
		}
	}
	what := "transcript"
	if o.from == "chat-json" {
		what = "chat JSON file"
	}
	// Usage first: a usage error creates no --out-dir.
	names, err := inputs(env, args, what)
	if err != nil {
		return err
	}
	if o.outDir != "" {
		if err := os.MkdirAll(o.outDir, 0o755); err != nil {
			return err
		}
	}
	for _, name := range names {
		var err error
		switch {
		case o.from == "chat-json":
			err = o.chatJSON(env, name)
		case name == "-":
			err = o.stdin(env)
		default:
			err = o.session(env, name)
		}
		if err != nil {
			return err
		}
	}
	if o.failed {
		return exitFail()
	}
	return nil
}

// idFor is the cassette id of a transcript path.
func (o *importOptions) idFor(path string) string {
	if o.id != "" {
		return o.id
	}
	return transcript.SessionID(path)
}

// session imports one transcript file and, with --subagents, its
// subagents.
func (o *importOptions) session(env *cli.Env, path string) error {
	o.file(env, path)
	if !o.subagents {
		return nil
	}
	subs, err := transcript.Subagents(path)
	if err != nil {
		env.Warnf("%s: subagents: %v", path, err)
		o.failed = true
		return nil
	}
	for _, s := range subs {
		o.file(env, s.Path)
	}
	return nil
}

// maxFileWarnings is how many skipped lines of one file are named.
const maxFileWarnings = 10

// file imports one transcript file; a failure is reported and counted.
func (o *importOptions) file(env *cli.Env, path string) {
	im := cassette.NewClaudeCodeImporter(o.importOpts(o.idFor(path)))
	warned := 0 // the first ten lines named, the rest counted
	opts := transcript.Options{MaxLine: o.maxLine, Warn: func(line int, err error) {
		if warned++; warned <= maxFileWarnings {
			env.Warnf("%s:%d: skipped: %v", path, line, err)
		}
	}}
	defer func() {
		if warned > maxFileWarnings {
			env.Warnf("%s: %d more skipped lines not shown (%d in all)", path, warned-maxFileWarnings, warned)
		}
	}()
	var addErr error
	_, err := transcript.ReadFile(path, opts, func(l *transcript.Line) error {
		if err := im.Add(l.Bytes, l.Number); err != nil {
			addErr = err
			return err
		}
		return nil
	})
	if addErr != nil {
		err = addErr
	}
	if err != nil {
		env.Warnf("%s: %v", path, err)
		o.failed = true
		return
	}
	o.finish(env, path, im)
}

func (o *importOptions) importOpts(id string) cassette.ImportOptions {
	return cassette.ImportOptions{ID: id, KeepThinking: o.thinking, WithUsage: o.usage}
}

// stdin reads session records or transcript lines.
func (o *importOptions) stdin(env *cli.Env) error {
	rd := ndjson.NewReader(env.Stdin)
	if o.maxLine > 0 {
		rd.MaxLine = o.maxLine
	}
	var im *cassette.ClaudeCodeImporter
	var group, source string
	n := 0
	flush := func() {
		if im != nil {
			o.finish(env, source, im)
			im = nil
		}
	}
	for {
		line, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errors.Is(err, ndjson.ErrLineTooLong) {
				env.SkipInput(rd.Line(), "skipped: %v", err)
				continue
			}
			env.Warnf("<stdin>:%d: skipped: %v", rd.Line(), err)
			o.failed = true
			break
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		v, err := cassette.Parse(line)
		if err != nil || v.Kind() != cassette.Object {
			if rd.Partial() {
				env.SkipInput(rd.Line(), "skipped: the last line is incomplete")
			} else {
				env.SkipInput(rd.Line(), "skipped: not a JSON object")
			}
			continue
		}
		if p := sessionPath(line); p != "" {
			flush()
			if err := o.session(env, p); err != nil {
				return err
			}
			continue
		}
		key, src, id := groupOf(v)
		if key == "" {
			// No cc_source and no sessionId (file-history-snapshot and
			// the like): the record belongs to the transcript around it.
			switch t, _ := v.GetString("type"); {
			case im != nil:
				key = group
			case t != "user" && t != "assistant":
				continue // before any transcript, and nothing to import
			default:
				key, src, id = "session:imported", "<stdin> session imported", "imported"
			}
		}
		if im == nil || key != group {
			flush()
			group, source, n = key, src, 0
			if o.id != "" {
				id = o.id
			}
			im = cassette.NewClaudeCodeImporter(o.importOpts(id))
		}
		n++
		if err := im.AddValue(v, n); err != nil {
			env.Warnf("%s: %v", source, err)
			o.failed = true
			im = nil
			group = "\x00failed:" + key // skip the rest of this transcript
		}
	}
	flush()
	return nil
}

// sessionPath is the transcript a stdin record names when it is not a
// transcript entry (records.Classify): a session record, a hook payload,
// a fact with a transcript_path; "" for an entry or a record naming none.
func sessionPath(line []byte) string {
	if !bytes.Contains(line, []byte(`"transcript_path"`)) {
		return "" // the byte test spares a scan of every transcript line
	}
	r, err := records.Classify(line)
	if err != nil {
		return ""
	}
	return r.SessionPath()
}

// groupOf names the transcript a cc-entries line came from: its
// cc_source.path, else its sessionId and agentId; "" when the line names
// none.
func groupOf(v cassette.Value) (key, source, id string) {
	src, _ := v.Get("cc_source")
	if p, ok := src.GetString("path"); ok && p != "" {
		return "path:" + p, p, transcript.SessionID(p)
	}
	sid, _ := v.GetString("sessionId")
	aid, _ := v.GetString("agentId")
	side, _ := v.Get("isSidechain")
	if aid != "" {
		if b, _ := side.Bool(); b {
			return "agent:" + sid + "/" + aid, "<stdin> agent " + aid, "agent-" + aid
		}
	}
	if sid == "" {
		return "", "", ""
	}
	return "session:" + sid, "<stdin> session " + sid, sid
}

func (o *importOptions) chatJSON(env *cli.Env, name string) error {
	r, err := open(env, name)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return err
	}
	doc, err := cassette.Parse(data)
	if err != nil {
		env.Warnf("%s: not valid JSON: %v", displayName(name), err)
		o.failed = true
		return nil
	}
	id := o.id
	if id == "" {
		id = "imported"
		if name != "-" {
			id = strings.TrimSuffix(filepath.Base(name), ".json")
		}
	}
	c, err := cassette.ImportChatJSON(doc, o.importOpts(id))
	if err != nil {
		env.Warnf("%s: %v", displayName(name), err)
		o.failed = true
		return nil
	}
	return o.write(env, displayName(name), c)
}

// finish builds, checks and writes one imported cassette.
func (o *importOptions) finish(env *cli.Env, source string, im *cassette.ClaudeCodeImporter) {
	c, err := im.Finish()
	if err != nil {
		env.Warnf("%s: %v", source, err)
		o.failed = true
		return
	}
	if err := o.write(env, source, c); err != nil {
		env.Warnf("%s: %v", source, err)
		o.failed = true
	}
}

// cassetteSize is the size of c in the NDJSON form, counted step by step
// until it passes limit (then over is true and n is a lower bound).
func cassetteSize(c cassette.Cassette, limit int64) (n int64, over bool) {
	b, _ := cassette.AppendJS(nil, c.Header)
	n = int64(len(b)) + 1
	for _, s := range c.Steps {
		b, _ = cassette.AppendJS(b[:0], s)
		if n += int64(len(b)) + 1; n > limit {
			return n, true
		}
	}
	return n, false
}

type importRecord struct {
	ID     string   `json:"id"`
	Path   string   `json:"path"`
	Source string   `json:"source"`
	Steps  int      `json:"steps"`
	Status string   `json:"status"`
	Tools  []string `json:"tools"`
}

func (o *importOptions) write(env *cli.Env, source string, c cassette.Cassette) error {
	id := c.ID()
	if o.id != "" && o.written > 0 {
		return cli.Usagef("--id names one cassette, and the input holds more")
	}
	v := &cassette.Verifier{Keys: o.keys, Built: true}
	v.Header(c.Header)
	for _, s := range c.Steps {
		v.Step(s)
	}
	rep := v.Report()
	for _, f := range rep.Findings {
		if f.Label == "<api-key-value>" {
			env.Warnf("%s: refused: the transcript contains your API key (the value of %s); nothing written for cassette %s", source, strings.Join(o.keyNames, " or "), id)
			o.failed = true
			return nil
		}
	}
	if !rep.Pass {
		f := rep.FirstFailure
		at := ""
		if f.StepIndex != nil {
			at = fmt.Sprintf(" at step %d", *f.StepIndex)
		}
		env.Warnf("%s: refused: verify failed: %s%s: %s; nothing written for cassette %s", source, f.Name, at, f.Detail, id)
		o.failed = true
		return nil
	}
	if o.maxBytes > 0 {
		if n, over := cassetteSize(c, int64(o.maxBytes)); over {
			env.Warnf("%s: refused: cassette %s would be over %d bytes (--max-bytes; at least %d): each model_input repeats the conversation so far, as Blackbox's format does, so a long session's cassette grows with the square of its turns; import a shorter span (cc-entries --branch) or raise --max-bytes", source, id, o.maxBytes, n)
			o.failed = true
			return nil
		}
	}
	o.written++
	if o.outDir == "" {
		if err := writeValue(env, c.Header); err != nil {
			return err
		}
		var buf []byte // one buffer for all steps: an import writes many times its input
		for _, s := range c.Steps {
			var err error
			if buf, err = cassette.AppendJS(buf[:0], s); err == nil {
				err = env.Out.WriteJSON(buf)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	name := strings.NewReplacer("/", "_", "\\", "_").Replace(id)
	if name == "" || name == "." || name == ".." {
		name = "imported"
	}
	if o.usedIDs[name] {
		return fmt.Errorf("two cassettes with the id %q; nothing written for the second", id)
	}
	o.usedIDs[name] = true
	path := filepath.Join(o.outDir, name+".ndjson")
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	w := cassette.NewWriter(f)
	err = w.WriteCassette(c)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return env.Out.Write(importRecord{ID: id, Path: path, Source: source, Steps: len(c.Steps), Status: rep.Status, Tools: cassette.ToolSequence(c)})
}
