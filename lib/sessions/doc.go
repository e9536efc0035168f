// Package sessions lists Claude Code sessions, past and running: the
// transcripts under every profile's projects dir, the running sessions of
// every profile's registry, and the join of the two by session id. It also
// finds one session from a query (address, name, id, pid, id prefix) and the
// session a tool was started from (Current).
//
// Listing reads only a bounded head and tail of each transcript, so its cost
// does not grow with transcript size. Compressed archives are the exception
// for the tail: a .gz or .zst stream can only be read from its start.
//
// Nothing here writes: not to a transcript, not to a registry, not under a
// config dir.
package sessions
