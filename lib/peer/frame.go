package peer

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// Protocol is the only peerProtocol value Claude Code 2.1.328 declares
// and the one this package speaks.
const Protocol = 1

// MaxLine is the receiver's limit on its unsplit buffer, in UTF-16 code
// units (JS string length): a longer line destroys the connection and
// everything still buffered on it.
const MaxLine = 1048576

// AuthAllowance is the length of an auth line with a 32-hex token and its
// newline. Real senders keep it free in every frame's budget whether they
// send the line or not, and so does CheckSize.
const AuthAllowance = 59

// Priorities a user frame can carry; the receiver's default is next.
const (
	PriorityNow   = "now"
	PriorityNext  = "next"
	PriorityLater = "later"
)

// Modes an envelope's from-mode can assert.
const (
	ModeBypass    = "bypass"
	ModePrompting = "prompting"
)

// Frame is one protocol line: a JSON object without the trailing newline.
type Frame []byte

// Message is what a user frame carries.
type Message struct {
	// Body is the text; the model sees it verbatim (inside the envelope
	// when there is one).
	Body string
	// From is the sender address ("uds:/path.sock", see Address): the
	// receiver's rate-limit key and where receipts go. Empty: the receiver
	// keys on the sender's pid and sends no receipts.
	From string
	// FromName is a display name; with it (or FromMode) the body is
	// wrapped in a <cross-session-message> envelope.
	FromName string
	// FromMode asserts the sender's permission mode (bypass, prompting).
	// Leave it empty unless it equals the receiver's mode: a mismatch makes
	// the receiver hold the message for its user.
	FromMode string
	// Priority is now, next (default) or later.
	Priority string
	// MsgID is a UUID echoed in receipts; NewMsgID makes one.
	MsgID string
}

// userFrame has the field order real senders write.
type userFrame struct {
	MsgV     int         `json:"msgV"`
	MsgID    string      `json:"msg_id,omitempty"`
	Type     string      `json:"type"`
	Message  userMessage `json:"message"`
	Priority string      `json:"priority,omitempty"`
	From     string      `json:"from,omitempty"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Content is the message.content string the frame carries: the body, or
// the envelope around it when a name or mode is given.
func (m Message) Content() string {
	if m.FromName == "" && m.FromMode == "" {
		return m.Body
	}
	return Envelope(m.From, m.FromName, m.FromMode, m.Body)
}

// UserFrame builds the message frame. It checks the priority, the mode
// and the size against the receiver's limit.
func UserFrame(m Message) (Frame, error) {
	switch m.Priority {
	case "", PriorityNow, PriorityNext, PriorityLater:
	default:
		return nil, fmt.Errorf("priority %q: want now, next or later", m.Priority)
	}
	switch m.FromMode {
	case "", ModeBypass, ModePrompting:
	default:
		return nil, fmt.Errorf("from-mode %q: want bypass or prompting", m.FromMode)
	}
	if m.From != "" && !ValidAddress(m.From) {
		return nil, fmt.Errorf("from address %q: want uds:<path> of at most 300 characters from [A-Za-z0-9%%:_/.-]", m.From)
	}
	content := m.Content()
	if content == "" {
		return nil, fmt.Errorf("empty message: the receiver ignores it")
	}
	prio := m.Priority
	if prio == "" {
		prio = PriorityNext
	}
	f, err := ndjson.Marshal(userFrame{MsgV: 1, MsgID: m.MsgID, Type: "user",
		Message: userMessage{Role: "user", Content: content}, Priority: prio, From: m.From})
	if err != nil {
		return nil, err
	}
	return f, CheckSize(f)
}

// RenameFrame asks the receiver to rename itself; the registry then shows
// the name with nameSource "peer". The receiver cleans the name (control
// characters, 200 code points) and ignores an empty or unchanged one.
func RenameFrame(name string) (Frame, error) {
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("empty name: the receiver ignores it")
	}
	f, err := ndjson.Marshal(struct {
		Type   string `json:"type"`
		Action string `json:"action"`
		Name   string `json:"name"`
	}{"control", "rename", name})
	if err != nil {
		return nil, err
	}
	return f, CheckSize(f)
}

// NotifyWhenIdleFrame subscribes from (a socket the receiver accepts as a
// reply address) to one peer_idle_notice after the receiver's current or
// next turn ends. msgID comes back as orig_msg_id.
func NotifyWhenIdleFrame(from, msgID string) (Frame, error) {
	if !ValidAddress(from) {
		return nil, fmt.Errorf("from address %q is not a uds: address", from)
	}
	return ndjson.Marshal(struct {
		Type   string `json:"type"`
		Action string `json:"action"`
		From   string `json:"from"`
		MsgID  string `json:"msg_id"`
	}{"control", "notify_when_idle", from, msgID})
}

// authLine is the optional first line of a connection. It holds the
// target's peer token: it is written to the socket and nowhere else.
func authLine(token string) Frame {
	f, _ := ndjson.Marshal(struct {
		Type  string `json:"type"`
		Token string `json:"token"`
	}{"auth", token})
	return f
}

// CheckSize refuses a frame the receiver would drop: its length in UTF-16
// code units plus AuthAllowance plus the newline must not exceed MaxLine.
// This is the real sender's rule, checked before connecting.
func CheckSize(f Frame) error {
	n := UTF16Len(f)
	if n+AuthAllowance+1 > MaxLine {
		return &TooLargeError{Size: n, Limit: MaxLine}
	}
	return nil
}

// UTF16Len is the length of b as a JS string: what the receiver counts.
func UTF16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// NewMsgID returns a random (version 4) UUID.
func NewMsgID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
