package ccstatusline

import (
	"reflect"
	"testing"
)

func TestLedgerCodec(t *testing.T) {
	in := &ledger{Context: 1 << 40, ContextModel: "claude-opus-4-6[1m]",
		Msgs: []msg{{Key: "m1\x00r1", TS: 1777700000000, USD: 0.1 + 0.2}, {Key: "", TS: 0, Unpriced: true, Copied: true}}}
	b := in.encode()
	var out ledger
	if !out.decode(b) {
		t.Fatal("round trip failed")
	}
	if !reflect.DeepEqual(&out, in) {
		t.Errorf("round trip: %+v, want %+v", out, in)
	}
	for n := 0; n < len(b); n++ {
		if new(ledger).decode(b[:n]) {
			t.Errorf("truncated to %d bytes: read", n)
		}
	}
}

// FuzzLedgerCodec: a cache entry is outside input (another version, a
// disk error): any bytes are read or refused, never a panic.
func FuzzLedgerCodec(f *testing.F) {
	f.Add((&ledger{Msgs: []msg{{Key: "k", TS: 1, USD: 1}}}).encode())
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var l ledger
		if l.decode(b) {
			var again ledger
			if !again.decode(l.encode()) {
				t.Fatalf("re-read failed")
			}
		}
	})
}
