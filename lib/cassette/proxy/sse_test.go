package proxy

import (
	"errors"
	"strings"
	"testing"
)

// TestSSEParserEventBound: an event whose data reaches MaxEvent is parsed
// (the Messages API's own events are far smaller); one byte more, in data
// lines or in a line not yet ended, fails the write with errEventTooLarge,
// and every later write too, so copyResponse stops there.
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
		refused bool
	}{
		{"at the bound", "data: " + strings.Repeat("x", MaxEvent-2) + "\n\n", false},
		{"one byte over", "data: " + strings.Repeat("x", MaxEvent-1) + "\n\n", true},
		{"over in two lines", "data: " + strings.Repeat("x", MaxEvent/2) + "\ndata: " + strings.Repeat("x", MaxEvent/2) + "\n\n", true},
		{"a line with no end", "data: " + strings.Repeat("x", MaxEvent+1), true},
		{"many events under the bound", strings.Repeat("data: "+strings.Repeat("x", MaxEvent/4)+"\n\n", 8), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got int
			p := &sseParser{onData: func(d string) error { got += len(d); return nil }}
			err := feed(p, c.stream)
			if c.refused {
				if !errors.Is(err, errEventTooLarge) {
					t.Fatalf("err %v, want errEventTooLarge", err)
				}
				if _, err := p.Write([]byte("data: y\n\n")); !errors.Is(err, errEventTooLarge) {
					t.Errorf("a later write: %v", err)
				}
				if len(p.buf)+p.size > 0 || got > 0 {
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
