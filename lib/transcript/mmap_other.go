//go:build !(linux || darwin || freebsd)

package transcript

import "os"

// mapping is not used where memory maps are not wired up: files are read
// as streams.
type mapping struct{ size int64 }

func newMapping(*os.File) *mapping  { return nil }
func (*mapping) next() []byte       { return nil }
func (*mapping) unmap()             {}
func (*mapping) holds(uintptr) bool { return false }
