// Package peertest provides a fake Claude Code session socket for tests
// of code that sends to one, like net/http/httptest does for HTTP.
//
// It writes the receipts as literal JSON and does not import package
// peer, so that peer's own tests can use it.
package peertest

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is what an Inbox sends back to the `from` socket of a frame.
type Reply string

// Replies an Inbox can send. The real receiver sends no receipt for a
// message it accepts normally: that is ReplyNone.
const (
	ReplyNone    Reply = ""
	ReplyHeld    Reply = "held"    // a held receipt for each user message
	ReplyDropped Reply = "dropped" // a rate-limited drop receipt for each user message
	ReplyIdle    Reply = "idle"    // an idle notice for each notify_when_idle
)

// Inbox is a fake session socket that behaves like Claude Code's: it
// reads each connection to EOF, answers nothing on it, closes it, and
// then, when told, sends a receipt or an idle notice to the frame's
// `from` socket as a new connection.
type Inbox struct {
	Path string

	t     testing.TB
	mu    sync.Mutex
	conns []string
	reply Reply
	next  chan string
}

// NewInbox listens at dir/name until the test ends.
func NewInbox(t testing.TB, dir, name string) *Inbox {
	t.Helper()
	in := &Inbox{t: t, next: make(chan string, 1024)}
	in.Path = Serve(t, filepath.Join(dir, name), in.serve)
	return in
}

// Serve listens on a Unix socket at path until the test ends and runs
// handle for each connection, one at a time: a socket that behaves as a
// test needs (one that never reads, one that closes early).
func Serve(t testing.TB, path string, handle func(c *net.UnixConn)) string {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			handle(c)
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return path
}

// Reset forgets the connections seen so far and sets the reply.
func (in *Inbox) Reset(r Reply) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.conns, in.reply = nil, r
	for len(in.next) > 0 {
		<-in.next
	}
}

// Received is what each connection carried, in order.
func (in *Inbox) Received() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.conns...)
}

// Next waits for the next connection and returns what it carried; it
// fails the test after timeout.
func (in *Inbox) Next(timeout time.Duration) string {
	in.t.Helper()
	select {
	case s := <-in.next:
		return s
	case <-time.After(timeout):
		in.t.Fatalf("inbox %s: no connection within %s", in.Path, timeout)
		return ""
	}
}

// Expect reports whether a connection arrives within d, without failing.
func (in *Inbox) Expect(d time.Duration) (string, bool) {
	select {
	case s := <-in.next:
		return s, true
	case <-time.After(d):
		return "", false
	}
}

func (in *Inbox) serve(c *net.UnixConn) {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c) // returns only at EOF: the sender must half-close
	if err != nil {
		in.t.Errorf("inbox: %v", err)
	}
	// Recorded before the close that ends the sender's wait.
	in.mu.Lock()
	in.conns = append(in.conns, string(b))
	reply := in.reply
	in.mu.Unlock()
	in.next <- string(b)
	c.Close()
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var f struct {
			Type, Action, From string
			MsgID              string `json:"msg_id"`
		}
		if json.Unmarshal([]byte(line), &f) != nil || f.From == "" {
			continue
		}
		var receipt string
		switch {
		case f.Type == "user" && (reply == ReplyHeld || reply == ReplyDropped):
			receipt = `{"type":"control","action":"peer_message_status","status":"` + string(reply) + `","reason":"test","from":"uds:` + in.Path + `","orig_msg_id":"` + f.MsgID + `"`
			if reply == ReplyDropped {
				receipt += `,"drop_reason":"rate-limited","dropped_msg_ids":["` + f.MsgID + `"]`
			}
			receipt += `,"msgV":1,"msg_id":"00000000-0000-4000-8000-000000000000"}`
		case f.Action == "notify_when_idle" && reply == ReplyIdle:
			receipt = `{"type":"control","action":"peer_idle_notice","orig_msg_id":"` + f.MsgID + `","state":"idle","finished_at":1796032881856,"from":"uds:` + in.Path + `","from_mode":"prompting","msgV":1,"msg_id":"00000000-0000-4000-8000-000000000001"}`
		default:
			continue
		}
		rc, err := net.Dial("unix", strings.TrimPrefix(f.From, "uds:"))
		if err != nil {
			in.t.Errorf("inbox: receipt: %v", err)
			continue
		}
		_, _ = rc.Write([]byte(receipt + "\n"))
		rc.Close()
	}
}

// Dir makes a private (0700) socket dir removed when the test ends. Its
// path is short (socket paths end at 107 bytes) and always as long, so
// byte counts of frames that name it are stable.
func Dir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(os.TempDir(), fmt.Sprintf("ccs-%08x", rand.Uint32()))
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// Stale leaves a socket file at path that nobody listens on, as a
// crashed session does.
func Stale(t testing.TB, path string) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
}
