package otel

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	if len(segs) != 1 || !strings.HasSuffix(segs[0], sortedSuffix) {
		t.Errorf("after %d runs: segments %v, want one merged", maxSegments+1, segs)
	}
	if l, err = OpenLedger(dir, true, 0); err != nil {
		t.Fatal(err)
	}
	if want := (maxSegments+1)*30 - 1; l.Len() != want {
		t.Errorf("%d keys after compaction, want %d", l.Len(), want)
	}
}

// distinct is how many keys l read, each once.
func distinct(l *Ledger) int {
	all := map[Key]struct{}{}
	for k := range l.keys {
		all[k] = struct{}{}
	}
	for i := 0; i+len(Key{}) <= len(l.sorted); i += len(Key{}) {
		all[Key(l.sorted[i:i+len(Key{})])] = struct{}{}
	}
	return len(all)
}

// TestLedgerKilledMidCompaction: a run killed while it merged the
// segments leaves the ledger one of three ways: the merged file half
// written (a temp file), written beside every old segment, or written
// with some of them removed. Each reads as the keys acknowledged, no
// fewer (nothing sent twice) and no more (nothing left unsent), and the
// next run's compaction leaves one segment and no temp file.
func TestLedgerKilledMidCompaction(t *testing.T) {
	const runs = maxSegments + 1
	build := func(dir string) {
		for r := range runs {
			l, err := OpenLedger(dir, false, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Mark([]Key{key(2 * r), key(2*r + 1)}); err != nil {
				t.Fatal(err)
			}
			if r < runs-1 {
				if err := l.Finish(); err != nil {
					t.Fatal(err)
				}
			} else if err := l.sync(); err != nil { // the last run: not compacted yet
				t.Fatal(err)
			}
			l.Close()
		}
	}
	check := func(name, dir string) {
		t.Helper()
		l, err := OpenLedger(dir, true, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := distinct(l); n != 2*runs {
			t.Errorf("%s: %d keys, want %d", name, n, 2*runs)
		}
		for i := range 2 * runs {
			if !l.Has(key(i)) {
				t.Errorf("%s: key %d lost", name, i)
			}
		}
		if l.Has(key(2 * runs)) {
			t.Errorf("%s: a key never marked is there", name)
		}
	}
	// The old segments, before a compaction; the merged one after it.
	old := t.TempDir()
	build(old)
	olds := segments(t, old)
	if len(olds) != runs {
		t.Fatalf("%d segments before compaction, want %d", len(olds), runs)
	}
	merged := t.TempDir()
	build(merged)
	l, err := OpenLedger(merged, false, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(); err != nil {
		t.Fatal(err)
	}
	l.Close()
	ms := segments(t, merged)
	if len(ms) != 1 {
		t.Fatalf("compaction left %v", ms)
	}
	mb, err := os.ReadFile(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	copyOld := func(dir string, n int) {
		for _, p := range olds[:n] {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	states := map[string]func(dir string){
		"merged file half written": func(dir string) {
			copyOld(dir, len(olds))
			tmp := filepath.Join(dir, "."+filepath.Base(ms[0])+".123456.tmp")
			if err := os.WriteFile(tmp, mb[:len(mb)/2+3], 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"merged file written, old segments there": func(dir string) {
			copyOld(dir, len(olds))
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(ms[0])), mb, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"merged file written, some old segments removed": func(dir string) {
			copyOld(dir, len(olds)/2)
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(ms[0])), mb, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, state := range states {
		dir := t.TempDir()
		state(dir)
		check(name, dir)
		// The next run: compacts (when there are many) and leaves no
		// temp file.
		l, err := OpenLedger(dir, false, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Mark([]Key{key(2 * runs), key(2*runs + 1)}); err != nil {
			t.Fatal(err)
		}
		if err := l.Finish(); err != nil {
			t.Fatal(err)
		}
		l.Close()
		if tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmps) != 0 {
			t.Errorf("%s: temp files left after the next run: %v", name, tmps)
		}
		if segs := segments(t, dir); len(segs) > maxSegments {
			t.Errorf("%s: %d segments after the next run", name, len(segs))
		}
		l, err = OpenLedger(dir, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n := distinct(l); n != 2*runs+2 {
			t.Errorf("%s: %d keys after the next run, want %d", name, n, 2*runs+2)
		}
	}
}

// TestLedgerSortedIsMap: a key looked up in the merged segment (binary
// search over its sorted keys: the fast path) is found exactly when it is
// in the map of every key (the slow twin), for keys there, keys not there
// and the ends; a merged segment out of order (an older build's) is read
// into the map.
func TestLedgerSortedIsMap(t *testing.T) {
	var keys []Key
	all := map[Key]struct{}{}
	for i := range 5000 {
		k := KeyOf(Logs, &Event{Name: EventToolResult, SessionID: "s", ID: fmt.Sprint(i * 2)})
		keys = append(keys, k)
		all[k] = struct{}{}
	}
	slices.SortFunc(keys, func(a, b Key) int { return bytes.Compare(a[:], b[:]) })
	var b []byte
	for _, k := range keys {
		b = append(b, k[:]...)
	}
	if !isSorted(b) {
		t.Fatal("sorted keys not seen as sorted")
	}
	probe := append([]Key{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, keys...)
	for i := range 5000 {
		probe = append(probe, KeyOf(Logs, &Event{Name: EventToolResult, SessionID: "s", ID: fmt.Sprint(i*2 + 1)}))
	}
	for _, k := range probe {
		_, want := all[k]
		if got := inSorted(b, k); got != want {
			t.Fatalf("key %x: in the sorted segment %v, in the map %v", k, got, want)
		}
	}
	// Through the ledger: a merged segment sorted, then one out of order.
	for _, order := range []string{"sorted", "unsorted"} {
		dir := t.TempDir()
		seg := b
		if order == "unsorted" {
			seg = append(append([]byte(nil), b[16:]...), b[:16]...)
		}
		if err := os.WriteFile(filepath.Join(dir, "00000000000000000001-1"+sortedSuffix), seg, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := OpenLedger(dir, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if (l.sorted != nil) != (order == "sorted") {
			t.Errorf("%s: looked up by binary search: %v", order, l.sorted != nil)
		}
		for _, k := range probe {
			_, want := all[k]
			if got := l.HadBefore(k); got != want {
				t.Fatalf("%s: key %x: in the ledger %v, in the map %v", order, k, got, want)
			}
		}
	}
}
