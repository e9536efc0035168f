package cassette

import "unsafe"

// unsafeBytes views s as bytes without a copy, for read-only scanning.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// unsafeString views b as a string without a copy; b must not change
// while the string is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
