package search

import (
	"bytes"
	"strings"

	"github.com/ccpipe/ccpipe/lib/jsonscan"
)

// What counts as content: the one list cc-grep's default mode searches
// (docs/cc-grep.md says the same in prose; TestContentTypes checks it
// against the record and attachment types Claude Code 2.1.328 writes).
//
// A transcript line is content only where it holds what was said or done
// in the session: the user's prompts, the assistant's text, thinking and
// tool inputs, the tool results, and the attachments that carry user or
// hook content. Keys, ids, metadata fields and Claude Code's own
// boilerplate (the system prompt snapshot, skill, agent and tool
// listings, the environment, reminders written into every session) are
// not. A stored tool result (<session>/tool-results/*) is content whole.

// Where a hit lies, as --matches names it.
const (
	WherePrompt     = "prompt"      // a user record's text: a prompt, a queued or injected one, a compaction summary
	WhereText       = "text"        // an assistant text block
	WhereThinking   = "thinking"    // an assistant thinking block
	WhereToolUse    = "tool_use"    // a tool call's input
	WhereToolResult = "tool_result" // a tool result, in a transcript or a stored tool-results file
	WhereAttachment = "attachment"  // an attachment of a content type
)

// contentRecords are the record types that hold content; the blocks
// searched in them are fixed by walkContent. Every other record type
// (metadata, titles, api-request copies of messages, queue operations
// that repeat a prompt, system notices) is not searched.
var contentRecords = []string{"user", "assistant", "attachment"}

// attachmentContent maps each attachment type that carries user or hook
// content to the fields searched in it: member names joined by dots,
// arrays walked through, ".*" for every string below. Only these types
// are searched; an attachment type not listed here, known or new, is not.
var attachmentContent = map[string][]string{
	// what the user typed while a turn ran
	"queued_command": {"prompt", "prompt.text"},
	// files and directories the user mentioned or selected
	"file":                   {"filename", "content.file.content", "content.file.filePath"},
	"directory":              {"path", "content"},
	"selected_lines_in_ide":  {"filename", "content"},
	"opened_file_in_ide":     {"filename"},
	"edited_text_file":       {"filename", "snippet"},
	"compact_file_reference": {"filename"},
	"pdf_reference":          {"filename"},
	"plan_file_reference":    {"planContent"},
	"mcp_resource":           {"uri", "content.contents.text"},
	// hook output and blocking errors
	"hook_success":                {"content", "stdout", "stderr"},
	"hook_non_blocking_error":     {"stdout", "stderr"},
	"hook_blocking_error":         {"blockingError", "blockingError.blockingError"},
	"hook_additional_context":     {"content"},
	"hook_system_message":         {"content"},
	"hook_error_during_execution": {"content"},
	"hook_stopped_continuation":   {"message"},
	"hook_deferred_tool":          {"toolInput.*"},
	"async_hook_response":         {"stdout", "stderr"},
	// the session's own task and todo lists
	"task_reminder": {"content.subject", "content.description"},
	"todo_reminder": {"content.content"},
}

// attachmentBoilerplate lists the attachment types Claude Code 2.1.328
// knows that are not searched: its own context (system prompt, listings,
// environment, memory and instruction files, reminders and notices),
// identical or near so in every session, or metadata without text.
var attachmentBoilerplate = []string{
	"account_memory_recall", "advisor_stripped", "advisor_tool", "agent_ask_notice", "agent_listing_delta",
	"agent_mention", "already_read_file", "artifact_opening_prefetch", "async_hook_response_batch",
	"at_mention_reference", "attention_budget", "auto_mode", "auto_mode_exit", "bash_output_audience_note",
	"batching_reminder", "batching_reminder_sent", "budget_usd", "claude_app_notice", "command_permissions",
	"context_efficiency", "context_sections", "coordinator_context", "cowork_memory_context", "credential_org",
	"critical_system_reminder", "date", "date_change", "deferred_tools_delta", "deferred_tools_record",
	"diagnostics", "dir_sync_notice", "dynamic_skill", "edited_image_file", "elapsed_time_reminder",
	"environment", "fork_briefing", "goal_status", "goals", "hook_cancelled", "hook_permission_decision",
	"hook_plugin_listing", "inlined_image_paths", "instruction_files_not_loaded", "instructions",
	"invoked_skills", "language", "linked_plugin_tools_note", "max_turns_reached", "mcp_dropped_tools_delta",
	"mcp_instructions_delta", "memory_update", "message_pdf_reads", "model", "nested_memory",
	"output_limit_note", "output_style", "output_style_instructions", "output_token_usage", "peer_mention",
	"plan_mode", "plan_mode_exit", "plan_mode_reentry", "plugin_note", "poll_events", "prefix_delta",
	"proactivity", "project_doc_reads", "projects_thread_ask", "prompt_as_file", "prompt_render_point",
	"prompt_snapshot", "read_truncation_notice", "relevant_memories", "remote_session_change",
	"repl_mcp_needs_auth", "repl_mcp_servers", "sandbox_instructions", "secondary_reminder",
	"secondary_reminder_sent", "selected_lines_in_diff", "session_context", "session_cron_carry",
	"silent_turn_reminder", "skill_listing", "skill_mention", "structured_output", "task_status",
	"team_context", "teammate_mailbox", "teammate_shutdown_batch", "thinking_drop", "thinking_stripped",
	"thread_state", "token_usage", "tool_host_result_lines", "tool_hosts_correction", "tool_hosts_notice",
	"tool_offer_record", "tool_results_cut", "tool_search_usage_reminder", "total_tokens_reminder",
	"ultra_effort_enter", "ultra_effort_exit", "ultrathink_effort", "unknown_command_fallback",
	"whole_texts_withdrawn", "widget_context_hint", "withheld_memory", "workflow_keyword_request",
	"workflow_size_guideline_change",
}

