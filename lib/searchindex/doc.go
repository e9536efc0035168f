// Package searchindex is cc-grep's trigram index of the content it
// searches (lib/search's content.go), after Russ Cox's codesearch and
// zoekt: for each document (a run of whole lines of one file) the
// trigrams of its folded content, inverted into posting lists kept in
// immutable segment files under the cache dir, with a lib/cache manifest
// of what each file holds (stamp, how far indexed, which documents).
//
// The index only narrows. A term's folding (search.FoldTerm) occurs in
// the folding of any text the scan finds it in (search.AppendFold), so
// every trigram of it is in every document that holds the term; the
// documents holding all of them are read and verified by the scanner's
// own matchers (search.Scanner.RegionHolds). A session the index cannot
// answer for (a file it cannot stat, read or index, a damaged segment)
// is left to the scan, so the answer is always the scan's.
//
// Index implements search.Answerer: the search workers ask it for each
// session, and it indexes what it does not hold yet (a new file, the
// lines appended to one, a file rewritten) as it answers, writing one
// segment per run (or per segTarget of content) at the end.
package searchindex
