package sessions

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHumanPrompt(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string
	}{
		{"typed", `{"type":"user","promptSource":"typed","origin":{"kind":"human"},"message":{"role":"user","content":"  Fix it  "}}`, "Fix it"},
		{"sdk -p", `{"type":"user","promptSource":"sdk","turnOrigin":"sdk","message":{"role":"user","content":"Do x"}}`, "Do x"},
		{"text blocks", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}`, "a\nb"},
		{"meta", `{"type":"user","isMeta":true,"message":{"role":"user","content":"x"}}`, ""},
		{"tool result", `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`, ""},
		{"tool result field", `{"type":"user","toolUseResult":"Error: x","message":{"role":"user","content":[{"type":"text","text":"x"}]}}`, ""},
		{"command", `{"type":"user","message":{"role":"user","content":"<command-name>/rename</command-name>"}}`, ""},
		{"command stdout", `{"type":"user","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}`, ""},
		{"bash mode", `{"type":"user","message":{"role":"user","content":"<bash-input>ls</bash-input>"}}`, ""},
		{"compact summary", `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`, ""},
		{"task notification", `{"type":"user","promptSource":"system","turnOrigin":"task_notification","message":{"role":"user","content":"<task-notification>"}}`, ""},
		{"peer", `{"type":"user","turnOrigin":"peer","origin":{"kind":"peer"},"message":{"role":"user","content":"hi"}}`, ""},
		{"peer text only", `{"type":"user","message":{"role":"user","content":"Another Claude session sent a message:\nhi"}}`, ""},
		{"coordinator", `{"type":"user","origin":{"kind":"coordinator"},"message":{"role":"user","content":"go"}}`, ""},
		{"sidechain", `{"type":"user","isSidechain":true,"message":{"role":"user","content":"sub"}}`, ""},
		{"interrupted", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`, ""},
		{"empty", `{"type":"user","message":{"role":"user","content":"   "}}`, ""},
		{"content of another type", `{"type":"user","message":{"role":"user","content":42}}`, ""},
	}
	for _, tt := range tests {
		var h headLine
		if err := json.Unmarshal([]byte(tt.line), &h); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := humanPrompt(&h); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func jsonl(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const (
	lineStart  = `{"type":"user","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"first"}}`
	lineCustom = `{"type":"custom-title","customTitle":"mine"}`
	lineAI     = `{"type":"ai-title","aiTitle":"generated"}`
	lineEnd    = `{"type":"assistant","timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"assistant","content":[]}}`
)

// A transcript far larger than the read bounds: the summary comes from
// its head and tail, and what was read does not depend on its size.
func TestSummaryBoundedRead(t *testing.T) {
	dir := t.TempDir()
	filler := `{"type":"assistant","timestamp":"2026-01-01T12:00:00.000Z","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}]}}`
	var reads []int64
	for _, n := range []int{200, 2000} {
		var b strings.Builder
		b.WriteString(lineStart + "\n" + lineAI + "\n")
		for i := 0; i < n; i++ {
			b.WriteString(filler + "\n")
		}
		b.WriteString(lineCustom + "\n" + lineEnd + "\n")
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := readSummary(path, int64(b.Len()), false, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.cwd != "/w" || s.firstPrompt != "first" || s.customTitle != "mine" || s.aiTitle != "generated" {
			t.Errorf("summary %+v", s)
		}
		if !s.started.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) || !s.last.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("times %v %v", s.started, s.last)
		}
		reads = append(reads, s.bytesRead)
	}
	// The head is known from its first chunk; with no last-prompt record
	// the whole tail window is read.
	if reads[0] != reads[1] || reads[0] != firstChunk+DefaultTailBytes {
		t.Errorf("bytes read %v: want %d for both sizes", reads, firstChunk+DefaultTailBytes)
	}
}

// A transcript shaped as Claude Code 2.1.328 writes one: a title record
// first (-n), later the generated title mid-file, and at the end of every
// turn last-prompt followed by the current titles. Listing stops reading
// once it knows what it needs, and is still right when the first prompt is
// 200 KiB in.
func TestSummaryStopsEarly(t *testing.T) {
	dir := t.TempDir()
	filler := `{"type":"assistant","timestamp":"2026-01-01T12:00:00.000Z","message":{"content":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}]}}`
	block := func(custom, ai string) string {
		return `{"type":"last-prompt","lastPrompt":"p","sessionId":"s"}` + "\n" +
			`{"type":"custom-title","customTitle":"` + custom + `","sessionId":"s"}` + "\n" +
			`{"type":"ai-title","aiTitle":"` + ai + `","sessionId":"s"}` + "\n" +
			`{"type":"agent-name","agentName":"` + custom + `","sessionId":"s"}` + "\n"
	}
	tests := []struct {
		name    string
		prelude string // lines before the first prompt
		maxRead int64
	}{
		{"typical", "", 16 << 10},
		{"prompt 200 KiB in", strings.Repeat(`{"type":"attachment","timestamp":"2026-01-01T00:00:00.000Z","attachment":{"type":"x","content":"`+strings.Repeat("y", 1000)+`"}}`+"\n", 200), 300 << 10},
	}
	for _, tt := range tests {
		var b strings.Builder
		b.WriteString(`{"type":"custom-title","customTitle":"old","sessionId":"s"}` + "\n")
		b.WriteString(tt.prelude + lineStart + "\n")
		for i := 0; i < 100; i++ {
			b.WriteString(filler + "\n")
			if i == 20 {
				b.WriteString(lineAI + "\n" + block("mid", "generated"))
			}
		}
		b.WriteString(block("new", "regenerated") + lineEnd + "\n" + block("newest", "regenerated") + `{"type":"cost-state","sessionId":"s"}` + "\n")
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := readSummary(path, int64(b.Len()), false, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.cwd != "/w" || s.firstPrompt != "first" || s.customTitle != "newest" || s.aiTitle != "regenerated" {
			t.Errorf("%s: summary %+v", tt.name, s)
		}
		if !s.last.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: last %v", tt.name, s.last)
		}
		if s.bytesRead > tt.maxRead {
			t.Errorf("%s: read %d bytes, want at most %d", tt.name, s.bytesRead, tt.maxRead)
		}
		t.Logf("%s: %d bytes read of %d", tt.name, s.bytesRead, b.Len())
	}
}

func TestSummaryTitles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const id = "aaaaaaaa-0000-4000-8000-000000000001"
	tests := []struct {
		name, body, titleFile, want string
	}{
		{"custom wins over ai", jsonl(lineStart, lineCustom, lineAI, lineEnd), "", "mine"},
		{"newest custom", jsonl(lineStart, lineCustom, `{"type":"custom-title","customTitle":"newer"}`, lineEnd), "", "newer"},
		{"ai only, newest", jsonl(lineStart, lineAI, `{"type":"ai-title","aiTitle":"better"}`), "", "better"},
		{"custom-title.json", jsonl(lineStart, lineAI), `{"customTitle":"from file"}`, "from file"},
		{"none", jsonl(lineStart, lineEnd), "", ""},
	}
	for _, tt := range tests {
		path := write("p/"+id+".jsonl", tt.body)
		os.RemoveAll(filepath.Join(dir, "p", id))
		if tt.titleFile != "" {
			write("p/"+id+"/custom-title.json", tt.titleFile)
		}
		list := []Session{{SessionID: id, TranscriptPath: path, ProjectDir: filepath.Join(dir, "p"), SizeBytes: int64(len(tt.body))}}
		if errs := Summarize(context.Background(), list, ListOptions{}); errs != nil {
			t.Fatal(errs)
		}
		if list[0].Title != tt.want {
			t.Errorf("%s: title %q, want %q", tt.name, list[0].Title, tt.want)
		}
	}
}

func TestSummaryCompressed(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(lineStart + "\n"))
	for i := 0; i < 3000; i++ {
		zw.Write([]byte(`{"type":"progress","timestamp":"2026-01-01T01:00:00.000Z","data":"` + strings.Repeat("y", 100) + `"}` + "\n"))
	}
	zw.Write([]byte(lineCustom + "\n" + lineEnd + "\n"))
	zw.Close()
	path := filepath.Join(dir, "x.jsonl.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := readSummary(path, int64(buf.Len()), true, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.firstPrompt != "first" || s.customTitle != "mine" || s.last.Day() != 2 || s.bytesRead != int64(buf.Len()) {
		t.Errorf("summary %+v", s)
	}
}

