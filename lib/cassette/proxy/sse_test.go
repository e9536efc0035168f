package proxy

import (
	"errors"
	"strings"
	"testing"
)

// TestSSEParserEventBound: an event whose data reaches MaxEvent is parsed
// (the Messages API's own events are far smaller); one byte more, in data
// lines or in a line not yet ended, fails the write with errEventTooLarge,
// and every later write too, so copyResponse stops teeing there. A stream
// over MaxBody in events under MaxEvent fails with errAnswerTooLarge.
func TestSSEParserEventBound(t *testing.T) {
	feed := func(p *sseParser, s string) error {
		for len(s) > 0 {
			n := min(len(s), 32<<10)
			if _, err := p.Write([]byte(s[:n])); err != nil {
				return err
			}
			s = s[n:]
		}
		return nil
	}
	// "data: " + payload + "\n" counts len(payload)+2 (the space and the
	// newline joining lines).
	for _, c := range []struct {
		name    string
		stream  string
		refused error
	}{
		{"at the bound", "data: " + strings.Repeat("x", MaxEvent-2) + "\n\n", nil},
		{"one byte over", "data: " + strings.Repeat("x", MaxEvent-1) + "\n\n", errEventTooLarge},
		{"over in two lines", "data: " + strings.Repeat("x", MaxEvent/2) + "\ndata: " + strings.Repeat("x", MaxEvent/2) + "\n\n", errEventTooLarge},
		{"a line with no end", "data: " + strings.Repeat("x", MaxEvent+1), errEventTooLarge},
		{"many events under the bound", strings.Repeat("data: "+strings.Repeat("x", MaxEvent/4)+"\n\n", 8), nil},
		{"a stream at MaxBody", strings.Repeat("data: "+strings.Repeat("x", 1<<20-8)+"\n\n", MaxBody>>20), nil},
		{"a stream over MaxBody", strings.Repeat("data: "+strings.Repeat("x", 1<<20-8)+"\n\n", MaxBody>>20) + "\n", errAnswerTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got int
			p := &sseParser{onData: func(d string) error { got += len(d); return nil }}
			err := feed(p, c.stream)
			if c.refused != nil {
				if !errors.Is(err, c.refused) {
					t.Fatalf("err %v, want %v", err, c.refused)
				}
				if _, err := p.Write([]byte("data: y\n\n")); !errors.Is(err, c.refused) {
					t.Errorf("a later write: %v", err)
				}
				if len(p.buf)+p.size > 0 || got > 0 && c.refused == errEventTooLarge {
					t.Errorf("kept %d bytes, dispatched %d", len(p.buf)+p.size, got)
				}
				return
			}
			if err != nil || p.close() != nil {
				t.Fatalf("err %v", err)
			}
			if want := strings.Count(c.stream, "x"); got != want {
				t.Errorf("dispatched %d bytes, want %d", got, want)
			}
		})
	}
}
