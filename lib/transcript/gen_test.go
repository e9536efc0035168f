package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genWords is filler vocabulary: prose, code and paths, with the quotes,
// backslashes and newlines that real tool output escapes.
var genWords = strings.Fields(`the a to of and in is it for that file func return err nil if := go test
package main import fmt "quoted" path/to/file.go C:\dir\x {"k": 1} <tag> & 12345 0x1f
ÄÖÜ straße 日本語 emoji✓ tab	here`)

func genText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(genWords[r.IntN(len(genWords))])
		if r.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// writeCorpus writes a synthetic transcript of about size bytes shaped
// like Claude Code 2.1.328 output (one block per assistant record, tool
// results twice: in the block and in toolUseResult) and returns its path.
func writeCorpus(tb testing.TB, dir string, size int64) string {
	tb.Helper()
	path := filepath.Join(dir, "corpus.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	sid := "33333333-4444-4555-8666-777777777777"
	var written int64
	parent := ""
	n := 0
	put := func(rec map[string]any) {
		n++
		rec["sessionId"] = sid
		rec["timestamp"] = fmt.Sprintf("2026-05-%02dT%02d:%02d:%02d.%03dZ", 1+n/86400%28, n/3600%24, n/60%60, n%60, n%1000)
		if t := rec["type"]; t == "user" || t == "assistant" || t == "attachment" || t == "system" {
			id := fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
			rec["uuid"], rec["isSidechain"], rec["cwd"], rec["version"] = id, false, "/home/dev/work/alpha", "2.1.328"
			if parent == "" {
				rec["parentUuid"] = nil
			} else {
				rec["parentUuid"] = parent
			}
			parent = id
		}
		b, err := json.Marshal(rec)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
		written += int64(len(b) + 1)
	}
	usage := map[string]any{"input_tokens": 1500, "output_tokens": 120, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 9000}
	asst := func(mid string, i int, block map[string]any) {
		put(map[string]any{"type": "assistant", "requestRef": "apireq-" + mid, "apiBlockIndex": i, "message": map[string]any{
			"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{block}, "stop_reason": "tool_use", "stop_sequence": nil, "usage": usage}})
	}
	for turn := 0; written < size; turn++ {
		put(map[string]any{"type": "queue-operation", "operation": "enqueue", "content": genText(r, 80)})
		put(map[string]any{"type": "user", "promptSource": "sdk", "message": map[string]any{"role": "user", "content": genText(r, 200)}})
		put(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "skill_listing", "content": genText(r, 1500)}})
		for step := 0; step < 4; step++ {
			mid := fmt.Sprintf("msg_%d_%d", turn, step)
			asst(mid, 0, map[string]any{"type": "thinking", "thinking": genText(r, 600), "signature": strings.Repeat("c2ln", 40)})
			asst(mid, 1, map[string]any{"type": "text", "text": genText(r, 300)})
			id := fmt.Sprintf("toolu_%d_%d", turn, step)
			asst(mid, 2, map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": genText(r, 60)}})
			out := genText(r, 500+r.IntN(8000))
			put(map[string]any{"type": "user", "sourceToolAssistantUUID": parent, "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": false}}},
				"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false}})
		}
		put(map[string]any{"type": "api-request-blob", "hash": fmt.Sprint(turn), "message": map[string]any{"role": "user", "content": genText(r, 2000)}})
		put(map[string]any{"type": "system", "subtype": "turn_duration", "durationMs": 1234, "messageCount": 20})
		put(map[string]any{"type": "last-prompt", "lastPrompt": "x", "leafUuid": parent})
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return path
}
