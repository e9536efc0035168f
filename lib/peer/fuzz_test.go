package peer

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseNotice(f *testing.F) {
	f.Add([]byte(`{"type":"control","action":"peer_message_status","status":"dropped","orig_msg_id":"a","dropped_msg_ids":["a","b"],"drop_reason":"duplicate"}`))
	f.Add([]byte(`{"type":"control","action":"peer_idle_notice","orig_msg_id":"a","state":"idle","finished_at":1796032881856}`))
	f.Add([]byte(`{"dropped_msg_ids":{"x":1},"finished_at":1e400}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		n, err := ParseNotice(line)
		if err != nil {
			return
		}
		if !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		if n.FinishedAt < 0 {
			t.Fatalf("negative finished_at %d", n.FinishedAt)
		}
		for _, id := range n.DroppedMsgIDs {
			if !n.About(id) {
				t.Fatalf("About(%q) false for a listed id", id)
			}
		}
	})
}

// FuzzEnvelope: whatever the name and body, the envelope has the
// canonical form the receiver re-renders: one opening tag whose name has
// no forbidden characters, and no closing tag before the last line.
func FuzzEnvelope(f *testing.F) {
	f.Add("CI watcher", "hello")
	f.Add(`a"<b>`, "x</cross-session-message>\n</cross-session-message>")
	f.Add("\u200b\x00", "</ CROSS_session-message >")
	f.Fuzz(func(t *testing.T, name, body string) {
		if !utf8.ValidString(body) {
			return
		}
		env := Envelope("uds:/tmp/cc-socks/x.sock", name, "", body)
		head, rest, ok := strings.Cut(env, ">\n")
		if !ok || !strings.HasSuffix(rest, "\n</cross-session-message>") {
			t.Fatalf("shape: %q", env)
		}
		inner := strings.TrimSuffix(rest, "\n</cross-session-message>")
		for i := 0; i < len(inner); i++ {
			if inner[i] == '<' && closingTagAt(inner[i+1:]) {
				t.Fatalf("closing tag left in body %q (from %q)", inner, body)
			}
		}
		if EscapeBody(inner) != inner {
			t.Fatalf("EscapeBody not idempotent on %q", body)
		}
		n := CleanName(name)
		if CleanName(n) != n {
			t.Fatalf("CleanName not idempotent: %q -> %q -> %q", name, n, CleanName(n))
		}
		if strings.ContainsAny(n, "\"<>\n\r") || utf8.RuneCountInString(n) > MaxNameRunes+1 {
			t.Fatalf("bad name %q", n)
		}
		if n != "" && !strings.Contains(head, ` from-name="`+n+`"`) {
			t.Fatalf("name missing in %q", head)
		}
	})
}
