package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	dir := t.TempDir()
	long := `{"type":"user","message":{"content":"` + strings.Repeat("x", sniffSize) + `"}}` + "\n"
	for _, tt := range []struct {
		name, body string
		not        string // the error's words; "" for a transcript
	}{
		{"entries", `{"type":"permission-mode","permissionMode":"default"}` + "\n" + `{"type":"user"}` + "\n", ""},
		{"empty", "", ""},
		{"blank", "\n \n", ""},
		{"a bad first line, then an entry", "garbage\n" + `{"type":"user"}` + "\n", ""},
		{"one long first line", long, ""},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\n1\n", "a binary file"},
		{"text", "hello\nworld\n", "no JSON record in its first 2 lines"},
		{"numbers", "7\n2\n4\n", "no JSON record in its first 3 lines"},
		{"cc-extract output", `{"session_id":"s","text":"hi"}` + "\n", `1 records without a "type"`},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".jsonl")
		if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Sniff(path)
		switch {
		case tt.not == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.not != "" && (!errors.Is(err, ErrNotTranscript) || !strings.Contains(err.Error(), path+": not a transcript: "+tt.not)):
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.not)
		}
	}
	if err := Sniff(filepath.Join(dir, "nope.jsonl")); err == nil || !strings.Contains(err.Error(), "nope.jsonl") || errors.Is(err, ErrNotTranscript) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestSniffCorpus: every transcript the real Claude Code wrote passes.
func TestSniffCorpus(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/corpus/claude/projects/*/*.jsonl")
	more, _ := filepath.Glob("../../testdata/corpus/claude/projects/*/*/subagents/*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no corpus")
	}
	for _, p := range append(paths, more...) {
		if err := Sniff(p); err != nil {
			t.Error(err)
		}
	}
}

// TestSniffAllTestdata: no transcript under testdata/ that the readers
// accept is refused (the real CLI's corpora and the hand-made ones).
func TestSniffAllTestdata(t *testing.T) {
	n := 0
	_ = filepath.WalkDir("../../testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.Contains(p, "history") {
			return nil
		}
		// notes.jsonl sits among transcripts to be told apart from them.
		if err := Sniff(p); (err != nil) != strings.HasSuffix(p, "/notes.jsonl") {
			t.Errorf("%s: %v", p, err)
		}
		n++
		return nil
	})
	if n < 50 {
		t.Errorf("only %d transcripts under testdata", n)
	}
}

// FuzzSniff: any head is judged without a panic, and a head that holds an
// entry line is a transcript.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("{\"type\":\"user\"}\n"), false)
	f.Add([]byte("\x00\x01\n7\n"), true)
	f.Add([]byte("{\"a\":1}\n{\"type\":"), true)
	f.Fuzz(func(t *testing.T, head []byte, more bool) {
		err := sniff("f", head, more)
		if err != nil && !errors.Is(err, ErrNotTranscript) {
			t.Errorf("%v", err)
		}
		if sniff("f", append([]byte("{\"type\":\"user\"}\n"), head...), more) != nil {
			t.Errorf("a head starting with an entry refused")
		}
	})
}
