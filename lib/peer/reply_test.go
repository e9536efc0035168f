package peer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/peer/peertest"
)

// A reply socket is made only beside a live socket of ours in a private
// dir: never in a dir open to others, beside a non-socket, or beside a
// target that turned out dead (issue 13.10: a crafted record made cc-send
// create a socket in a system directory).
func TestListenReplyOnlyInPrivateDir(t *testing.T) {
	dir := peertest.Dir(t)
	in := peertest.NewInbox(t, dir, "live.sock")
	l, err := ListenReply(in.Path, "t")
	if err != nil {
		t.Fatal(err)
	}
	if l.Path != filepath.Join(dir, "ccpipe-t.sock") {
		t.Errorf("reply socket at %s", l.Path)
	}
	l.Close()

	open := peertest.Dir(t)
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	openIn := peertest.NewInbox(t, open, "live.sock")
	plain := filepath.Join(dir, "plain.sock")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, target, msg string }{
		{"dir open to others", openIn.Path, "mode 0755, open to others"},
		{"not a socket", plain, "not a socket (a regular file)"},
		{"missing", filepath.Join(dir, "gone.sock"), "no such file"},
		{"relative", "x/live.sock", "not a clean absolute path"},
		{"system dir", "/etc/passwd", "not a socket"},
	} {
		_, err := ListenReply(tt.target, "t")
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.msg)
		}
	}
	if _, err := os.Lstat(filepath.Join(open, "ccpipe-t.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a reply socket was made in the open dir: %v", err)
	}

	// SendAfter runs ready only once connected: a stale socket fails first.
	stale := filepath.Join(dir, "stale.sock")
	peertest.Stale(t, stale)
	f, _ := RenameFrame("x")
	called := false
	_, err = (&Sender{}).SendAfter(context.Background(), Target{SocketPath: stale}, func() error { called = true; return nil }, f)
	if !errors.Is(err, ErrRefused) || called {
		t.Errorf("stale: err %v, ready called %v", err, called)
	}
	// A failing ready sends nothing.
	in.Reset(peertest.ReplyNone)
	_, err = (&Sender{}).SendAfter(context.Background(), Target{SocketPath: in.Path}, func() error { return errors.New("no") }, f)
	if err == nil || err.Error() != "no" {
		t.Errorf("ready error: %v", err)
	}
	if g := in.Next(5 * time.Second); g != "" {
		t.Errorf("inbox got %q after a failed ready", g)
	}
}

func TestAwait(t *testing.T) {
	dir := peertest.Dir(t)
	in := peertest.NewInbox(t, dir, "live.sock")
	l, err := ListenReply(in.Path, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	send := func(reply peertest.Reply, idle bool) *Pending {
		in.Reset(reply)
		p := &Pending{MsgID: NewMsgID()}
		frames := []Frame{}
		u, _ := UserFrame(Message{Body: "hi", From: l.Addr, MsgID: p.MsgID})
		frames = append(frames, u)
		if idle {
			p.IdleID = NewMsgID()
			f, _ := NotifyWhenIdleFrame(l.Addr, p.IdleID)
			frames = append(frames, f)
		}
		if _, err := (&Sender{}).Send(context.Background(), Target{SocketPath: in.Path}, frames...); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	dropped := send(peertest.ReplyDropped, false)
	if err := Await(ctx, []*Listener{l}, []*Pending{dropped}, nil); err != nil || dropped.Status != StatusDropped || dropped.DropReason != "rate-limited" {
		t.Errorf("dropped: %v %+v", err, dropped)
	}
	idle := send(peertest.ReplyIdle, true)
	if err := Await(ctx, []*Listener{l}, []*Pending{idle}, nil); err != nil || idle.IdleState != "idle" || idle.FinishedAt.UnixMilli() != 1796032881856 {
		t.Errorf("idle: %v %+v", err, idle)
	}
	// No receipt: the wait ends at the deadline, not with an error.
	quiet := send(peertest.ReplyNone, false)
	short, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel2()
	if err := Await(short, []*Listener{l}, []*Pending{quiet}, nil); err != nil || quiet.Status != "" {
		t.Errorf("no receipt: %v %+v", err, quiet)
	}
	// A held message waited for with an idle subscription stays open.
	held := send(peertest.ReplyHeld, true)
	var strays []Notice
	short, cancel3 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel3()
	if err := Await(short, []*Listener{l}, []*Pending{held}, func(n Notice) { strays = append(strays, n) }); err != nil || held.Status != StatusHeld || held.done || len(strays) != 0 {
		t.Errorf("held: %v %+v %v", err, held, strays)
	}
	// Cancelled is an error.
	gone, cancel4 := context.WithCancel(ctx)
	cancel4()
	if err := Await(gone, []*Listener{l}, []*Pending{{MsgID: "x"}}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Replies binds one reply socket per receiver dir, once, and closes them.
func TestReplies(t *testing.T) {
	dir := peertest.Dir(t)
	a := peertest.NewInbox(t, dir, "a.sock")
	b := peertest.NewInbox(t, dir, "b.sock")
	r := &Replies{Label: "t"}
	if r.From(a.Path) != "uds:"+filepath.Join(dir, "ccpipe-t.sock") || r.From(a.Path) != r.From(b.Path) {
		t.Errorf("From: %s %s", r.From(a.Path), r.From(b.Path))
	}
	for _, p := range []string{a.Path, b.Path, a.Path} {
		if err := r.Ready(p)(); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(r.Listeners()); n != 1 {
		t.Errorf("%d listeners for one dir", n)
	}
	r.Close()
	if _, err := os.Lstat(filepath.Join(dir, "ccpipe-t.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reply socket left after Close: %v", err)
	}
}
