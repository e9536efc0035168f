package cassette

import "unsafe"

// unsafeBytes views s as bytes without a copy, for read-only scanning.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
