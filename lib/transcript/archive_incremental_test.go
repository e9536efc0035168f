package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func decompressed(t *testing.T, path string) []byte {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func index(t *testing.T, dst string) archiveIndex {
	t.Helper()
	ix, ok := readIndex(dst)
	if !ok {
		t.Fatalf("%s has no matching sidecar", dst)
	}
	return ix
}

// TestArchiveIncremental re-archives a real corpus transcript as it grows,
// is rewritten and shrinks: a grown one gets one more zstd frame of only
// the new bytes (the copy keeps the old frames byte for byte) and every
// copy decompresses to exactly the source as it was; a rewrite, a shrink
// or a sidecar that no longer matches the copy means a whole new copy.
func TestArchiveIncremental(t *testing.T) {
	full, err := os.ReadFile("../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	half := bytes.IndexByte(full[len(full)/2:], '\n') + len(full)/2 + 1
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "arc", "s.jsonl.zst")
	mtime := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	step := func(content []byte, wantStatus string, wantFrames int) []byte {
		t.Helper()
		if err := os.WriteFile(src, content, 0o644); err != nil {
			t.Fatal(err)
		}
		mtime = mtime.Add(time.Minute)
		os.Chtimes(src, mtime, mtime)
		res, err := archiveFile(context.Background(), src, dst)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != wantStatus {
			t.Errorf("status %s, want %s", res.Status, wantStatus)
		}
		if got := decompressed(t, dst); !bytes.Equal(got, content) {
			t.Fatalf("the copy decompresses to %d bytes, not the %d of the source", len(got), len(content))
		}
		ix := index(t, dst)
		if ix.Length != int64(len(content)) || ix.Frames != wantFrames {
			t.Errorf("index %+v, want length %d, %d frames", ix, len(content), wantFrames)
		}
		if ArchivedLength(dst) != int64(len(content)) {
			t.Errorf("ArchivedLength %d", ArchivedLength(dst))
		}
		b, _ := os.ReadFile(dst)
		return b
	}
	first := step(full[:half], "written", 1)
	grown := step(full, "appended", 2)
	if !bytes.HasPrefix(grown, first) {
		t.Error("the appended copy does not keep the first frame as it was")
	}
	if res, _ := archiveFile(context.Background(), src, dst); res.Status != "up_to_date" {
		t.Errorf("unchanged source: %s", res.Status)
	}
	rewritten := append(bytes.ToUpper(full[:10]), full[10:]...)
	rewritten = append(rewritten, '\n')
	step(rewritten, "written", 1)   // same length and more, other prefix
	step(full[:half], "written", 1) // shrank
	step(full, "appended", 2)

	// A sidecar left from before a crash (it names another copy size)
	// is not believed: the next run copies the whole source again, and
	// the length is measured by decompressing.
	ix := index(t, dst)
	ix.ArchiveBytes++
	b, _ := json.Marshal(ix)
	os.WriteFile(dst+IndexSuffix, b, 0o644)
	if ArchivedLength(dst) != int64(len(full)) {
		t.Errorf("ArchivedLength with a stale sidecar: %d", ArchivedLength(dst))
	}
	step(append(append([]byte(nil), full...), full[:half]...), "written", 1)
}

// A failed write (here: a cancelled context mid-append) leaves the old
// copy and its sidecar as they were.
func TestArchiveFailedAppendKeepsCopy(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "arc", "s.jsonl.zst")
	os.WriteFile(src, []byte("{\"a\":1}\n"), 0o644)
	if _, err := archiveFile(context.Background(), src, dst); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(dst)
	ix := index(t, dst)
	os.WriteFile(src, []byte("{\"a\":1}\n{\"b\":2}\n"), 0o644)
	later := time.Now().Add(time.Hour)
	os.Chtimes(src, later, later)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := archiveFile(ctx, src, dst); err == nil {
		t.Fatal("a cancelled append succeeded")
	}
	after, _ := os.ReadFile(dst)
	if !bytes.Equal(before, after) || index(t, dst) != ix {
		t.Error("the failed append changed the copy or its sidecar")
	}
	ents, _ := os.ReadDir(filepath.Dir(dst))
	if len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}
