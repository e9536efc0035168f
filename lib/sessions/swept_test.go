package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzEachHistory: any history.jsonl reads without a panic, and every
// line is an entry or counted as skipped (blank lines aside).
func FuzzEachHistory(f *testing.F) {
	f.Add([]byte(`{"display":"hi","pastedContents":{},"timestamp":1780000000000,"project":"/p","sessionId":"s"}` + "\n"))
	f.Add([]byte("not json\n\n{\"display\":1}\n{\"sessionId\":\"x\",\"timestamp\":\"str\"}"))
	f.Add([]byte(`{"sessionId":"a"}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "history.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		skipped, err := EachHistory(context.Background(), path, func(h HistoryEntry) error {
			if h.SessionID == "" {
				t.Errorf("entry without a session id: %+v", h)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if n+skipped > lines {
			t.Errorf("%d entries and %d skipped from %d lines", n, skipped, lines)
		}
	})
}
