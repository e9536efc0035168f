// Package transcript reads Claude Code session transcripts: the
// projects/<slug>/<session>.jsonl files, their subagent files and their
// compressed archives.
//
// It streams: one line is read, checked and handed on before the next, so
// memory is bounded by the longest line, never by the file. Each line is
// available as its raw bytes (for byte-for-byte passthrough), as a cheap
// Header of a few top-level fields (type, uuid, parentUuid, timestamp,
// sessionId, agentId) found without decoding, and, when asked, as a typed
// Entry.
//
// Decoding is tolerant: the transcript format is internal to Claude Code
// and changes between releases. A field with an unexpected JSON type reads
// as empty and is named in Entry.TypeMismatches; unknown record types and
// unknown content blocks are counted in Diagnostics, never fatal.
//
// The package never opens a transcript for writing. Archive writes only
// into the directory it is given.
package transcript
