// Package ndjson reads and writes newline-delimited JSON without a line
// length cap: a line is as long as it is (a 300 MB tool output included),
// and memory is bounded by the longest line, never by the file.
//
// A final line without a newline is reported as incomplete (a transcript
// being written), not as malformed.
package ndjson