// metaBoilerplate starts the text of the meta user records Claude Code
// writes before every local slash command: an instruction, not content.
const metaBoilerplate = "<local-command-caveat>"

// The fixed texts Claude Code 2.1.328 wraps a compaction summary in (the
// user record with isCompactSummary; found in the binary, where the
// summary is built): a preamble, a reminder listing the tools used, the
// "Summary:" label, then after the summary paragraphs telling the model
// where the full transcript is (with "exact code snippets, error
// messages"), what was left out, and how to go on. Only the summary the
// model wrote is content (compactSummaryBody).
const (
	compactPreamble = "This session is being continued from a previous conversation that ran out of context."
	// compactWithheld is the whole text when Remote Control withheld the
	// summary: nothing in it is the session's.
	compactWithheld = compactPreamble + " The summary of that conversation is not included here"
	compactReminder = "</system-reminder>\n"
	compactLabel    = "Summary:\n"
)

// compactTails start the paragraphs Claude Code appends after a summary;
// the summary ends where the first of them begins.
var compactTails = []string{
	"\n\nIf you need specific details from before compaction",
	"\n\nNote: part of the earlier conversation was too large to include",
	"\n\nNote:\n",
	"\nContinue the conversation from where it left off",
	"\n\nThe messages after this summary are the most recent messages from before compaction",
}

// compactSummaryBody is the part of a compaction summary record's text
// the model wrote: the text without Claude Code's fixed wrapping (nil
// when all of it is wrapping). A text that does not start with the
// preamble is returned whole.
func compactSummaryBody(s []byte) []byte {
	i := bytes.Index(s, []byte(compactPreamble))
	if i < 0 || i > 1024 { // an optional note may come first
		return s
	}
	if bytes.HasPrefix(s[i:], []byte(compactWithheld)) {
		return nil
	}
	body := s[i+len(compactPreamble):]
	if j := bytes.Index(body, []byte(compactReminder)); j >= 0 {
		body = body[j+len(compactReminder):]
	} else if j := bytes.IndexByte(body, '\n'); j >= 0 {
		body = body[j+1:] // the rest of the preamble's paragraph
	} else {
		return nil
	}
	body = bytes.TrimPrefix(body, []byte(compactLabel))
	end := len(body)
	for _, t := range compactTails {
		if k := bytes.Index(body, []byte(t)); k >= 0 && k < end {
			end = k
		}
	}
	return body[:end]
}

// Place is where in a record a content string lies.
type Place struct {
	Where      string // one of the Where constants
	Tool       string // the tool's name, for tool_use and tool_result ("" when not known)
	Attachment string // the attachment type, for attachment
	Field      string // the string's field, member names joined by dots ("input.command")
}

// recordMeta is what a --matches hit tells of its record.
type recordMeta struct {
	uuid, timestamp, agentID string
}

// walkContent calls fn with every content string of one transcript line,
// decoded, in the line's order, until fn returns false. names maps
// tool_use ids to tool names (a tool_use it meets is added, when names is
// not nil). A line that is not a JSON object, or not of a content type,
// has no content; err reports a syntax error.
func walkContent(line []byte, names map[string]string, fn func(p *Place, text []byte) bool) (meta recordMeta, err error) {
	return walkContentKept(line, names, nil, fn)
}

