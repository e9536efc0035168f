package peer

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/peer/peertest"
)

func TestListenerReceipts(t *testing.T) {
	path := filepath.Join(peertest.Dir(t), "ccpipe-t.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Addr != "uds:"+path {
		t.Errorf("Addr %q", l.Addr)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v", fi.Mode(), err)
	}
	// Receipts come as one connection each, like the real receiver sends them.
	frames := []string{
		`{"type":"control","action":"peer_message_status","status":"held","reason":"r","from":"uds:/tmp/cc-socks/1.sock","orig_msg_id":"A","msgV":1,"msg_id":"M1"}`,
		`not json`,
		`{"type":"control","action":"peer_message_status","status":"dropped","reason":"r","from":"uds:/tmp/cc-socks/1.sock","orig_msg_id":"B","drop_reason":"rate-limited","dropped_msg_ids":["B","C"],"msgV":1,"msg_id":"M2"}`,
		`{"type":"control","action":"peer_idle_notice","orig_msg_id":"D","state":"idle","finished_at":1796032881856,"from":"uds:/tmp/cc-socks/1.sock","from_mode":"prompting","msgV":1,"msg_id":"M3"}`,
	}
	s := Sender{Timeout: 2 * time.Second}
	for _, f := range frames {
		if _, err := s.Send(context.Background(), Target{SocketPath: path}, Frame(f)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []Notice
	for range 3 {
		n, err := l.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if got[0].Status != StatusHeld || !got[0].About("A") || Final(got[0].Status) {
		t.Errorf("held: %+v", got[0])
	}
	if got[1].Status != StatusDropped || got[1].DropReason != "rate-limited" || !got[1].About("C") || got[1].About("A") {
		t.Errorf("dropped: %+v", got[1])
	}
	if got[2].Action != ActionIdle || got[2].State != "idle" || got[2].FinishedAt != 1796032881856 || got[2].OrigMsgID != "D" {
		t.Errorf("idle: %+v", got[2])
	}
	if l.Skipped() != 1 {
		t.Errorf("skipped %d, want 1", l.Skipped())
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, err := l.Next(ctx); !errors.Is(err, ErrListenerClosed) {
		t.Errorf("Next after Close: %v", err)
	}
}

func TestListenReplacesStaleRefusesLive(t *testing.T) {
	dir := peertest.Dir(t)
	path := filepath.Join(dir, "r.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(path); !errors.Is(err, ErrInUse) {
		t.Errorf("live socket: %v", err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	l, err := Listen(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	l.Close()

	plain := filepath.Join(dir, "file.sock")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(plain); err == nil {
		t.Error("a regular file was replaced")
	}
}

func TestParseNotice(t *testing.T) {
	tests := []struct {
		in   string
		want Notice
		err  bool
	}{
		{in: `{"type":"control","action":"peer_message_status","status":"expired","status_detail":"refused","orig_msg_id":"X"}`,
			want: Notice{Type: "control", Action: ActionStatus, Status: StatusRefused, OrigMsgID: "X"}},
		{in: `{"status":7,"orig_msg_id":["x"],"dropped_msg_ids":["a",1,"b"],"finished_at":"soon"}`,
			want: Notice{DroppedMsgIDs: []string{"a", "b"}}},
		{in: `{"type":"user","message":{"role":"user","content":"a reply"},"from":"uds:/x.sock"}`,
			want: Notice{Type: "user", From: "uds:/x.sock", Content: "a reply"}},
		{in: `{"finished_at":-5}`, want: Notice{}},
		{in: `null`, err: true},
		{in: `[1]`, err: true},
		{in: `{"a":`, err: true},
	}
	for _, tt := range tests {
		n, err := ParseNotice([]byte(tt.in))
		if (err != nil) != tt.err {
			t.Errorf("%s: err %v", tt.in, err)
			continue
		}
		if err != nil {
			continue
		}
		n.Raw = nil
		if !equalNotice(n, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.in, n, tt.want)
		}
	}
}

func equalNotice(a, b Notice) bool {
	if len(a.DroppedMsgIDs) != len(b.DroppedMsgIDs) {
		return false
	}
	for i := range a.DroppedMsgIDs {
		if a.DroppedMsgIDs[i] != b.DroppedMsgIDs[i] {
			return false
		}
	}
	a.DroppedMsgIDs, b.DroppedMsgIDs = nil, nil
	a.Raw, b.Raw = nil, nil
	return a.Type == b.Type && a.Action == b.Action && a.Status == b.Status && a.Reason == b.Reason &&
		a.DropReason == b.DropReason && a.OrigMsgID == b.OrigMsgID && a.State == b.State &&
		a.FinishedAt == b.FinishedAt && a.Detail == b.Detail && a.FromMode == b.FromMode &&
		a.From == b.From && a.MsgID == b.MsgID && a.Content == b.Content
}
