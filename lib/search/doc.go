// Package search finds the Claude Code sessions that contain literal
// terms: in the main transcript, the subagent transcripts
// (<session>/subagents/*.jsonl) and the stored tool results
// (<session>/tool-results/*), compressed or not.
//
// Terms are compared on raw bytes, case-insensitively: an ASCII term
// ignores ASCII case only (the fast path: bytes.IndexByte on the term's
// rarest byte, or a two-byte SWAR scan when every byte is common); any
// other term under full Unicode case folding, exactly as Python's
// str.casefold (the table in fold_table.go is generated from it). Invalid
// UTF-8 never matches a folded term, so no match spans a broken sequence.
//
// Files are read in fixed buffers that overlap by the longest possible
// occurrence, so memory does not grow with file size and a term cut by a
// read boundary is still found. A session is read only until its answer
// is known. Pipeline runs several scanners and returns results in input
// order. The package knows nothing of the command line.
package search
