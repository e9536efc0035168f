// Package fakeapi is a fake Anthropic Messages API for running the real
// Claude Code CLI offline, as the test oracle of ccpipe.
//
// It serves POST /v1/messages (streaming SSE and plain JSON; any query such
// as ?beta=true is accepted), POST /v1/messages/count_tokens, and answers
// every other path 200 {} so the CLI never stalls.
//
// Answers come from a Script of turns. A request that offers tools takes the
// first unused turn (in script order) whose Match regexp accepts the text
// of the request's last user message; a turn without Match accepts any. A
// request without tools is a side call (title, summary, classifier) and gets
// short text, or {"title": Script.Title} when it asks for a session title;
// side calls never use up turns. When no turn is left, the answer is the
// end_turn text Script.Fallback (a compaction request gets a short
// <summary>). Tool_use ids, message ids and thinking signatures that the
// script leaves empty are derived from the turn index (toolu_fake_t003_b1,
// msg_fake_t003), so regenerated transcripts keep the same ids.
//
// Every request is recorded (Requests, WaitRequest) and optionally appended
// as JSON lines to a log (SetLog), so a test can assert what the model was
// sent: tool results, a hook's additional context, an injected message.
//
// Script file (YAML, or JSON):
//
//	turns:
//	  - blocks:
//	      - {type: thinking, thinking: "plan"}
//	      - {type: text, text: "Running it."}
//	      - {type: tool_use, name: Bash, input: {command: "echo hi"}}
//	    usage: {input_tokens: 1500, output_tokens: 120}
//	  - status: 529                       # overloaded, the CLI retries
//	  - match: "hi"                       # the tool result came back
//	    blocks: [{type: text, text: "It printed hi."}]
//
// The command go run ./lib/internal/fakeapi/cmd/fakeapi -script FILE serves a script
// for driving a real Claude Code by hand.
package fakeapi
