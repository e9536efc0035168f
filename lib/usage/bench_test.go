package usage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/bench/corpus"
)

// BenchmarkScanUsageLine measures the narrow reader on one real-shaped
// assistant record.
func BenchmarkScanUsageLine(b *testing.B) {
	line := []byte(`{"parentUuid":"6a72d708-ba8c-4984-932e-52810e9147e2","isSidechain":false,"message":{"id":"msg_fake_t000","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"file_path":"/a/b.go","content":"package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1500,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":120,"output_tokens_details":{"thinking_tokens":0},"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null},"stop_details":null},"apiBlockIndex":0,"requestId":"req_fake","requestRef":"62d57fd0-3bdc-4481-9a2e-5c56a6049a1d","type":"assistant","uuid":"6a72d708-ba8c-4984-932e-52810e9147e3","timestamp":"2026-11-30T10:33:39.797Z","cwd":"/tmp/o3/proj","sessionId":"fe0ed3ef-bc83-4c37-8e8a-2fad21388b38","version":"2.1.328","gitBranch":"HEAD"}`)
	b.SetBytes(int64(len(line)))
	var l Line
	for b.Loop() {
		if err := ParseLine(line, &l); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindLinesChecked measures what checking the lines the usage
// fast path passes over costs: the same plain transcripts (a generated
// corpus, read from memory) found with and without the check, run side
// by side so a busy machine slows both alike.
func BenchmarkFindLinesChecked(b *testing.B) {
	dir := b.TempDir()
	if _, err := corpus.Generate(context.Background(), corpus.Options{Out: dir, Size: 16 << 20, Sessions: 20, Seed: 1, HugeLine: -1, Zst: -1}); err != nil {
		b.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	var data []byte
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, raw...)
	}
	for _, checked := range []bool{false, true} {
		name := "plain"
		if checked {
			name = "checked"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var buf []byte
			for b.Loop() {
				var st ScanStats
				f := &lineFinder{pat: assistantNeedle, fn: func([]byte, int, bool) error { return nil }}
				if checked {
					f.other = st.other
				}
				var err error
				if buf, err = f.find(bytes.NewReader(data), buf); err != nil {
					b.Fatal(err)
				}
				if checked && (!st.SawEntry || st.NMalformed > 0) {
					b.Fatalf("stats %+v", st)
				}
			}
		})
	}
}
