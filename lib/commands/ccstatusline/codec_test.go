package ccstatusline

import (
	"reflect"
	"testing"
)

func TestLedgersCodec(t *testing.T) {
	in := &ledgers{Version: "v/x", Files: map[string]*ledger{
		"/a.jsonl": {Path: "/a.jsonl", Size: 10, MtimeNS: -3, Offset: 7, Context: 1 << 40, ContextModel: "claude-opus-4-6[1m]",
			Msgs: []msg{{Key: "m1\x00r1", TS: 1777700000000, USD: 0.1 + 0.2}, {Key: "", TS: 0, Unpriced: true}}},
		"/b.jsonl": {Path: "/b.jsonl", Size: -1, Msgs: []msg{}},
	}}
	b := in.marshal()
	var out ledgers
	if err := out.unmarshal(b); err != nil {
		t.Fatal(err)
	}
	if out.Version != in.Version || !reflect.DeepEqual(out.Files, in.Files) {
		t.Errorf("round trip: %+v, want %+v", out.Files, in.Files)
	}
	for n := 0; n < len(b); n++ {
		if err := new(ledgers).unmarshal(b[:n]); err == nil {
			t.Errorf("truncated to %d bytes: no error", n)
		}
	}
}

// FuzzLedgersCodec: a cache file is outside input (another version, a
// disk error): any bytes give an error or ledgers, never a panic.
func FuzzLedgersCodec(f *testing.F) {
	f.Add((&ledgers{Version: "v", Files: map[string]*ledger{"p": {Path: "p", Msgs: []msg{{Key: "k", TS: 1, USD: 1}}}}}).marshal())
	f.Add([]byte(ledgersMagic + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var ls ledgers
		if ls.unmarshal(b) == nil {
			var again ledgers
			if err := again.unmarshal(ls.marshal()); err != nil {
				t.Fatalf("re-read: %v", err)
			}
		}
	})
}
