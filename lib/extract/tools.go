package extract

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/ccpipe/ccpipe/lib/hooks"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// Tool is a tools fact: one tool call joined with its result.
type Tool struct {
	Base
	ToolUseID string          `json:"tool_use_id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	// Result is the result's text; null when the transcript has none (the
	// session was cut, or a hook deferred the call).
	Result      *string `json:"result"`
	IsError     bool    `json:"is_error"`
	Denied      *Denial `json:"denied"`
	Interrupted bool    `json:"interrupted"`
	// PersistedOutputPath is the file under tool-results/ holding an
	// output too large to keep inline.
	PersistedOutputPath *string `json:"persisted_output_path"`
	// PersistedOutputLocalPath is that file beside the transcript read
	// (moved config dirs, archives); null when not there.
	PersistedOutputLocalPath *string `json:"persisted_output_local_path"`
	ResultUUID               *string `json:"result_uuid"`
	ResultTimestamp          *string `json:"result_timestamp"`
	// Response is the result record's toolUseResult (not printed): the
	// tool_response of a PostToolUse payload, for cc-hook backtest.
	Response json.RawMessage `json:"-"`
	// resultJSON stands for Result (then nil) with Options.JSONOnly: the
	// text as the JSON string the transcript wrote, which AppendJSON
	// copies out when it is what encoding/json writes for it.
	resultJSON []byte
}

// AppendJSON writes t as encoding/json does (ndjson.Appender): tools
// writes hundreds of MB of these, and reflection was a sixth of its time.
// TestToolAppendJSON keeps the two byte-identical.
func (t Tool) AppendJSON(dst []byte) ([]byte, bool) {
	dst = t.Base.appendJSON(append(dst, '{'))
	dst = append(dst, `,"tool_use_id":`...)
	dst = ndjson.AppendString(dst, t.ToolUseID)
	dst = append(dst, `,"name":`...)
	dst = ndjson.AppendString(dst, t.Name)
	dst = append(dst, `,"input":`...)
	dst, ok := ndjson.AppendRaw(dst, t.Input)
	if !ok {
		return dst, false
	}
	dst = append(dst, `,"result":`...)
	switch {
	case t.resultJSON == nil:
		dst = appendStrp(dst, t.Result)
	case ndjson.Canonical(t.resultJSON):
		dst = append(dst, t.resultJSON...)
	default:
		dst = ndjson.AppendString(dst, jsonscan.StringOf(t.resultJSON))
	}
	dst = appendBool(append(dst, `,"is_error":`...), t.IsError)
	dst = append(dst, `,"denied":`...)
	if d := t.Denied; d == nil {
		dst = append(dst, "null"...)
	} else {
		dst = ndjson.AppendString(append(dst, `{"by":`...), d.By)
		dst = appendStrp(append(dst, `,"kind":`...), d.Kind)
		dst = ndjson.AppendString(append(dst, `,"reason":`...), d.Reason)
		dst = append(dst, '}')
	}
	dst = appendBool(append(dst, `,"interrupted":`...), t.Interrupted)
	dst = appendStrp(append(dst, `,"persisted_output_path":`...), t.PersistedOutputPath)
	dst = appendStrp(append(dst, `,"persisted_output_local_path":`...), t.PersistedOutputLocalPath)
	dst = appendStrp(append(dst, `,"result_uuid":`...), t.ResultUUID)
	dst = appendStrp(append(dst, `,"result_timestamp":`...), t.ResultTimestamp)
	return append(dst, '}'), true
}

// Shell is a shell fact: a Bash or PowerShell call.
type Shell struct {
	Base
	ToolUseID   string  `json:"tool_use_id"`
	Tool        string  `json:"tool"`
	Command     string  `json:"command"`
	Description *string `json:"description"`
	// ExitCode is 0 on success, N from the "Exit code N" line of a
	// failure, null when unknown (no result, denied, interrupted, running
	// in the background, or an error without the line).
	ExitCode                 *int    `json:"exit_code"`
	IsError                  bool    `json:"is_error"`
	Output                   *string `json:"output"`
	Background               bool    `json:"background"`
	BackgroundTaskID         *string `json:"background_task_id"`
	Denied                   *Denial `json:"denied"`
	Interrupted              bool    `json:"interrupted"`
	PersistedOutputPath      *string `json:"persisted_output_path"`
	PersistedOutputLocalPath *string `json:"persisted_output_local_path"`
	ResultUUID               *string `json:"result_uuid"`
}

// File is a files fact: one file a tool read or changed.
type File struct {
	Base
	Path string `json:"path"`
	// Operation is read, edit, write, create or notebook-edit.
	Operation string `json:"operation"`
	Tool      string `json:"tool"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
}

// FileSummary is a files --unique fact: every operation on one path. Its
// head is the entry of the first one.
type FileSummary struct {
	Base
	Path       string   `json:"path"`
	Operations []string `json:"operations"`
	Tools      []string `json:"tools"`
	Count      int      `json:"count"`
	Errors     int      `json:"errors"`
	// LastTimestamp is the timestamp of the last operation.
	LastTimestamp *string `json:"last_timestamp"`
}

type toolsKind struct {
	x      *Extractor
	j      *joiner
	unique map[string]*FileSummary
	order  []*FileSummary
	// names are the needles of the tools the kind reports (nil: all).
	names [][]byte
	// inPlace: results that cannot fail are answered by the line filter
	// (answer) with its walk.
	inPlace bool
	walker  walker
	// chunk holds the lines of the tools facts written out at once (a
	// result borrowed from the reader's line: emitBorrowed).
	chunk []byte
}

func newToolsKind(x *Extractor) *toolsKind {
	h := &toolsKind{x: x, inPlace: answersInPlace(x.opts)}
	switch x.opts.Kind {
	case "tools":
		h.j = newJoiner(&x.copies, h.tool, nil)
	case "shell":
		h.j = newJoiner(&x.copies, h.shell, func(name string) bool { return name == "Bash" || name == "PowerShell" })
		h.names = quoted("Bash", "PowerShell")
	case "files":
		h.j = newJoiner(&x.copies, h.file, func(name string) bool { _, ok := fileOps[name]; return ok })
		for name := range fileOps {
			h.names = append(h.names, quoted(name)...)
		}
		h.unique = map[string]*FileSummary{}
	}
	return h
}

func (h *toolsKind) entry(o *Origin, e *transcript.Entry) error {
	h.j.borrowed = h.x.borrowed
	return h.j.entry(o, e)
}
func (h *toolsKind) endFile() error { return h.j.flush() }

func (h *toolsKind) finish() error {
	for _, s := range h.order {
		if err := h.x.emit(s); err != nil {
			return err
		}
	}
	h.order, h.unique = nil, map[string]*FileSummary{}
	return nil
}

// failed reports whether a call went wrong: an error, a refusal or an
// interruption.
func failed(c *call) bool {
	return c.res != nil && (c.res.isError || c.res.denial() != nil || c.res.interrupted())
}

func (h *toolsKind) tool(c *call) error {
	if h.x.opts.Errors && !failed(c) {
		return nil
	}
	t := Tool{Base: c.base, ToolUseID: c.id, Name: c.name, Input: c.input}
	if r := c.res; r != nil {
		t.IsError, t.Denied, t.Interrupted = r.isError, r.denial(), r.interrupted()
		t.PersistedOutputPath, t.PersistedOutputLocalPath = r.persistedPath(), r.localPersistedPath()
		t.ResultUUID, t.ResultTimestamp = r.base.UUID, r.base.Timestamp
		t.Response = r.tur
		// Last: the checks above decode the text only when they must.
		if h.x.opts.JSONOnly && r.textJSON != nil {
			t.resultJSON = r.textJSON
		} else {
			t.Result = new(r.txt())
		}
		if r.borrowed {
			return h.emitBorrowed(t)
		}
	}
	return h.x.emit(t)
}

// emitBorrowed emits t, whose result is borrowed from the line being
// taken, as its line of JSON, written now (what the output writes of t,
// as the cache's records are: encodedOut) into chunk: the result's bytes
// are copied once, into the line, not first out of the reader's line.
func (h *toolsKind) emitBorrowed(t Tool) error {
	const chunkSize = 64 << 10
	need := 1024 + len(t.Input) + len(t.resultJSON) + lenp(t.Result)
	if cap(h.chunk)-len(h.chunk) < need {
		h.chunk = make([]byte, 0, max(chunkSize, need))
	}
	start := len(h.chunk)
	b, ok := t.AppendJSON(h.chunk)
	if !ok {
		// encoding/json writes it, later: t keeps copies.
		h.chunk = b[:start]
		t.resultJSON, t.Response = bytes.Clone(t.resultJSON), bytes.Clone(t.Response)
		return h.x.emit(t)
	}
	h.chunk = b
	return h.x.emit(&encodedFact{line: b[start:len(b):len(b)], ts: deref(t.Timestamp)})
}

const noOutput = "(Bash completed with no output)"

func (h *toolsKind) shell(c *call) error {
	if c.name != "Bash" && c.name != "PowerShell" {
		return nil
	}
	var in hooks.ShellInput // one model of a tool's input, for hooks and transcripts
	if !readObject(c.input, []objField{{name: "command", str: &in.Command}, {name: "description", str: &in.Description},
		{name: "run_in_background", b: &in.RunInBackground}}) {
		in = hooks.ShellInput{}
		decodeObject(c.input, &in)
	}
	s := Shell{Base: c.base, ToolUseID: c.id, Tool: c.name, Command: in.Command,
		Description: str(in.Description), Background: in.RunInBackground}
	if r := c.res; r != nil {
		info := r.info()
		s.IsError, s.Denied, s.Interrupted = r.isError, r.denial(), r.interrupted()
		s.PersistedOutputPath, s.ResultUUID = r.persistedPath(), r.base.UUID
		s.PersistedOutputLocalPath = r.localPersistedPath()
		s.BackgroundTaskID = str(info.BackgroundTaskID)
		if s.BackgroundTaskID != nil {
			s.Background = true
		}
		var out string // the text, decoded only where it is the output
		switch {
		case s.Denied != nil || s.Interrupted:
			out = r.txt()
		case r.isError:
			out = r.txt()
			if n, rest, ok := ExitCode(out); ok {
				s.ExitCode, out = &n, rest
			}
		case !s.Background:
			s.ExitCode = new(0)
			if stdout := info.Stdout(); stdout != nil {
				// toolUseResult keeps more of a large output than the
				// inline preview does.
				out = *stdout
				if info.Stderr != "" {
					out += "\n" + info.Stderr
				}
			} else if out = r.txt(); out == noOutput {
				out = ""
			}
		default:
			out = r.txt()
		}
		s.Output = &out
	}
	failedCall := s.IsError || s.Denied != nil || s.Interrupted || (s.ExitCode != nil && *s.ExitCode != 0)
	if h.x.opts.Errors && !failedCall {
		return nil
	}
	return h.x.emit(s)
}

// fileInput holds the path fields of the file tools.
type fileInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
}

