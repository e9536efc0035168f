package peer

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// addressChars is the receiver's rule for a `from`: at most 300
// characters from this set.
var addressChars = regexp.MustCompile(`^[A-Za-z0-9%:_/.\-]{1,300}$`)

// Address is the `from` form of a socket path: "uds:" and the path with
// every byte outside [A-Za-z0-9:_/.-] percent-encoded, as Claude Code
// writes it.
func Address(socketPath string) string {
	var b strings.Builder
	b.WriteString("uds:")
	for i := 0; i < len(socketPath); i++ {
		c := socketPath[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(":_/.-", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// ValidAddress reports whether the receiver takes a as a `from` address.
func ValidAddress(a string) bool {
	return strings.HasPrefix(a, "uds:") && addressChars.MatchString(a)
}

func validAttrAddress(a string) bool { return addressChars.MatchString(a) }

// MaxSocketPath is the longest socket path Claude Code binds (it falls
// back to a shorter dir beyond it); the kernel's own limit is 107 bytes.
const MaxSocketPath = 103

// ReplyPath is the socket a sender named label listens on for receipts
// from the session whose socket is targetSocket: in the same directory,
// which the receiver accepts as a reply address without more checks, and
// named after the label so that the label stays the sender's rate-limit
// identity across runs.
func ReplyPath(targetSocket, label string) string {
	return filepath.Join(filepath.Dir(targetSocket), "ccpipe-"+SafeLabel(label)+".sock")
}

// SafeLabel keeps [A-Za-z0-9_.-] of a label (others become -), at most 40
// characters; an empty label is "cc".
func SafeLabel(label string) string {
	s := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return r
		}
		return '-'
	}, label)
	if len(s) > 40 {
		s = s[:40]
	}
	s = strings.Trim(s, ".")
	if s == "" {
		return "cc"
	}
	return s
}
