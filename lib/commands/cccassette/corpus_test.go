package cccassette

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

const corpusProjects = "../../../testdata/corpus/claude/projects"

// corpusSessions lists the real-CLI corpus's main transcripts.
func corpusSessions(t *testing.T) []string {
	paths, err := filepath.Glob(filepath.Join(corpusProjects, "*", "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus sessions: %v", err)
	}
	sort.Strings(paths)
	return paths
}

// transcriptFacts reads a transcript with lib/transcript's decoder (not
// the importer's parser): the tool_use blocks in file order and the text
// of the last assistant message, from the records the importer keeps.
func transcriptFacts(t *testing.T, path string) (uses []transcript.Block, lastText string) {
	t.Helper()
	var entries []*transcript.Entry
	_, err := transcript.ReadFile(path, transcript.Options{Types: []string{"assistant", "user"}, Decode: true}, func(l *transcript.Line) error {
		entries = append(entries, l.Entry)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	allSide := true
	for _, e := range entries {
		allSide = allSide && e.IsSidechain
	}
	lastID := ""
	var texts []string
	for _, e := range entries {
		if e.Type != "assistant" || (e.IsSidechain && !allSide) {
			continue
		}
		if e.Message.ID != lastID || e.Message.ID == "" {
			lastID, texts = e.Message.ID, nil
		}
		for _, b := range e.Message.Content {
			switch b.Type {
			case transcript.BlockToolUse:
				uses = append(uses, b)
			case transcript.BlockText:
				if b.Text != "" {
					texts = append(texts, b.Text)
				}
			}
		}
	}
	return uses, strings.Join(texts, "\n\n")
}

// TestCorpusImport is the oracle test: every session the real Claude Code
// CLI wrote, and each of its subagents, imports into a cassette that
// verifies; its tool_call steps are the transcript's tool_use blocks in
// call order (name and input); a successful run's final answer is the
// last assistant text; and each cassette matches its golden file.
func TestCorpusImport(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"import", "--subagents", "--out-dir", dir}, corpusSessions(t)...)
	var stdout, stderr bytes.Buffer
	if code := RunWith(cli.System{}, args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("import exit %d: %s", code, stderr.String())
	}
	recs := bytes.Split(bytes.TrimSpace(stdout.Bytes()), []byte("\n"))
	if len(recs) != 9 {
		t.Fatalf("%d cassettes, want 9 (7 sessions, 2 subagents)", len(recs))
	}
	for _, line := range recs {
		rec, err := cassette.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := rec.GetString("id")
		path, _ := rec.GetString("path")
		source, _ := rec.GetString("source")
		t.Run(id, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "corpus", id+".ndjson"), string(data))
			cs, err := cassette.ReadAll(bytes.NewReader(data))
			if err != nil || len(cs) != 1 {
				t.Fatalf("%v, %d cassettes", err, len(cs))
			}
			c := cs[0]
			if r := cassette.Verify(c); !r.Pass {
				t.Fatalf("verify: %+v", r.FirstFailure)
			}
			uses, lastText := transcriptFacts(t, source)
			var calls []cassette.Value
			for _, s := range c.Steps {
				if typ, _ := s.GetString("type"); typ == cassette.ToolCall {
					p, _ := s.Get("payload")
					calls = append(calls, p)
				}
			}
			if len(calls) != len(uses) {
				t.Fatalf("%d tool_call steps, transcript has %d tool_use blocks", len(calls), len(uses))
			}
			for i, u := range uses {
				name, _ := calls[i].GetString("toolName")
				input, _ := calls[i].Get("toolInput")
				want, err := cassette.Parse(u.Input)
				if err != nil {
					t.Fatal(err)
				}
				if name != u.Name || !cassette.Equal(input, want) {
					t.Errorf("tool_call %d: %s %s, transcript %s %s", i, name, js(input), u.Name, u.Input)
				}
				if id, _ := calls[i].GetString("toolCallId"); id != "call-"+strconv.Itoa(i) {
					t.Errorf("tool_call %d has id %s", i, id)
				}
			}
			out := cassette.OutcomeOfCassette(c)
			if out.Status == cassette.StatusSuccess {
				if a, _ := out.Answer(); a != lastText {
					t.Errorf("final answer %q, last assistant text %q", a, lastText)
				}
			}
		})
	}
}

func js(v cassette.Value) string { b, _ := cassette.AppendJS(nil, v); return string(b) }
