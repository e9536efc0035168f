package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/usage"
)

// usageEdges is a transcript of every kind of line the usage fast path
// must tell apart: CRLF, blank and non-object lines, a malformed line
// with the needle, lines longer than the read buffer with the needle
// (read back) and without (searched on the way, passed over by their
// first bytes), and a final line without its newline.
func usageEdges() string {
	pad := strings.Repeat("x", usage.ScanBuffer+100)
	return `{"cwd":"/a","other":"not an entry, no type"}` + "\n" +
		assistantLine(1, `"input_tokens":1,"output_tokens":2`) +
		strings.TrimSuffix(assistantLine(2, `"input_tokens":3`), "\n") + "\r\n" +
		"\n   \n" +
		`[1,2,"assistant"]` + "\n" +
		`garbage "assistant"` + "\n" +
		`not an object` + "\n" +
		`{"type":"user","message":{"content":"` + pad + `"}}` + "\n" +
		`{"pad":"` + pad + `","type":"assistant","uuid":"a3","sessionId":"s","message":{"id":"m3","model":"x","usage":{"input_tokens":5}}}` + "\n" +
		`{"type":"assistant","uuid":"a4","message":{"id":"m4","model":"x","usage":{"input_tokens":"7"}}}` + "\n" +
		`   ` + pad + "\n" +
		`{"type":"assistant","uuid":"a5","message":{"id":"m5","model":"x","usage":{"input_tokens":1}`
}

// TestUsageLinesGolden: the usage facts and warnings of the malformed
// fixtures and of usageEdges, recorded with the chunked line finder the
// fast path had before it read through ndjson (commit df8d65b), so the
// move changed nothing a user sees.
func TestUsageLinesGolden(t *testing.T) {
	dir := t.TempDir()
	edges := filepath.Join(dir, "edges.jsonl")
	if err := os.WriteFile(edges, []byte(usageEdges()), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "malformed", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no malformed fixtures")
	}
	var b strings.Builder
	for _, p := range append(paths, edges) {
		for _, sum := range []string{"", "day"} {
			facts, warns, err := usageOnce(t, p, sum)
			b.WriteString("== " + filepath.Base(p) + " --sum " + sum + "\n")
			for _, f := range facts {
				j, _ := json.Marshal(f)
				b.Write(j)
				b.WriteByte('\n')
			}
			for _, w := range warns {
				b.WriteString("warning: " + w + "\n")
			}
			if err != nil {
				b.WriteString("error: " + err.Error() + "\n")
			}
		}
	}
	got := strings.ReplaceAll(b.String(), dir, "$DIR")
	got = strings.ReplaceAll(got, filepath.Join("..", "..", "testdata"), "$TESTDATA")
	golden.Check(t, filepath.Join("testdata", "golden", "usage_lines.txt"), got)
}
