// Package search finds the Claude Code sessions that contain literal
// terms: in the main transcript, the subagent transcripts
// (<session>/subagents/*.jsonl) and the stored tool results
// (<session>/tool-results/*), compressed or not.
//
// By default a term counts only where it lies in content (content.go: what
// was said or done, not keys, ids, metadata or Claude Code's boilerplate):
// a raw pass over the session's bytes rules sessions out, then only the
// lines with a raw hit are decoded. With Options.Raw the raw bytes alone
// decide.
//
// Terms are compared on raw bytes, case-insensitively, every term under
// full Unicode case folding (Unicode's CaseFolding.txt C+F, as Python's
// str.casefold: the table in fold_table.go is generated from
// golang.org/x/text by a test and checked against python3 where it is
// installed), so STRASSE matches straße. A term whose folding is ASCII and
// that no other character can help spell keeps the fast path: a vector
// scan for two of its rarest bytes at their distance, ignoring ASCII case
// (lib/bytescan), or bytes.IndexByte on the rarest one without AVX2. Any
// other looks for the characters whose folding gives its bytes, or for a
// run of it that every occurrence holds as ASCII (matcher.go). Invalid
// UTF-8 never matches a folded term, so no match spans a broken sequence.
//
// Files are read in fixed buffers (mapping them in windows, lib/mapped, is
// kept but off: see mapMin); the search sees pieces that overlap by the
// longest possible occurrence, so memory does not grow with file size and a
// term cut by a boundary is still found. A session is read
// only until its answer is known. Pipeline runs several scanners and
// returns results in input order; SearchAll, for jobs known up front, in
// any order. The package knows nothing of the command line.
package search
