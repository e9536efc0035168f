package peer

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/peer/peertest"
)

// server is a Unix socket server started by the test; handle runs once
// per connection.
func server(t *testing.T, handle func(c *net.UnixConn)) string {
	t.Helper()
	return peertest.Serve(t, filepath.Join(peertest.Dir(t), "s.sock"), handle)
}

const testToken = "0123456789abcdef0123456789abcdef"

func TestSendExactBytes(t *testing.T) {
	in := peertest.NewInbox(t, peertest.Dir(t), "s.sock")
	path := in.Path
	const id = "0b5e1c0e-7f3a-4c1e-9d2a-3b4c5d6e7f80"
	from := "uds:/tmp/cc-socks/ccpipe-t.sock"
	user, err := UserFrame(Message{Body: "hello \"peer\" <x>", FromName: "CI \"bot\" <1>", From: from, MsgID: id})
	if err != nil {
		t.Fatal(err)
	}
	idle, _ := NotifyWhenIdleFrame(from, id)
	var s Sender
	res, err := s.Send(context.Background(), Target{SocketPath: path, KeyToken: testToken, PeerProtocol: 1}, user, idle)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"auth","token":"` + testToken + `"}` + "\n" +
		`{"msgV":1,"msg_id":"` + id + `","type":"user","message":{"role":"user","content":"<cross-session-message from=\"` + from + `\" from-name=\"CI bot 1\">\nhello \"peer\" <x>\n</cross-session-message>"},"priority":"next","from":"` + from + `"}` + "\n" +
		`{"type":"control","action":"notify_when_idle","from":"` + from + `","msg_id":"` + id + `"}` + "\n"
	if g := in.Next(5 * time.Second); g != want {
		t.Errorf("server read\n%s\nwant\n%s", g, want)
	}
	if !res.Auth || res.Bytes != len(user)+len(idle)+2 {
		t.Errorf("result %+v", res)
	}

	// Without a token there is no auth line.
	rename, _ := RenameFrame("new-name")
	res, err = s.Send(context.Background(), Target{SocketPath: path}, rename)
	if err != nil {
		t.Fatal(err)
	}
	if g := in.Next(5 * time.Second); g != `{"type":"control","action":"rename","name":"new-name"}`+"\n" || res.Auth {
		t.Errorf("server read %q, auth %v", g, res.Auth)
	}
}

// TestSendWaitsForClose: Send returns only after the receiver closed its
// side, which a real inbox does after reading everything.
func TestSendWaitsForClose(t *testing.T) {
	closed := make(chan time.Time, 1)
	release := make(chan struct{})
	path := server(t, func(c *net.UnixConn) {
		_, _ = io.ReadAll(c)
		<-release
		closed <- time.Now()
		c.Close()
	})
	f, _ := RenameFrame("x")
	returned := make(chan time.Time, 1)
	go func() {
		_, err := (&Sender{Timeout: 5 * time.Second}).Send(context.Background(), Target{SocketPath: path}, f)
		if err != nil {
			t.Error(err)
		}
		returned <- time.Now()
	}()
	select {
	case <-returned:
		t.Fatal("Send returned before the receiver closed")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	c, r := <-closed, <-returned
	if r.Before(c) {
		t.Error("Send returned before the close")
	}
}

func TestSendReceiverNeverReads(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	path := server(t, func(c *net.UnixConn) {
		go func() { <-hold; c.Close() }()
	})
	small, _ := RenameFrame("x")
	big, err := UserFrame(Message{Body: strings.Repeat("y", 900_000)})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]Frame{"small": small, "bigger than the socket buffer": big} {
		t.Run(name, func(t *testing.T) {
			_, err := (&Sender{Timeout: 200 * time.Millisecond}).Send(context.Background(), Target{SocketPath: path}, f)
			var se *SendError
			if !errors.Is(err, ErrTimeout) || !errors.As(err, &se) || se.Timeout != 200*time.Millisecond {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), "timed out after 200ms") {
				t.Errorf("message: %v", err)
			}
		})
	}
}

func TestSendCancelled(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	path := server(t, func(c *net.UnixConn) { go func() { <-hold; c.Close() }() })
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	f, _ := RenameFrame("x")
	_, err := (&Sender{Timeout: time.Minute}).Send(ctx, Target{SocketPath: path}, f)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestSendReceiverClosesEarly(t *testing.T) {
	path := server(t, func(c *net.UnixConn) {
		buf := make([]byte, 10)
		_, _ = c.Read(buf)
		c.Close()
	})
	small, _ := RenameFrame("x")
	big, _ := UserFrame(Message{Body: strings.Repeat("y", 900_000)})
	for name, f := range map[string]Frame{"small": small, "big": big} {
		t.Run(name, func(t *testing.T) {
			_, err := (&Sender{Timeout: 5 * time.Second}).Send(context.Background(), Target{SocketPath: path}, f)
			if !errors.Is(err, ErrClosedEarly) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestSendNoSession(t *testing.T) {
	dir := peertest.Dir(t)
	f, _ := RenameFrame("x")
	var s Sender

	_, err := s.Send(context.Background(), Target{SocketPath: filepath.Join(dir, "gone.sock")}, f)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "not running") {
		t.Errorf("missing socket: %v", err)
	}

	// A socket file nobody listens on, as a crashed session leaves it.
	stale := filepath.Join(dir, "stale.sock")
	peertest.Stale(t, stale)
	_, err = s.Send(context.Background(), Target{SocketPath: stale}, f)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "stale socket") {
		t.Errorf("stale socket: %v", err)
	}

	_, err = s.Send(context.Background(), Target{SocketPath: stale, PeerProtocol: 7}, f)
	if !errors.Is(err, ErrNotAligned) {
		t.Errorf("protocol 7: %v", err)
	}
}

func TestSendTooLargeBeforeConnecting(t *testing.T) {
	in := peertest.NewInbox(t, peertest.Dir(t), "s.sock")
	path := in.Path
	huge := Frame(`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("z", MaxLine) + `"}}`)
	_, err := (&Sender{}).Send(context.Background(), Target{SocketPath: path}, huge)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if g, ok := in.Expect(50 * time.Millisecond); ok {
		t.Errorf("connected anyway, server read %d bytes", len(g))
	}
}
