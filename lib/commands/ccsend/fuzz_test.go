package ccsend

import (
	"testing"
)

// FuzzFromRecord: any stdin line gives a target with a socket path, or an
// error; never a panic, never a target that fails its own check.
func FuzzFromRecord(f *testing.F) {
	f.Add([]byte(`{"socket_path":"/tmp/cc-socks/1.sock","pid":1,"session_id":"x"}`))
	f.Add([]byte(`{"session_id":"a","active":{"socket_path":"/s.sock","pid":"7","raw":{"peerProtocol":"1"},"compatibility":{"messaging":{"ok":false,"reasons":["x"]}}}}`))
	f.Add([]byte(`{"active":null,"session_id":"a"}`))
	f.Add([]byte(`{"liveness":"dead","socket_path":"/s"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, line []byte) {
		tg, err := fromRecord(line, nil)
		if err != nil {
			return
		}
		if tg.SocketPath == "" {
			t.Fatalf("target without a socket from %q", line)
		}
		if err := tg.Check(); err != nil {
			t.Fatalf("accepted a target that fails Check (%v) from %q", err, line)
		}
	})
}
