package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/klauspost/compress/zstd"
)

// A symlink planted where a copy or its sidecar goes is replaced, its
// target never written; a FIFO there is replaced too, never opened.
func TestArchiveNotFollowed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(src, []byte(`{"type":"user"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	arc := filepath.Join(dir, "arc")
	os.Mkdir(arc, 0o755)
	dst := filepath.Join(arc, "s.jsonl.zst")
	victim, victimIdx := filepath.Join(dir, "victim"), filepath.Join(dir, "victim.idx")
	for _, v := range []string{victim, victimIdx} {
		os.WriteFile(v, []byte("the user's file\n"), 0o600)
	}
	os.Symlink(victim, dst)
	os.Symlink(victimIdx, dst+IndexSuffix)
	res, err := archiveFile(context.Background(), src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "written" {
		t.Errorf("status %s", res.Status)
	}
	for _, v := range []string{victim, victimIdx} {
		if b, _ := os.ReadFile(v); string(b) != "the user's file\n" {
			t.Fatalf("%s written through the link: %q", v, b)
		}
	}
	for _, p := range []string{dst, dst + IndexSuffix} {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s not a regular file: %v %v", p, fi, err)
		}
	}
	os.Remove(dst + IndexSuffix)
	if err := syscall.Mkfifo(dst+IndexSuffix, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := archiveFile(context.Background(), src, dst); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO for a sidecar hangs the archive")
	}
	if fi, err := os.Lstat(dst + IndexSuffix); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("FIFO sidecar not replaced: %v %v", fi, err)
	}
}

// "Up to date" is not the mtime alone: a source that grew, or was
// rewritten at its size, with its mtime set back (touch -r, cp -p) is
// copied again; a sidecar changed by hand is not believed.
func TestArchiveUpToDateNotMtime(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "arc", "s.jsonl.zst")
	mtime := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(src, mtime, mtime) // the mtime kept, as touch -r does
		cache.Settle()                // settled: a racy stamp is never up to date
	}
	check := func(content, status string) {
		t.Helper()
		res, err := archiveFile(context.Background(), src, dst)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != status {
			t.Errorf("status %s, want %s", res.Status, status)
		}
		if got := decompressed(t, dst); string(got) != content {
			t.Errorf("copy holds %q, want %q", got, content)
		}
	}
	write("a\n")
	check("a\n", "written")
	check("a\n", "up_to_date")
	time.Sleep(10 * time.Millisecond) // a ctime of its own
	write("a\nb\n")
	check("a\nb\n", "appended")
	time.Sleep(10 * time.Millisecond)
	write("x\ny\n")
	check("x\ny\n", "written")

	// A sidecar edited by hand (its sum no longer matches) is ignored.
	b, _ := os.ReadFile(dst + IndexSuffix)
	var ix map[string]any
	json.Unmarshal(b, &ix)
	ix["length"] = 1
	b, _ = json.Marshal(ix)
	os.WriteFile(dst+IndexSuffix, b, 0o644)
	if _, ok := readIndex(dst); ok {
		t.Fatal("a tampered sidecar was believed")
	}
	check("x\ny\n", "written")

	// A metadata copy (no sidecar) is compared byte for byte.
	meta, metaDst := filepath.Join(dir, "m.json"), filepath.Join(dir, "arc", "m.json")
	os.WriteFile(meta, []byte(`{"a":1}`), 0o644)
	os.Chtimes(meta, mtime, mtime)
	if _, err := archiveFile(context.Background(), meta, metaDst); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(meta, []byte(`{"a":2}`), 0o644)
	os.Chtimes(meta, mtime, mtime)
	if res, err := archiveFile(context.Background(), meta, metaDst); err != nil || res.Status != "written" {
		t.Fatalf("%+v %v", res, err)
	}
	if got, _ := os.ReadFile(metaDst); !bytes.Equal(got, []byte(`{"a":2}`)) {
		t.Fatalf("meta copy %q", got)
	}
}

// A compressed file that expands far past its size (a zstd bomb) is
// refused at its bound with ErrBomb, not read through; an archive copy
// with a sidecar is bounded by the length the sidecar declares.
func TestBombBounded(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "b.jsonl.zst")
	f, _ := os.Create(bomb)
	zw, _ := zstd.NewWriter(f)
	zero := make([]byte, 1<<20)
	for range 300 { // 300 MB of zeros: a few KB compressed
		zw.Write(zero)
	}
	zw.Close()
	f.Close()
	r, err := Open(bomb)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, r)
	r.Close()
	if !errors.Is(err, ErrBomb) || n > minBound {
		t.Fatalf("read %d bytes, err %v", n, err)
	}
	if got := ArchivedLength(bomb); got != -1 {
		t.Errorf("ArchivedLength of a bomb: %d", got)
	}

	// A real copy decompresses whole; one whose sidecar says less than
	// it holds is refused at the declared length.
	src, dst := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "arc", "s.jsonl.zst")
	os.WriteFile(src, []byte("a\nb\n"), 0o644)
	if _, err := archiveFile(context.Background(), src, dst); err != nil {
		t.Fatal(err)
	}
	if got := decompressed(t, dst); string(got) != "a\nb\n" {
		t.Fatalf("copy %q", got)
	}
	ix, _ := readIndex(dst)
	ix.Length = 2
	ix.Sum = ix.sum()
	b, _ := json.Marshal(ix)
	os.WriteFile(dst+IndexSuffix, b, 0o644)
	r, _ = Open(dst)
	_, err = io.ReadAll(r)
	r.Close()
	if !errors.Is(err, ErrBomb) {
		t.Fatalf("past the declared length: %v", err)
	}
}
