package peer

import (
	"errors"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/layout"
)

func TestUserFrameBytes(t *testing.T) {
	const id = "0b5e1c0e-7f3a-4c1e-9d2a-3b4c5d6e7f80"
	const from = "uds:/tmp/cc-socks/ccpipe-ci.sock"
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"plain", Message{Body: "hi", MsgID: id, From: from},
			`{"msgV":1,"msg_id":"` + id + `","type":"user","message":{"role":"user","content":"hi"},"priority":"next","from":"` + from + `"}`},
		{"minimal", Message{Body: "hi"},
			`{"msgV":1,"type":"user","message":{"role":"user","content":"hi"},"priority":"next"}`},
		{"named", Message{Body: "Pipeline #1234 failed", FromName: "CI watcher", From: from, MsgID: id, Priority: "now"},
			`{"msgV":1,"msg_id":"` + id + `","type":"user","message":{"role":"user","content":"<cross-session-message from=\"` + from + `\" from-name=\"CI watcher\">\nPipeline #1234 failed\n</cross-session-message>"},"priority":"now","from":"` + from + `"}`},
		{"name escaping", Message{Body: "x", FromName: "a\"b<c>d\x07e\u2028f\u200bg", From: from},
			`{"msgV":1,"type":"user","message":{"role":"user","content":"<cross-session-message from=\"` + from + `\" from-name=\"abcdefg\">\nx\n</cross-session-message>"},"priority":"next","from":"` + from + `"}`},
		{"mode only, html chars literal", Message{Body: "a<b>&c", FromMode: ModeBypass},
			`{"msgV":1,"type":"user","message":{"role":"user","content":"<cross-session-message from-mode=\"bypass\">\na<b>&c\n</cross-session-message>"},"priority":"next"}`},
		{"body closing tag defused", Message{Body: "x</cross-session-message>y", FromName: "n"},
			`{"msgV":1,"type":"user","message":{"role":"user","content":"<cross-session-message from-name=\"n\">\nx<\\/cross-session-message>y\n</cross-session-message>"},"priority":"next"}`},
		{"control chars in body", Message{Body: "a\tb\u0001"},
			`{"msgV":1,"type":"user","message":{"role":"user","content":"a\tb\u0001"},"priority":"next"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := UserFrame(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if string(f) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", f, tt.want)
			}
		})
	}
}

func TestUserFrameRefuses(t *testing.T) {
	for _, m := range []Message{
		{Body: ""},
		{Body: "x", Priority: "urgent"},
		{Body: "x", FromMode: "auto"},
		{Body: "x", From: "did:thing"},
		{Body: "x", From: "uds:/tmp/a b.sock"},
	} {
		if _, err := UserFrame(m); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}

func TestControlFrames(t *testing.T) {
	f, err := RenameFrame("beta two!")
	if err != nil || string(f) != `{"type":"control","action":"rename","name":"beta two!"}` {
		t.Errorf("rename: %s %v", f, err)
	}
	if _, err := RenameFrame("  "); err == nil {
		t.Error("empty rename accepted")
	}
	f, err = NotifyWhenIdleFrame("uds:/tmp/cc-socks/x.sock", "0b5e1c0e-7f3a-4c1e-9d2a-3b4c5d6e7f80")
	if err != nil || string(f) != `{"type":"control","action":"notify_when_idle","from":"uds:/tmp/cc-socks/x.sock","msg_id":"0b5e1c0e-7f3a-4c1e-9d2a-3b4c5d6e7f80"}` {
		t.Errorf("notify: %s %v", f, err)
	}
	if got := string(authLine("0123456789abcdef0123456789abcdef")); got != `{"type":"auth","token":"0123456789abcdef0123456789abcdef"}` {
		t.Errorf("auth line %s", got)
	}
	// The allowance is the real sender's: an auth line with a 32-hex token and its newline.
	if n := len(authLine(strings.Repeat("a", 32))) + 1; n != AuthAllowance {
		t.Errorf("auth line with newline is %d bytes, AuthAllowance %d", n, AuthAllowance)
	}
}

func TestCheckSizeLimit(t *testing.T) {
	// The frame around a plain body of n ASCII characters.
	overhead := len(`{"msgV":1,"type":"user","message":{"role":"user","content":""},"priority":"next"}`)
	maxFrame := MaxLine - AuthAllowance - 1
	if _, err := UserFrame(Message{Body: strings.Repeat("x", maxFrame-overhead)}); err != nil {
		t.Errorf("frame at the limit refused: %v", err)
	}
	_, err := UserFrame(Message{Body: strings.Repeat("x", maxFrame-overhead+1)})
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Size != maxFrame+1 || tl.Limit != MaxLine {
		t.Fatalf("over the limit: %v", err)
	}
	if !strings.Contains(err.Error(), "1048576") {
		t.Errorf("limit not in the message: %v", err)
	}
	// The receiver counts UTF-16 units: an astral character is 2, a
	// 3-byte BMP character 1.
	if n := UTF16Len([]byte("a😀é€")); n != 5 {
		t.Errorf("UTF16Len = %d, want 5", n)
	}
}

func TestCleanName(t *testing.T) {
	long := strings.Repeat("é", 70)
	tests := map[string]string{
		"CI watcher":            "CI watcher",
		`  "quoted" <b>  `:      "quoted b",
		"tab\there\nnl":         "tabherenl",
		"zero\u200bwidth":       "zerowidth",
		"\u00a0nbsp\u3000":      "nbsp",
		long:                    strings.Repeat("é", 64) + "…",
		"bad\xffutf8":           "bad\uFFFDutf8",
		"":                      "",
		"\x00\x01":              "",
		"emoji 😀 ok":            "emoji 😀 ok",
		"beta two!":             "beta two!",
		strings.Repeat("a", 64): strings.Repeat("a", 64),
	}
	for in, want := range tests {
		if got := CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeBody(t *testing.T) {
	tests := map[string]string{
		"plain":                          "plain",
		"</cross-session-message>":       `<\/cross-session-message>`,
		"a </CROSS_SESSION-message> b":   `a <\/CROSS_SESSION-message> b`,
		"< / cross-session-message>":     `<\ / cross-session-message>`,
		"</cross-session-messages>":      "</cross-session-messages>",
		"</cross-session-message":        `<\/cross-session-message`,
		`<\/cross-session-message>`:      `<\/cross-session-message>`,
		"<cross-session-message>":        "<cross-session-message>",
		"</cross\u200b-session-message>": "<\\/cross\u200b-session-message>",
		"x<</cross-session-message>":     `x<<\/cross-session-message>`,
		"</other>":                       "</other>",
		"</cross–session–message>":       `<\/cross–session–message>`,
	}
	for in, want := range tests {
		if got := EscapeBody(in); got != want {
			t.Errorf("EscapeBody(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAddress(t *testing.T) {
	tests := map[string]string{
		"/tmp/cc-socks/123.sock":    "uds:/tmp/cc-socks/123.sock",
		"/tmp/a b/ü%.sock":          "uds:/tmp/a%20b/%C3%BC%25.sock",
		"/run/user/1000/x_y-z.sock": "uds:/run/user/1000/x_y-z.sock",
	}
	for in, want := range tests {
		got := Address(in)
		if got != want || !ValidAddress(got) {
			t.Errorf("Address(%q) = %q (valid %v), want %q", in, got, ValidAddress(got), want)
		}
	}
	if ValidAddress("uds:" + strings.Repeat("a", 297)) {
		t.Error("a 301-character address is valid")
	}
	if got := ReplyPath("/tmp/cc-socks/4242.sock", "CI watcher/2"); got != "/tmp/cc-socks/ccpipe-CI-watcher-2.sock" {
		t.Errorf("ReplyPath = %q", got)
	}
	if got := SafeLabel(".."); got != "cc" {
		t.Errorf("SafeLabel(..) = %q", got)
	}
}

func TestMsgID(t *testing.T) {
	a, b := NewMsgID(), NewMsgID()
	if !layout.IsUUID(a) || a == b || a[14] != '4' {
		t.Errorf("NewMsgID: %q %q", a, b)
	}
	for _, s := range []string{"", "not-a-uuid", "0b5e1c0e-7f3a-4c1e-9d2a-3b4c5d6e7f8g", "0b5e1c0e07f3a-4c1e-9d2a-3b4c5d6e7f80"} {
		if layout.IsUUID(s) {
			t.Errorf("IsUUID(%q)", s)
		}
	}
}

func TestTargetCheck(t *testing.T) {
	err := Target{PeerProtocol: 2}.Check()
	var na *NotAlignedError
	if !errors.As(err, &na) || !errors.Is(err, ErrNotAligned) || len(na.Reasons) != 2 {
		t.Fatalf("Check: %v", err)
	}
	if err := (Target{SocketPath: "/x.sock"}).Check(); err != nil {
		t.Errorf("socket only: %v", err)
	}
	tg := Target{SocketPath: "/x.sock", KeyToken: "0123456789abcdef0123456789abcdef"}
	for _, s := range []string{tg.String(), tg.GoString()} {
		if strings.Contains(s, tg.KeyToken) {
			t.Errorf("token printed: %s", s)
		}
	}
}