var fileOps = map[string]string{
	"Read": "read", "Edit": "edit", "MultiEdit": "edit", "Write": "write", "NotebookEdit": "notebook-edit",
}

func (h *toolsKind) file(c *call) error {
	op, ok := fileOps[c.name]
	if !ok {
		return nil
	}
	var in fileInput
	if !readObject(c.input, []objField{{name: "file_path", str: &in.FilePath}, {name: "notebook_path", str: &in.NotebookPath}}) {
		in = fileInput{}
		decodeObject(c.input, &in)
	}
	path := in.FilePath
	if path == "" {
		path = in.NotebookPath
	}
	if path == "" {
		return nil
	}
	if op == "write" && c.res != nil && c.res.info().Type == "create" {
		op = "create"
	}
	f := File{Base: c.base, Path: path, Operation: op, Tool: c.name, ToolUseID: c.id, IsError: failed(c)}
	if !h.x.opts.Unique {
		return h.x.emit(f)
	}
	h.summarize(f)
	return nil
}

// summarize folds a file fact into its path's summary (files --unique).
// ReadTranscripts' per-file handlers emit the facts and the Extractor's
// own handler summarizes them in input order.
func (h *toolsKind) summarize(f File) {
	if !h.x.inWindow(deref(f.Timestamp)) {
		return
	}
	s := h.unique[f.Path]
	if s == nil {
		s = &FileSummary{Base: f.Base, Path: f.Path, Operations: []string{}, Tools: []string{}}
		h.unique[f.Path] = s
		h.order = append(h.order, s)
	}
	if !slices.Contains(s.Operations, f.Operation) {
		s.Operations = append(s.Operations, f.Operation)
	}
	if !slices.Contains(s.Tools, f.Tool) {
		s.Tools = append(s.Tools, f.Tool)
	}
	s.Count++
	if f.IsError {
		s.Errors++
	}
	s.LastTimestamp = f.Timestamp
}
