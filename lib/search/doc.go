// Package search finds the Claude Code sessions that contain literal
// terms: in the main transcript, the subagent transcripts
// (<session>/subagents/*.jsonl) and the stored tool results
// (<session>/tool-results/*), compressed or not.
//
// Terms are compared on raw bytes, case-insensitively: an ASCII term
// ignores ASCII case only (the fast path: a vector scan for two of its
// rarest bytes at their distance, lib/bytescan, or bytes.IndexByte on the
// rarest one without AVX2); any other term under full Unicode case
// folding (Unicode's CaseFolding.txt C+F, as Python's str.casefold: the
// table in fold_table.go is generated from golang.org/x/text by a test
// and checked against python3 where it is installed). Invalid UTF-8 never matches a
// folded term, so no match spans a broken sequence.
//
// A big plain file is mapped in windows of a few MiB (lib/mapped), anything
// else read in fixed buffers; either way the search sees pieces that
// overlap by the longest possible occurrence, so memory does not grow with
// file size and a term cut by a boundary is still found. A session is read
// only until its answer is known. Pipeline runs several scanners and
// returns results in input order; SearchAll, for jobs known up front, in
// any order. The package knows nothing of the command line.
package search
