package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/layout"
)

// FuzzEachHistory: any history.jsonl reads without a panic, and every
// line is an entry or counted as skipped (blank lines aside).
func FuzzEachHistory(f *testing.F) {
	f.Add([]byte(`{"display":"hi","pastedContents":{},"timestamp":1780000000000,"project":"/p","sessionId":"s"}` + "\n"))
	f.Add([]byte("not json\n\n{\"display\":1}\n{\"sessionId\":\"x\",\"timestamp\":\"str\"}"))
	f.Add([]byte(`{"sessionId":"a"}`))
	f.Add([]byte(`{"sessionId":"../../../../etc/passwd"}` + "\n" + `{"sessionId":"c0a1f001-0000-4000-8000-000000000001"}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "history.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		skipped, err := EachHistory(context.Background(), path, func(h HistoryEntry) error {
			if !layout.IsUUID(h.SessionID) {
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

// TestHistoryPathSessionID: a history.jsonl sessionId that is a path, or
// anything but a session id, is skipped and counted, never an entry.
func TestHistoryPathSessionID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	good := "c0a1f001-0000-4000-8000-000000000001"
	data := ""
	for _, id := range []string{"../../../../etc/passwd", "..", "/etc/passwd", "a/b", good, "", "c0a1f001-0000-4000-8000-00000000000/"} {
		data += `{"display":"hi","timestamp":1780000000000,"project":"/p","sessionId":"` + id + `"}` + "\n"
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	skipped, err := EachHistory(context.Background(), path, func(h HistoryEntry) error {
		got = append(got, h.SessionID)
		return nil
	})
	if err != nil || skipped != 6 || len(got) != 1 || got[0] != good {
		t.Errorf("got %q, %d skipped, %v; want [%s], 6 skipped", got, skipped, err, good)
	}
}
