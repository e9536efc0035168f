package usage

import (
	"reflect"
	"testing"
)

func TestLedgerCodec(t *testing.T) {
	in := &ledger{Context: 1 << 40, ContextModel: "claude-opus-4-6[1m]",
		Msgs:       []Priced{{Key: 1 << 63, TS: 1777700000000, USD: 0.1 + 0.2, Tokens: 42}, {Key: 0, TS: 0, Unpriced: true, Copied: true}},
		OpenPriced: Priced{Key: 7, USD: 1.5}, Open: Message{Key: 7, SessionID: "s", UUID: "u", Timestamp: "2026-05-02T10:30:00.000Z", MessageID: "m", RequestID: "r",
			Model: "claude-opus-5-5", RequestedModel: "claude-opus-5-5", Usage: `{"input_tokens":1}`,
			Tokens: Tokens{InputTokens: 1, CacheCreation5m: -2, CacheCreation1h: 3}}, HasOpen: true}
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
	f.Add((&ledger{Msgs: []Priced{{Key: 1, TS: 1, USD: 1}}}).encode())
	f.Add((&ledger{HasOpen: true, Open: Message{UUID: "u"}}).encode())
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
