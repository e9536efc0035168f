// Package registry reads Claude Code's session registry: the
// <config dir>/sessions/<pid>.json record every running session writes, the
// <pid>.<sha256 of socket path>.key file next to it, and whether the process
// behind a record still runs.
//
// The record shape changes between Claude Code versions, so every field but
// the pid is optional and the whole record is kept as Raw. The key file's
// peer token is a secret: it is returned only by Key.Token, for the code
// that authenticates on a socket, and never appears in any JSON form.
//
// The package only reads; it never deletes a stale record (Claude Code
// sweeps them itself when it is allowed to).
package registry
