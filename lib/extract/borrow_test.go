package extract

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outOfOrder writes a transcript whose results come after the lines of
// other results and far from their calls (more than the reader's buffer
// between, in short lines), one before its call: results that outlive their line.
func outOfOrder(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	pad := strings.Repeat("p", 200)
	head := `"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"`
	for i := range 6 {
		a, c, early := fmt.Sprintf("a%d", i), fmt.Sprintf("c%d", i), fmt.Sprintf("e%d", i)
		res := func(id, text string, isErr bool) {
			fmt.Fprintf(&b, `{"type":"user","uuid":"r-%s",%s,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%q,"is_error":%v}]},"toolUseResult":{"stdout":%q,"stderr":"","interrupted":false}}`+"\n",
				id, head, id, text, isErr, text)
		}
		res(early, "early result "+early+" with <html> & \u2028", false)
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"u-%s",%s,"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"echo %s"}},{"type":"tool_use","id":%q,"name":"Read","input":{"file_path":"/f/%s"}},{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"late"}}]}}`+"\n",
			a, head, a, a, c, c, early)
		res(c, "second answered first "+c, false)
		for range 1500 {
			fmt.Fprintf(&b, `{"type":"user","uuid":"p",%s,"message":{"role":"user","content":%q}}`+"\n", head, pad)
		}
		res(a, "Exit code 1\nfirst answered last "+a, true)
	}
	// gzip: read as a stream through the reused buffer, not mapped.
	path := filepath.Join(t.TempDir(), "s1.jsonl.gz")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(b.String()))
	zw.Close()
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBorrowedSameOutput: with Options.JSONOnly and no cache, the tool
// kinds' entries borrow the reader's lines (borrows) and a tools fact
// answered on its result's line is written out at once (emitBorrowed);
// the facts are those of the slow twin (every value copied as it is
// decoded) and of the sequential read through Entry, with one worker and
// several, the queues big and small. The corpus's files are bigger than
// the reader's buffer, so a borrowed byte kept past its line would show.
func TestBorrowedSameOutput(t *testing.T) {
	paths := append(parallelCorpus(t), outOfOrder(t))
	defer func(q, a, n, s int) {
		maxQueued, maxAhead, batchItems, batchSize = q, a, n, s
		borrowLines = true
	}(maxQueued, maxAhead, batchItems, batchSize)
	for _, o := range []Options{{Kind: "tools"}, {Kind: "tools", Errors: true}, {Kind: "shell"}, {Kind: "shell", Errors: true},
		{Kind: "files"}, {Kind: "files", Unique: true}} {
		o.JSONOnly, o.Subagents = true, true
		want := readEntries(t, o, paths)
		for _, small := range []bool{false, true} {
			if small {
				maxQueued, maxAhead, batchItems, batchSize = 2<<10, 4<<10, 3, 1<<10
			}
			for _, borrow := range []bool{false, true} {
				borrowLines = borrow
				for _, workers := range []int{1, 4} {
					o.Workers = workers
					got, _, _ := readInputs(t, o, paths)
					if got != want {
						t.Fatalf("%s errors=%v borrow=%v workers=%d small=%v: differs from the read through Entry (%d bytes, want %d)",
							o.Kind, o.Errors, borrow, workers, small, len(got), len(want))
					}
				}
			}
		}
	}
	// The borrowed path was taken: tools facts written at once come as
	// their lines.
	borrowLines = true
	lines := 0
	x, err := New(Options{Kind: "tools", JSONOnly: true, Subagents: true}, func(v any) error {
		if _, ok := v.(*json.RawMessage); ok {
			lines++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = x.ReadTranscripts(t.Context(), producePaths(paths))
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if lines == 0 {
		t.Fatal("no tools fact was written at once")
	}
}
