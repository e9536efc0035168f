package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestUsageProducerErrorIsReported is issue 13 item 6: when the producer
// fails (a dir that cannot be listed), the usage fast path returns that
// error, not the "context canceled" its cancellation caused.
func TestUsageProducerErrorIsReported(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte(`{"type":"assistant","uuid":"a","message":{"id":"m","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := errors.New("listing /x: permission denied")
	for i := 0; i < 20; i++ { // the race it was lost in is timing-dependent
		x, err := New(Options{Kind: "usage"}, func(any) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		err = x.ReadTranscripts(context.Background(), func(add func(string) error) error {
			if err := add(p); err != nil {
				return err
			}
			return want
		})
		x.Close()
		if !errors.Is(err, want) {
			t.Fatalf("run %d: error %v, want %v", i, err, want)
		}
	}
}
