package search

//go:generate go test -run TestFoldTable -update .

import (
	"encoding/binary"
	"sort"
	"unicode/utf8"
)

// foldPair is one entry of the generated folding table.
type foldPair struct {
	r    rune
	fold string
}

// brokenByte stands for each byte of an invalid UTF-8 sequence in folded
// text. 0xFF never occurs in valid UTF-8, so a folded term never contains it
// and no match can span a broken sequence.
const brokenByte = 0xFF

// foldRune returns r's full case folding, or "" when r folds to itself.
func foldRune(r rune) string {
	i := sort.Search(len(foldPairs), func(i int) bool { return foldPairs[i].r >= r })
	if i < len(foldPairs) && foldPairs[i].r == r {
		return foldPairs[i].fold
	}
	return ""
}

// appendFold appends the full case folding of src to dst, as Python's
// str.casefold would fold its decoded text, with each byte of an invalid
// sequence replaced by brokenByte.
func appendFold(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		// Eight ASCII bytes at a time: text dense in the term's sources
		// is folded whole, and most of it is ASCII.
		if i+8 <= len(src) {
			if x := binary.LittleEndian.Uint64(src[i:]); x&asciiHighs == 0 {
				dst = binary.LittleEndian.AppendUint64(dst, lowerASCII8(x))
				i += 8
				continue
			}
		}
		if c := src[i]; c < utf8.RuneSelf {
			dst = append(dst, lowerASCII(c))
			i++
			continue
		}
		var size int
		dst, size = appendFoldRune(dst, src[i:])
		i += size
	}
	return dst
}

// appendFoldRune appends the folding of the character src starts with (not
// ASCII), brokenByte for a byte of an invalid sequence, and returns its
// size in src.
func appendFoldRune(dst, src []byte) ([]byte, int) {
	r, size := utf8.DecodeRune(src)
	if r == utf8.RuneError && size == 1 {
		return append(dst, brokenByte), 1
	}
	if f := foldRune(r); f != "" {
		return append(dst, f...), size
	}
	return append(dst, src[:size]...), size
}

const asciiHighs = 0x8080808080808080

// lowerASCII8 lowercases eight ASCII bytes: a byte from 'A' to 'Z' gets
// 0x20 added. Every byte is below 0x80, so no sum carries into the next.
func lowerASCII8(x uint64) uint64 {
	const ones = 0x0101010101010101
	geA := x + (0x80-'A')*ones       // high bit set where the byte >= 'A'
	gtZ := x + (0x80-'Z'-1)*ones     // high bit set where the byte > 'Z'
	upper := geA &^ gtZ & asciiHighs // high bit where 'A' <= byte <= 'Z'
	return x | upper>>2
}

// asciiBytes reports whether b has only ASCII bytes, eight at a time.
func asciiBytes(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&asciiHighs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