// walkContentKept is walkContent that first asks keep about each content
// string's raw JSON bytes (quotes and escapes included), when keep is not
// nil, and neither decodes nor hands fn a string keep refuses. An
// attachment's strings are always decoded: each is kept to tell a
// repeated one (walker.seen), whether or not it holds a term. keep is
// asked about every string, right before fn gets it (if it does).
func walkContentKept(line []byte, names map[string]string, keep func(raw []byte) bool, fn func(p *Place, text []byte) bool) (meta recordMeta, err error) {
	var typ, message, attachment []byte
	var isMeta, isSummary bool
	err = jsonscan.Members(line, func(m *jsonscan.Member) error {
		switch string(m.Key) {
		case "type":
			typ = m.Value
		case "message":
			message = m.Value
		case "attachment":
			attachment = m.Value
		case "uuid":
			meta.uuid = jsonscan.StringOf(m.Value)
		case "timestamp":
			meta.timestamp = jsonscan.StringOf(m.Value)
		case "agentId":
			meta.agentID = jsonscan.StringOf(m.Value)
		case "isMeta":
			isMeta = string(m.Value) == "true"
		case "isCompactSummary":
			isSummary = string(m.Value) == "true"
		}
		return nil
	})
	if err != nil {
		return meta, err
	}
	w := walker{fn: fn, keep: keep, names: names, summary: isSummary}
	switch jsonscan.StringOf(typ) {
	case "user":
		w.user(message, isMeta)
	case "assistant":
		w.assistant(message)
	case "attachment":
		w.attachment(attachment)
	}
	return meta, nil
}

// walker hands content strings to fn until it returns false.
type walker struct {
	fn    func(p *Place, text []byte) bool
	keep  func(raw []byte) bool // walkContentKept's filter, or nil
	names map[string]string
	done  bool
	// seen holds an attachment's strings so far: a hook_success repeats
	// its stdout as content (trimmed), and a hit there is one hit.
	seen [][]byte
	// summary: the record is a compaction summary, whose prompt text is
	// searched without Claude Code's wrapping (compactSummaryBody).
	summary bool
}

func (w *walker) emit(p *Place, raw []byte) {
	if w.done || len(raw) == 0 || raw[0] != '"' {
		return
	}
	if w.keep != nil && !w.keep(raw) && p.Where != WhereAttachment {
		return
	}
	c := jsonscan.New(raw)
	s, err := c.String()
	if err != nil || len(s) == 0 {
		return
	}
	if w.summary && p.Where == WherePrompt {
		if s = compactSummaryBody(s); len(s) == 0 {
			return
		}
	}
	if p.Where == WhereAttachment {
		t := bytes.TrimSpace(s)
		for _, prev := range w.seen {
			if bytes.Equal(prev, t) {
				return
			}
		}
		w.seen = append(w.seen, t)
	}
	if !w.fn(p, s) {
		w.done = true
	}
}

// members returns the raw values of an object's members by name (the
// last of a repeated key, as a decode takes it); nil when raw is not an
// object.
func members(raw []byte, names ...string) [][]byte {
	out := make([][]byte, len(names))
	_ = jsonscan.Members(raw, func(m *jsonscan.Member) error {
		for i, n := range names {
			if string(m.Key) == n {
				out[i] = m.Value
			}
		}
		return nil
	})
	return out
}

// elems calls fn with each element of a JSON array.
func elems(raw []byte, fn func(el []byte)) {
	if len(raw) == 0 || raw[0] != '[' {
		return
	}
	c := jsonscan.New(raw)
	if c.EnterArray() != nil {
		return
	}
	for {
		ok, err := c.Elem()
		if !ok || err != nil {
			return
		}
		el, err := c.Raw()
		if err != nil {
			return
		}
		fn(el)
	}
}

func (w *walker) user(message []byte, isMeta bool) {
	content := members(message, "content")[0]
	if len(content) > 0 && content[0] == '"' {
		if isMeta && strings.HasPrefix(jsonscan.StringOf(content), metaBoilerplate) {
			return
		}
		w.emit(&Place{Where: WherePrompt, Field: "content"}, content)
		return
	}
	elems(content, func(el []byte) {
		b := members(el, "type", "text", "content", "tool_use_id")
		switch jsonscan.StringOf(b[0]) {
		case "text":
			w.emit(&Place{Where: WherePrompt, Field: "text"}, b[1])
		case "tool_result":
			p := &Place{Where: WhereToolResult, Tool: w.names[jsonscan.StringOf(b[3])], Field: "content"}
			if len(b[2]) > 0 && b[2][0] == '"' {
				w.emit(p, b[2])
				return
			}
			elems(b[2], func(inner []byte) {
				ib := members(inner, "type", "text")
				if jsonscan.StringOf(ib[0]) == "text" {
					w.emit(&Place{Where: WhereToolResult, Tool: p.Tool, Field: "content.text"}, ib[1])
				}
			})
		}
	})
}

