package jsonscan

// AppendString appends s as a JSON string: quoted, with AppendEscaped's
// escapes. It is ccpipe's one JSON string escaper (lib/cassette adds only
// what JavaScript's JSON.stringify does to ill-formed UTF-8).
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped appends the body of s as a JSON string, without the
// quotes: '"' and '\\' escaped, \b \f \n \r \t, the other control bytes
// as \u00xx (lowercase hex), every other byte as it is (so U+2028,
// U+2029 and '/' stay raw, as JSON.stringify writes them, and bytes that
// are not UTF-8 are copied, not repaired).
func AppendEscaped[S ~string | ~[]byte](dst []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = AppendEscapedByte(append(dst, s[start:i]...), c)
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// AppendEscapedByte appends the escape of c, '"', '\\' or a control byte,
// as JSON.stringify and encoding/json both write it: \" \\ \b \f \n \r
// \t, the other control bytes as \u00xx in lowercase hex.
func AppendEscapedByte(dst []byte, c byte) []byte {
	const hexDigits = "0123456789abcdef"
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
}
