// Package bytescan finds bytes in memory faster than a loop over them: a
// pair of bytes at a fixed distance (IndexPair), each compared exactly or
// ignoring ASCII case, sixteen or thirty-two positions at a time on amd64.
// cc-grep looks for a term's two rarest bytes with it, and the transcript
// type prefilter for a quote followed by a type name's first letter: one
// scan step per block instead of a call per hit of a common byte.
package bytescan