func (w *walker) assistant(message []byte) {
	elems(members(message, "content")[0], func(el []byte) {
		b := members(el, "type", "text", "thinking", "name", "input", "id")
		switch jsonscan.StringOf(b[0]) {
		case "text":
			w.emit(&Place{Where: WhereText, Field: "text"}, b[1])
		case "thinking":
			w.emit(&Place{Where: WhereThinking, Field: "thinking"}, b[2])
		case "tool_use":
			name := jsonscan.StringOf(b[3])
			if w.names != nil {
				w.names[jsonscan.StringOf(b[5])] = name
			}
			w.all(b[4], "input", func(field string) *Place {
				return &Place{Where: WhereToolUse, Tool: name, Field: field}
			})
		}
	})
}

// all emits every string below raw (object members and array elements),
// each with the field path it lies at.
func (w *walker) all(raw []byte, path string, place func(field string) *Place) {
	if w.done || len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '"':
		w.emit(place(path), raw)
	case '[':
		elems(raw, func(el []byte) { w.all(el, path, place) })
	case '{':
		_ = jsonscan.Members(raw, func(m *jsonscan.Member) error {
			w.all(m.Value, path+"."+m.Name(), place)
			return nil
		})
	}
}

func (w *walker) attachment(raw []byte) {
	typ := jsonscan.StringOf(members(raw, "type")[0])
	for _, path := range attachmentContent[typ] {
		place := func(field string) *Place { return &Place{Where: WhereAttachment, Attachment: typ, Field: field} }
		w.path(raw, path, "", place)
	}
}

// path emits the strings at a dotted path below raw: arrays on the way
// are walked through; at the end a string, or each string of an array,
// is emitted, and with a final ".*" every string below.
func (w *walker) path(raw []byte, path, at string, place func(field string) *Place) {
	if w.done || len(raw) == 0 {
		return
	}
	if raw[0] == '[' {
		elems(raw, func(el []byte) { w.path(el, path, at, place) })
		return
	}
	if path == "*" {
		w.all(raw, at, place)
		return
	}
	if path == "" {
		if raw[0] == '"' {
			w.emit(place(at), raw)
		}
		return
	}
	name, rest, _ := strings.Cut(path, ".")
	if raw[0] != '{' {
		return
	}
	v := members(raw, name)[0]
	if at != "" {
		name = at + "." + name
	}
	w.path(v, rest, name, place)
}

// escapable reports whether JSON text may write b escaped: a quote, a
// backslash or a control character. A term holding one is not found in
// a transcript's raw bytes as typed.
func escapable(b byte) bool { return b == '"' || b == '\\' || b < 0x20 }

// prefilterTerm is the part of term the raw pass looks for in JSON
// files: the term itself, or its longest run without an escapable byte
// (a decoded string holding the term holds that run unescaped in its raw
// bytes too). "" when every byte is escapable: every line is then a
// candidate.
func prefilterTerm(term string) string {
	best := ""
	for _, run := range strings.FieldsFunc(term, func(r rune) bool { return r < 0x80 && escapable(byte(r)) }) {
		if len(run) > len(best) {
			best = run
		}
	}
	return best
}

// writesHidden reports whether a raw JSON string may write a byte that
// is not escapable as an escape: a \u escape or \/ (JSON.stringify
// writes neither but for a lone surrogate; other writers may). Without
// one, every byte of the decoded string that is not escapable is in the
// raw bytes as it is, and runs of them are runs there too.
func writesHidden(raw []byte) bool {
	for i := 0; ; i += 2 {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 || i+j+1 >= len(raw) {
			return false
		}
		i += j
		if c := raw[i+1]; c == 'u' || c == '/' {
			return true
		}
	}
}

var toolUseMarker = []byte(`"type":"tool_use"`)

// hasToolUse reports whether a line may hold a tool_use block, whose id
// and name a later tool_result hit is named by.
func hasToolUse(line []byte) bool { return bytes.Contains(line, toolUseMarker) }