// Malformed lines, lines of surprising shapes and a torn last line are
// skipped; what the other lines say still counts.
func TestSummaryTolerant(t *testing.T) {
	dir := t.TempDir()
	body := jsonl(`not json`, `{"type":"user","cwd":17}`, `[1,2]`, lineStart, `{"type":"custom-title","customTitle":5}`, lineEnd) + `{"type":"assistant","timestamp":"2027-01-01T00:00:00.000Z","mess`
	path := filepath.Join(dir, "t.jsonl")
	os.WriteFile(path, []byte(body), 0o644)
	s, err := readSummary(path, int64(len(body)), false, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.cwd != "/w" || s.firstPrompt != "first" || s.customTitle != "" || s.last.Year() != 2026 {
		t.Errorf("summary %+v", s)
	}
}

func FuzzSummaryScan(f *testing.F) {
	f.Add([]byte(jsonl(lineStart, lineCustom, lineAI, lineEnd)), true, true)
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"text","text":1}]}}`), true, false)
	f.Fuzz(func(t *testing.T, data []byte, head, tail bool) {
		var s summary
		s.scan(data, head, tail, head && tail)
	})
}

// A damaged archive is reported, and its record still gets what its
// readable start says and the file's mtime as its last activity, so it
// sorts by time with the others instead of falling to the end with nulls.
func TestSummarizeDamagedArchive(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(lineStart + "\n"))
	zw.Close()
	truncated := buf.Bytes()[:buf.Len()-8] // the gzip trailer is lost
	mtime := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	files := map[string][]byte{"trunc.jsonl.gz": truncated, "junk.jsonl.gz": []byte("not gzip"), "junk.jsonl.zst": []byte("not zstd")}
	var list []Session
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, mtime, mtime)
		list = append(list, Session{SessionID: name, TranscriptPath: p, ProjectDir: dir, SizeBytes: int64(len(data)), Compressed: true, Mtime: mtime, noDir: true})
	}
	errs := Summarize(context.Background(), list, ListOptions{})
	if len(errs) != len(files) {
		t.Errorf("got %d errors, want one per damaged archive: %v", len(errs), errs)
	}
	for _, s := range list {
		if !s.LastActivityAt.Equal(mtime) {
			t.Errorf("%s: last activity %v, want the mtime %v", s.SessionID, s.LastActivityAt, mtime)
		}
		if s.SessionID == "trunc.jsonl.gz" && (s.Cwd != "/w" || s.FirstPrompt != "first") {
			t.Errorf("truncated archive: cwd %q, first prompt %q; want what its start says", s.Cwd, s.FirstPrompt)
		}
	}
}
