package sessions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func zstCopy(t *testing.T, path string, content []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	zw.Write(content)
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadOnce keeps one file per session: the live one while it is at least
// as long as the copy, else the copy; a session only archived (swept) or
// only live passes, and a second archive's copy is dropped.
func TestReadOnce(t *testing.T) {
	dir := t.TempDir()
	copyOf := func(name string, n int) string {
		p := filepath.Join(dir, name+".jsonl.zst")
		zstCopy(t, p, bytes.Repeat([]byte("x"), n))
		return p
	}
	live := func(id string, size int64) Session {
		return Session{SessionID: id, TranscriptPath: "/live/" + id + ".jsonl", SizeBytes: size, Source: SourceLive}
	}
	arch := func(id, path string) Session {
		return Session{SessionID: id, TranscriptPath: path, Compressed: true, Source: SourceArchive}
	}
	for _, tc := range []struct {
		name string
		in   []Session
		want []string // transcript paths kept, in order
	}{
		{"only live", []Session{live("a", 10)}, []string{"/live/a.jsonl"}},
		{"grown live wins", []Session{live("a", 20), arch("a", copyOf("a1", 10))}, []string{"/live/a.jsonl"}},
		{"equal live wins", []Session{live("a", 10), arch("a", copyOf("a2", 10))}, []string{"/live/a.jsonl"}},
		{"shrunk live loses", []Session{live("a", 5), arch("a", copyOf("a3", 10))}, []string{filepath.Join(dir, "a3.jsonl.zst")}},
		{"swept", []Session{live("b", 5), arch("a", copyOf("a4", 10))}, []string{"/live/b.jsonl", filepath.Join(dir, "a4.jsonl.zst")}},
		{"two archives", []Session{arch("a", copyOf("a5", 10)), arch("a", copyOf("a6", 10))}, []string{filepath.Join(dir, "a5.jsonl.zst")}},
		{"unreadable copy", []Session{live("a", 0), arch("a", filepath.Join(dir, "missing.jsonl.zst"))}, []string{"/live/a.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notes := ReadOnce(tc.in)
			// A copy kept over its live file is named, with both paths.
			if named := tc.name == "shrunk live loses"; named != (len(notes) == 1) ||
				named && !strings.Contains(notes[0].Error(), "/live/a.jsonl") {
				t.Errorf("notes %v", notes)
			}
			var paths []string
			for _, s := range got {
				paths = append(paths, s.TranscriptPath)
			}
			if len(paths) != len(tc.want) {
				t.Fatalf("got %v, want %v", paths, tc.want)
			}
			for i := range paths {
				if paths[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", paths, tc.want)
				}
			}
		})
	}
}
