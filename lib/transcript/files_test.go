package transcript

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func compressTo(t *testing.T, src, dst string, c Compression) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	switch c {
	case Gzip:
		w := gzip.NewWriter(&buf)
		w.Write(data)
		w.Close()
	case Zstd:
		w, _ := zstd.NewWriter(&buf)
		w.Write(data)
		w.Close()
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenCompressed(t *testing.T) {
	want, _ := os.ReadFile(fixtureSession)
	dir := t.TempDir()
	files := map[string]Compression{"s.jsonl.gz": Gzip, "s.jsonl.zst": Zstd, "gz-renamed.jsonl": Gzip, "zst-renamed.jsonl": Zstd}
	for name, c := range files {
		compressTo(t, fixtureSession, filepath.Join(dir, name), c)
	}
	for name := range files {
		r, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, err %v", name, len(got), err)
		}
	}
	// A corrupt archive is an error at open or read, never a panic.
	os.WriteFile(filepath.Join(dir, "bad.jsonl.zst"), []byte("not zstd at all"), 0o644)
	if _, err := ReadFile(filepath.Join(dir, "bad.jsonl.zst"), Options{}, func(*Line) error { return nil }); err == nil {
		t.Error("corrupt zstd: no error")
	}
	// A tiny plain file is read as is.
	os.WriteFile(filepath.Join(dir, "tiny.jsonl"), []byte("{}"), 0o644)
	got, _ := readAll(t, filepath.Join(dir, "tiny.jsonl"), Options{})
	if len(got) != 1 {
		t.Errorf("tiny: %q", got)
	}
}

func TestSubagents(t *testing.T) {
	subs, err := Subagents(fixtureSession)
	if err != nil || len(subs) != 1 {
		t.Fatalf("subagents %+v, %v", subs, err)
	}
	s := subs[0]
	if s.AgentID != "a0123456789abcdef" || s.Meta == nil || s.Meta.ToolUseID != "toolu_agent1" ||
		s.Meta.RequestShape != "foreground" || s.Meta.AgentType != "general-purpose" || s.FirstTimestamp != "2026-05-01T10:00:05.000Z" {
		t.Errorf("subagent %+v meta %+v", s, s.Meta)
	}
	// Links to the parent's Agent tool_use.
	found := false
	ReadFile(fixtureSession, Options{Types: []string{"assistant"}, Decode: true}, func(l *Line) error {
		for _, b := range l.Entry.Message.Content {
			if b.Type == BlockToolUse && b.Name == "Agent" && b.ID == s.Meta.ToolUseID {
				found = true
			}
		}
		return nil
	})
	if !found {
		t.Error("no Agent tool_use with the meta's toolUseId")
	}
	if subs, err := Subagents(filepath.Join(t.TempDir(), "none.jsonl")); subs != nil || err != nil {
		t.Errorf("no subagents dir: %v %v", subs, err)
	}
	if SessionID("/x/abc.jsonl.zst") != "abc" || SessionDir("/x/abc.jsonl") != "/x/abc" {
		t.Error("SessionID / SessionDir")
	}
}

func TestSubagentsOrderAndBadMeta(t *testing.T) {
	main := filepath.Join(t.TempDir(), "s.jsonl")
	dir := filepath.Join(SessionDir(main), "subagents")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(main, nil, 0o644)
	os.WriteFile(filepath.Join(dir, "agent-b.jsonl"), []byte(`{"timestamp":"2026-01-01T00:00:01Z"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "agent-a.jsonl"), []byte(`{"timestamp":"2026-01-01T00:00:02Z"}`+"\n"), 0o644)
	compressTo(t, filepath.Join(dir, "agent-a.jsonl"), filepath.Join(dir, "agent-a.jsonl.zst"), Zstd)
	compressTo(t, filepath.Join(dir, "agent-a.jsonl"), filepath.Join(dir, "agent-c.jsonl.zst"), Zstd)
	os.WriteFile(filepath.Join(dir, "agent-b.meta.json"), []byte(`{"toolUseId":5,"agentType":"x"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "agent-a.meta.json"), []byte(`[1]`), 0o644)
	subs, err := Subagents(main)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.AgentID+":"+filepath.Base(s.Path))
	}
	if want := []string{"b:agent-b.jsonl", "a:agent-a.jsonl", "c:agent-c.jsonl.zst"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("order %q, want %q", ids, want)
	}
	if m := subs[0].Meta; m == nil || m.AgentType != "x" || !reflect.DeepEqual(m.TypeMismatches, []string{"toolUseId"}) {
		t.Errorf("tolerant meta %+v", m)
	}
	if subs[1].Meta != nil {
		t.Errorf("non-object meta %+v", subs[1].Meta)
	}
}

