package main

import (
	fa "github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// invocation is one claude -p invocation of a session.
type invocation struct {
	prompt   string
	args     []string
	env      []string
	settings any
	turns    []fa.Turn
	exit     int // expected exit code
}

// session is one corpus session: a fixed id, so regenerating keeps file
// names, and the things it must contain (checked after the runs).
type session struct {
	id, project, covers string
	tools               []string
	runs                []invocation
	interactive         bool     // run with interactiveQueue instead of runs
	expect              []string // substrings the transcript dir must contain
}

func bash(cmd string) fa.Block { return fa.ToolUse("Bash", map[string]any{"command": cmd}) }

func text(s string) fa.Turn { return fa.Turn{Blocks: []fa.Block{fa.Text(s)}} }

const (
	denyJSON  = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"DENY-REASON-42: touch is forbidden here"}}`
	titleJSON = `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"Hook titled session"}}`
)

// sessions builds the corpus sessions; root-relative paths are filled in
// by the caller (project dirs are ROOT/projects/<name>).
func sessions(projectDir func(string) string, hookDir string) []session {
	alpha := projectDir("alpha")
	return []session{{
		id: "c0a1f001-0000-4000-8000-000000000001", project: "alpha",
		covers: "named with -n (custom-title); one assistant message with thinking + text + tool_use (3 records, usage repeated); " +
			"Bash success, Bash exit 1 (false), Bash exit 3 with stdout and stderr; Read, Edit, Write, Glob, Grep; " +
			"a large Bash output (seq 1 40000) stored under tool-results/",
		tools: []string{"Bash", "Read", "Edit", "Write", "Glob", "Grep"},
		runs: []invocation{{
			prompt: "Exercise every tool once, please.",
			args:   []string{"-n", "corpus-tools"},
			turns: []fa.Turn{
				{Name: "thinking+text+tool_use", Blocks: []fa.Block{
					fa.Thinking("The user wants every tool exercised. Start with a harmless echo."),
					fa.Text("I'll start with a quick shell command."),
					bash("echo hello-corpus"),
				}, Usage: &fa.Usage{InputTokens: 1500, OutputTokens: 120, CacheReadInputTokens: 300}},
				{Name: "bash exit 1", Blocks: []fa.Block{bash("false")}},
				{Name: "bash exit 3", Blocks: []fa.Block{bash("echo partial-out; echo some-err >&2; exit 3")}},
				{Name: "read", Blocks: []fa.Block{fa.ToolUse("Read", map[string]any{"file_path": alpha + "/README.md"})}},
				{Name: "edit", Blocks: []fa.Block{fa.ToolUse("Edit", map[string]any{"file_path": alpha + "/README.md",
					"old_string": "Status: draft", "new_string": "Status: reviewed"})}},
				{Name: "write", Blocks: []fa.Block{fa.ToolUse("Write", map[string]any{"file_path": alpha + "/notes.txt",
					"content": "corpus notes\nline two\n"})}},
				{Name: "glob", Blocks: []fa.Block{fa.ToolUse("Glob", map[string]any{"pattern": "**/*.go"})}},
				{Name: "grep", Blocks: []fa.Block{fa.ToolUse("Grep", map[string]any{"pattern": "func main", "output_mode": "content"})}},
				{Name: "large output", Blocks: []fa.Block{fa.Text("Now a large output."), bash("seq 1 40000")}},
				{Name: "final", Blocks: []fa.Block{fa.Text("All tools exercised.")}, Usage: &fa.Usage{InputTokens: 4200, OutputTokens: 12}},
			},
		}},
		expect: []string{"hello-corpus", `"Exit code 1"`, `Exit code 3\npartial-out\nsome-err`, "Status: reviewed",
			"notes.txt", "main.go", "<persisted-output>", "tool-results/", "corpus-tools", "All tools exercised."},
	}, {
		id: "c0a1f002-0000-4000-8000-000000000002", project: "beta",
		covers: "Agent tool: a foreground subagent (run_in_background false) and a background one (the 2.1.328 default), " +
			"each running Bash; subagents/agent-<id>.jsonl + .meta.json; the background completion <task-notification>",
		tools: []string{"Bash", "Agent"},
		runs: []invocation{{
			prompt: "Delegate two checks to subagents.",
			turns: []fa.Turn{
				{Name: "main: foreground agent", Match: "Delegate two checks", Blocks: []fa.Block{fa.ToolUse("Agent", map[string]any{
					"description": "Foreground check", "subagent_type": "general-purpose", "run_in_background": false,
					"prompt": "FG-AGENT-TASK: run echo fg-sub-ok and report."})}},
				{Name: "fg sub: bash", Match: "FG-AGENT-TASK", Blocks: []fa.Block{bash("echo fg-sub-ok")}},
				{Name: "fg sub: report", Match: "fg-sub-ok", Blocks: []fa.Block{fa.Text("Foreground report: fg-sub-ok")}},
				{Name: "main: background agent", Match: "Foreground report", Blocks: []fa.Block{fa.ToolUse("Agent", map[string]any{
					"description": "Background check", "subagent_type": "general-purpose",
					"prompt": "BG-AGENT-TASK: run echo bg-sub-ok and report."})}},
				{Name: "bg sub: bash", Match: "BG-AGENT-TASK", Blocks: []fa.Block{bash("sleep 1; echo bg-sub-ok")}},
				{Name: "bg sub: report", Match: "bg-sub-ok", Blocks: []fa.Block{fa.Text("Background report: bg-sub-ok")}},
				{Name: "main: launched", Match: "(?i)async agent launched", Blocks: []fa.Block{fa.Text("The background check is running.")}},
				{Name: "main: notification", Match: "task-notification", Blocks: []fa.Block{fa.Text("Both subagents reported.")}},
			},
		}},
		expect: []string{"fg-sub-ok", "bg-sub-ok", "<task-notification>", "Both subagents reported."},
	}, {
		id: "c0a1f003-0000-4000-8000-000000000003", project: "beta",
		covers: "two prompts (second with --resume), then /compact (-p \"/compact\" --resume): compact_boundary, isCompactSummary",
		tools:  []string{"Bash"},
		runs: []invocation{
			{prompt: "First prompt: remember the word PERIWINKLE.", turns: []fa.Turn{text("Noted: PERIWINKLE.")}},
			{prompt: "Second prompt: what was the word?", turns: []fa.Turn{text("The word was PERIWINKLE.")}},
			{prompt: "/compact", turns: []fa.Turn{{Name: "compaction", Match: "CRITICAL: Respond with TEXT ONLY", Blocks: []fa.Block{fa.Text(
				"<analysis>Two prompts about a word.</analysis>\n<summary>The user asked to remember PERIWINKLE and then asked for it back.</summary>")}}}},
		},
		expect: []string{"compact_boundary", "isCompactSummary", "PERIWINKLE"},
	}, {
		id: "c0a1f004-0000-4000-8000-000000000004", project: "gamma",
		covers: "an API error with retry: HTTP 529 (overloaded) then success, CLAUDE_CODE_MAX_RETRIES=2: system/api_error",
		runs: []invocation{{
			prompt: "Say hello despite the overload.",
			env:    []string{"CLAUDE_CODE_MAX_RETRIES=2"},
			turns:  []fa.Turn{{Name: "overloaded", Status: 529}, text("Hello after a retry.")},
		}},
		expect: []string{`"subtype":"api_error"`, "Hello after a retry."},
	}, {
		id: "c0a1f005-0000-4000-8000-000000000005", project: "gamma",
		covers: "a final API error (HTTP 400 on every request; the CLI retries a 400 five times with other parameters, then gives up): synthetic assistant record with isApiErrorMessage, exit code 1",
		runs: []invocation{{
			prompt: "This request will fail.",
			turns:  []fa.Turn{{Name: "invalid request", Match: "This request will fail", Status: 400, ErrorMessage: "fake invalid request", Times: -1}},
			exit:   1,
		}},
		expect: []string{"isApiErrorMessage", "<synthetic>"},
	}, {
		id: "c0a1f006-0000-4000-8000-000000000006", project: "gamma",
		covers: "hooks: UserPromptSubmit sessionTitle (custom-title \"Hook titled session\") and a PreToolUse deny of Bash (tool_result is_error, toolDenialKind)",
		tools:  []string{"Bash"},
		runs: []invocation{{
			prompt: "Try to touch a file.",
			settings: map[string]any{"hooks": map[string]any{
				"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
					map[string]any{"type": "command", "command": hookDir + "/deny.sh"}}}},
				"UserPromptSubmit": []any{map[string]any{"hooks": []any{
					map[string]any{"type": "command", "command": hookDir + "/title.sh"}}}},
			}},
			turns: []fa.Turn{
				{Name: "denied bash", Blocks: []fa.Block{bash("touch ran")}},
				{Name: "after deny", Match: "DENY-REASON-42", Blocks: []fa.Block{fa.Text("The hook denied it.")}},
			},
		}},
		expect: []string{"PreToolUse:Bash hook error: DENY-REASON-42", "Hook titled session", "The hook denied it."},
	}, {
		id: "c0a1f007-0000-4000-8000-000000000007", project: "gamma",
		covers: "interactive session (tmux): a prompt whose turn runs Bash sleep, a second prompt typed while busy (queued: queue-operation enqueue/remove, queued_command attachment), /exit",
		tools:  []string{"Bash"}, interactive: true,
		expect: []string{"queue-operation", "QUEUED-FOLLOW-UP", "Queue handled."},
	}}
}
