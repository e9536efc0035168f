// Package hooks is for writing Claude Code hooks in Go: it parses the JSON
// payload a hook gets on stdin into one typed value per event (all 33
// events of Claude Code 2.1.328, plus UnknownEvent), builds replies that are
// checked against the 2.1.328 reply schema before they are printed, and
// runs handlers with a defined failure policy.
//
// ParseStatusLine reads the statusLine payload (the status line
// command's stdin) as tolerantly, with the same decoder.
//
// Parsing is tolerant because the hooks reference grows every few releases:
// unknown fields stay in Raw and are named in UnknownFields, and a field of
// an unexpected JSON type reads as empty and is named in TypeMismatches.
//
// The package is on the hot path (a hook process starts before every tool
// call it matches), so it does no work at init and imports neither the
// transcript reader nor the session registry; lib/hooks/link loads those
// when a handler asks for them.
//
// It never writes to a transcript and never imports lib/cli.
package hooks
