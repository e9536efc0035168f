package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// TestEntryCodec: every line of testdata's transcripts, decoded whole and
// as the tool kinds read it (DecodeTools), reads back from the entry
// codec equal to what was decoded, Raw kept or left out.
func TestEntryCodec(t *testing.T) {
	var paths []string
	err := filepath.WalkDir("../../testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			var entries []*transcript.Entry
			if e, err := transcript.Decode(line); err == nil {
				entries = append(entries, e)
			}
			if e, ok := transcript.DecodeTools(line); ok {
				entries = append(entries, e)
			}
			for _, e := range entries {
				for _, raw := range []bool{true, false} {
					n++
					enc := appendEntry(nil, e, raw)
					d := cache.NewDecoder(enc)
					got := entryReader{d: d}.entry()
					if !d.Done() {
						t.Fatalf("%s: %.200s: not read back whole: %v", p, line, d.Err())
					}
					want := *e
					if !raw {
						want.Raw = nil
					}
					if !reflect.DeepEqual(got, &want) {
						t.Fatalf("%s: %.200s (raw %v): read back\n%+v\nwant\n%+v", p, line, raw, got, &want)
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d entries: testdata moved?", n)
	}
}

// TestEntryCodecFields fails when a field is added to transcript.Entry or
// to what it points to: the codec must write it too (then count it here).
func TestEntryCodecFields(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int
	}{
		{transcript.Entry{}, 24}, {transcript.Message{}, 9}, {transcript.Usage{}, 5}, {transcript.User{}, 11},
		{transcript.Assistant{}, 6}, {transcript.System{}, 9}, {transcript.Attachment{}, 2}, {transcript.Block{}, 16},
	} {
		if got := reflect.TypeOf(c.v).NumField(); got != c.want {
			t.Errorf("%T has %d fields, the entry codec writes %d: add the new one to entrycodec.go", c.v, got, c.want)
		}
	}
}

// TestEntryCodecHostile: bytes the codec did not write fail the read,
// never panic.
func TestEntryCodecHostile(t *testing.T) {
	e, err := transcript.Decode([]byte(`{"type":"user","uuid":"u","timestamp":"2026-12-01T00:00:00Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	enc := appendEntry(nil, e, true)
	for i := range enc {
		for _, b := range []byte{0, 0xff, 0x7f} {
			bad := append([]byte(nil), enc...)
			bad[i] = b
			d := cache.NewDecoder(bad[:i+1])
			entryReader{d: d}.entry()
			d = cache.NewDecoder(bad)
			entryReader{d: d}.entry()
		}
	}
}
