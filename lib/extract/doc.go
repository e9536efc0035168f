// Package extract turns Claude Code transcript entries into facts: the
// prompts, assistant texts, tool calls joined with their results, shell
// commands with exit codes, files touched, subagent runs, failures, token
// usage, compactions and the readable conversation of a session.
//
// An Extractor is fed entries in file order (Entry, then EndFile at the end
// of each transcript) or reads transcripts itself (ReadTranscript, the
// fast path). It emits one fact per call of its emit function, in the file
// order of the entry each fact comes from. State is bounded: tool calls
// still waiting for their result, background subagents still running, and
// the message keys usage has counted.
//
// The package holds no I/O policy of a command: it never writes to a
// transcript, never reads stdin, and reports skipped lines through
// Options.Warn.
package extract
