// Package proxy is the loopback proxy behind cc-cassette record, replay
// and fork: it runs a command (Claude Code, or any client of the Anthropic
// Messages or OpenAI Chat Completions API) with its base URL pointed at a
// local server (Listen, ChildEnv, RunChild) and turns each model call into
// cassette steps in the provider-neutral shape Blackbox uses
// (AnthropicInput/Output, OpenAIInput/Output, with stable call ids from
// IDs).
//
// A Session is one proxied run in one Mode: Record forwards each call
// upstream and records it; Replay answers from a cassette's steps and
// fails the call at the first difference (FirstDifference, after Normalize
// drops volatile fields and --ignore paths); Fork replays up to a
// tool_result step, swaps in a new result, then goes on live or from a
// script of replies. Run ties it together: it starts the server and the
// child, waits, and writes the cassette (Build, Encode) only when the run
// could be recorded whole. Side calls (count_tokens, titles) are kept apart
// from the main loop.
package proxy
