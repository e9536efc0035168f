package otel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func key(i int) Key {
	var k Key
	k[0], k[1], k[15] = byte(i), byte(i>>8), 0xab
	return k
}

func segments(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+ledgerSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Each run appends to one segment of its own, a write per Mark; the next
// run reads every key, a segment cut inside a key up to its last whole
// one, and many runs' segments are merged into one.
func TestLedgerSegments(t *testing.T) {
	dir := t.TempDir()
	run := func(from, to int) {
		t.Helper()
		l, err := OpenLedger(dir, false, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i += 3 {
			if err := l.Mark([]Key{key(i), key(i + 1), key(i + 2)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Finish(); err != nil {
			t.Fatal(err)
		}
		l.Close()
	}
	run(0, 30)
	if n := len(segments(t, dir)); n != 1 {
		t.Fatalf("one run wrote %d segments, want 1", n)
	}
	run(30, 60)
	l, err := OpenLedger(dir, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 60 {
		t.Errorf("%d keys after two runs, want 60", l.Len())
	}
	// A segment cut inside its last key: the whole keys are kept.
	segs := segments(t, dir)
	last := segs[len(segs)-1]
	fi, err := os.Stat(last)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(last, fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	if l, err = OpenLedger(dir, true, 0); err != nil {
		t.Fatalf("a cut segment: %v", err)
	}
	if l.Len() != 59 || !l.Has(key(58)) || l.Has(key(59)) {
		t.Errorf("a segment cut inside its last key: %d keys (has 58: %v, 59: %v), want 59 with 58, without 59", l.Len(), l.Has(key(58)), l.Has(key(59)))
	}
	for i := 2; i <= maxSegments; i++ {
		run(i*30, i*30+30)
	}
	segs = segments(t, dir)
	if len(segs) != 1 || !strings.HasSuffix(segs[0], "-all"+ledgerSuffix) {
		t.Errorf("after %d runs: segments %v, want one merged", maxSegments+1, segs)
	}
	if l, err = OpenLedger(dir, true, 0); err != nil {
		t.Fatal(err)
	}
	if want := (maxSegments+1)*30 - 1; l.Len() != want {
		t.Errorf("%d keys after compaction, want %d", l.Len(), want)
	}
}
