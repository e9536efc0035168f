package secrets

import (
	"bytes"
	"sort"
)

// Terminal colour and invisible characters: a key copied from a terminal
// (`grep --color=always sk-ant .env` wraps the match in SGR sequences) or
// from a page (a zero-width space inside it) is still the key to whoever
// strips them. Every search of a Set looks through them: the rules run on
// the text without them, and a match's offsets are mapped back to the
// bytes given, so that a redaction covers the key with every escape
// inside it.
//
// Seen through: ECMA-48 escape sequences (CSI "ESC [ ... final", OSC
// "ESC ] ... BEL or ESC \", the two-byte ones "ESC x" and nF "ESC
// intermediates final"), the 8-bit CSI (U+009B), and the zero-width or
// invisible characters U+200B-U+200D, U+2060, U+FEFF and U+00AD (soft
// hyphen). Not decoded: base64, URL (percent) encoding, HTML entities,
// keys split across JSON strings or lines; a secret written as an object
// key is not a string value and is not scanned in JSON records.

// invisibleAt is the offset of the first byte that may start an escape
// sequence or an invisible character, or -1.
func invisibleAt(b []byte) int {
	first := -1
	if i := bytes.IndexByte(b, 0x1b); i >= 0 {
		first = i
	}
	// Every invisible character but ESC is two or three UTF-8 bytes led
	// by 0xC2, 0xE2 or 0xEF: look only where one of those occurs.
	for _, lead := range [...]byte{0xC2, 0xE2, 0xEF} {
		rest := b
		if first >= 0 {
			rest = b[:first]
		}
		for off := 0; ; {
			i := bytes.IndexByte(rest[off:], lead)
			if i < 0 {
				break
			}
			if invisibleLen(rest, off+i) > 0 {
				first = off + i
				break
			}
			off += i + 1
		}
	}
	return first
}

// invisibleLen is the length of the invisible character at b[i], 0 when
// there is none.
func invisibleLen(b []byte, i int) int {
	switch {
	case i+1 < len(b) && b[i] == 0xC2 && (b[i+1] == 0xAD || b[i+1] == 0x9B):
		if b[i+1] == 0x9B { // 8-bit CSI: its parameters follow
			return 2 + csiBody(b[i+2:])
		}
		return 2
	case i+2 < len(b) && b[i] == 0xE2 && b[i+1] == 0x80 && b[i+2] >= 0x8B && b[i+2] <= 0x8D,
		i+2 < len(b) && b[i] == 0xE2 && b[i+1] == 0x81 && b[i+2] == 0xA0,
		i+2 < len(b) && b[i] == 0xEF && b[i+1] == 0xBB && b[i+2] == 0xBF:
		return 3
	case b[i] == 0x1b:
		return escLen(b[i:])
	}
	return 0
}

// maxEscape bounds one escape sequence: a lone ESC before ordinary text
// never swallows more than this.
const maxEscape = 256

// escLen is the length of the escape sequence at b[0] (ESC): at least 1.
func escLen(b []byte) int {
	if len(b) < 2 {
		return 1
	}
	switch c := b[1]; {
	case c == '[':
		return 2 + csiBody(b[2:])
	case c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X':
		// OSC, DCS, APC, PM, SOS: a string ended by BEL or ST (ESC \).
		for j := 2; j < len(b) && j < maxEscape; j++ {
			if b[j] == 0x07 {
				return j + 1
			}
			if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
				return j + 2
			}
		}
		return 1
	case c >= 0x20 && c <= 0x2F: // nF: intermediates, then a final byte
		j := 1
		for j < len(b) && j < maxEscape && b[j] >= 0x20 && b[j] <= 0x2F {
			j++
		}
		if j < len(b) && b[j] >= 0x30 && b[j] <= 0x7E {
			return j + 1
		}
		return 1
	case c >= 0x30 && c <= 0x7E: // Fp, Fe, Fs: ESC and one byte
		return 2
	}
	return 1
}

// csiBody is the length of a CSI sequence's parameters, intermediates
// and final byte (0 when they are not one).
func csiBody(b []byte) int {
	j := 0
	for j < len(b) && j < maxEscape && b[j] >= 0x30 && b[j] <= 0x3F {
		j++
	}
	for j < len(b) && j < maxEscape && b[j] >= 0x20 && b[j] <= 0x2F {
		j++
	}
	if j < len(b) && b[j] >= 0x40 && b[j] <= 0x7E {
		return j + 1
	}
	return 0
}

// visible returns b without its escape sequences and invisible
// characters (from first, invisibleAt's answer), and the map from an
// offset in it back to one in b. The map holds one entry per run of
// bytes left out, not one per byte: a 200 MB tool output with colour in
// it costs one more copy of itself, not five. With inPlace the text is
// written over b (each kept byte moves down, never up) and costs nothing.
func visible(b []byte, first int, inPlace bool) ([]byte, gaps) {
	out := b[:first]
	if !inPlace {
		out = append(make([]byte, 0, len(b)), b[:first]...)
	}
	var g gaps
	for i := first; i < len(b); {
		n := invisibleLen(b, i)
		if n == 0 {
			out = append(out, b[i])
			i++
			continue
		}
		i += n
		for i < len(b) {
			if n = invisibleLen(b, i); n == 0 {
				break
			}
			i += n
		}
		g = append(g, gap{kept: len(out), at: i})
	}
	return out, g
}

// gaps maps offsets in visible's text back to b: each entry says that the
// kept byte kept (and those after it, up to the next entry) came from
// at, at+1, ... in b.
type gaps []gap

type gap struct{ kept, at int }

// orig is the offset in b of the k-th byte kept.
func (g gaps) orig(k int) int {
	// The last entry at or before k.
	i := sort.Search(len(g), func(i int) bool { return g[i].kept > k }) - 1
	if i < 0 {
		return k
	}
	return g[i].at + k - g[i].kept
}