// snapshot hashes every file of a tree with its mode and mtime.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := de.Info()
		sum := ""
		if de.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			h := sha256.Sum256(b)
			sum = string(h[:])
		}
		m[p] = fi.Mode().String() + fi.ModTime().String() + sum
		return nil
	})
	return m
}

// copyTree copies the fixture config dir and makes it read-only.
func readOnlyFixture(t *testing.T) (cfg, session string) {
	t.Helper()
	cfg = filepath.Join(t.TempDir(), "claude")
	src := filepath.Join(fixtureDir, "claude")
	filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(cfg, rel)
		if de.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, _ := os.ReadFile(p)
		os.WriteFile(dst, b, 0o644)
		old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		return os.Chtimes(dst, old, old)
	})
	filepath.WalkDir(cfg, func(p string, de fs.DirEntry, err error) error {
		fi, _ := de.Info()
		return os.Chmod(p, fi.Mode().Perm()&^0o222)
	})
	t.Cleanup(func() {
		filepath.WalkDir(cfg, func(p string, de fs.DirEntry, err error) error {
			fi, _ := de.Info()
			return os.Chmod(p, fi.Mode().Perm()|0o200)
		})
	})
	return cfg, filepath.Join(cfg, "projects/-home-dev-work-alpha/11111111-2222-4333-8444-555555555555.jsonl")
}

func TestArchiveReadOnlyTree(t *testing.T) {
	cfg, session := readOnlyFixture(t)
	cache.Settle() // settled: a racy stamp is never up to date
	before := snapshot(t, cfg)
	out := filepath.Join(t.TempDir(), "archive")
	var got []ArchiveResult
	collect := func(r ArchiveResult) error { got = append(got, r); return nil }
	if err := Archive(context.Background(), session, out, collect); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got {
		rel, _ := filepath.Rel(out, r.ArchivePath)
		names = append(names, rel+" "+r.Status)
	}
	want := []string{
		"-home-dev-work-alpha/11111111-2222-4333-8444-555555555555.jsonl.zst written",
		"-home-dev-work-alpha/11111111-2222-4333-8444-555555555555/subagents/agent-a0123456789abcdef.jsonl.zst written",
		"-home-dev-work-alpha/11111111-2222-4333-8444-555555555555/subagents/agent-a0123456789abcdef.meta.json written",
		"-home-dev-work-alpha/11111111-2222-4333-8444-555555555555/tool-results/b7x2k9q1z.txt.zst written",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("archived\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	// The copy reads back as the original, subagents included.
	orig, _ := readAll(t, session, Options{})
	back, _ := readAll(t, got[0].ArchivePath, Options{})
	if !reflect.DeepEqual(orig, back) {
		t.Errorf("archive reads %q", back)
	}
	if subs, _ := Subagents(got[0].ArchivePath); len(subs) != 1 || subs[0].Meta == nil {
		t.Errorf("archived subagents %+v", subs)
	}
	// A second run finds every copy up to date.
	got = nil
	if err := Archive(context.Background(), session, out, collect); err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if r.Status != "up_to_date" {
			t.Errorf("%s: %s", r.ArchivePath, r.Status)
		}
	}
	// Refused inside the config dir.
	if err := Archive(context.Background(), session, filepath.Join(cfg, "backup"), collect); !errors.Is(err, ErrArchiveInConfigDir) {
		t.Errorf("archive into the config dir: %v", err)
	}
	// Nothing in the source tree changed: no write, no new file, same
	// mtimes. (chmod -w alone proves nothing to root.)
	ReadFile(session, Options{Decode: true}, func(*Line) error { return nil })
	ActiveBranch(session, 0)
	if after := snapshot(t, cfg); !reflect.DeepEqual(before, after) {
		t.Error("the read-only source tree changed")
	}
}
