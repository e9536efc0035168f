package cassette

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigCassette is a cassette of n steps, each carrying a text of size
// bytes (plain prose, or prose with escapes every few bytes).
func bigCassette(n, size int, escapes bool) []byte {
	r := NewRecorder("bench")
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write(Header{Version: 2, ID: "bench"}.Value())
	unit := "plain text of a tool output, with some words. "
	if escapes {
		unit = "line \"quoted\"\tand\n"
	}
	text := strings.Repeat(unit, size/len(unit))
	for i := 0; i < n; i++ {
		s, _ := r.Append(ToolResult, int64(i), ObjectValue(Member{"toolCallId", StringValue("call-1")}, Member{"toolName", StringValue("Bash")}, Member{"result", StringValue(text)}))
		w.Write(s.Value())
	}
	w.Flush()
	return b.Bytes()
}

func benchVerify(b *testing.B, escapes bool) {
	data := bigCassette(64, 1<<20, escapes)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd := NewReader(bytes.NewReader(data))
		v := &Verifier{}
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Header {
				v.Header(rec.Value)
			} else {
				v.Step(rec.Value)
			}
		}
		if r := v.Report(); !r.Pass {
			b.Fatal(r.FirstFailure)
		}
	}
}

func BenchmarkVerifyPlain(b *testing.B)   { benchVerify(b, false) }
func BenchmarkVerifyEscapes(b *testing.B) { benchVerify(b, true) }

// BenchmarkVerifyCorpus verifies the cassettes imported from the real-CLI
// corpus (cc-cassette's golden files), many times over in one stream:
// the realistic mix of small steps and repeated histories.
func BenchmarkVerifyCorpus(b *testing.B) {
	files, _ := filepath.Glob("../commands/cccassette/testdata/corpus/*.ndjson")
	if len(files) == 0 {
		b.Skip("no golden cassettes")
	}
	var one []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, data...)
	}
	data := bytes.Repeat(one, 50)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rd := NewReader(bytes.NewReader(data))
		var v *Verifier
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if rec.Header {
				if v != nil && !v.Report().Pass {
					b.Fatal("a corpus cassette fails verify")
				}
				v = &Verifier{}
				v.Header(rec.Value)
				continue
			}
			v.Step(rec.Value)
		}
	}
}

// BenchmarkImportCorpus imports the largest real-CLI corpus transcript
// (bytes are the transcript's, not the larger cassette's).
func BenchmarkImportCorpus(b *testing.B) {
	data, err := os.ReadFile("../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	if err != nil {
		b.Skip(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		im := NewClaudeCodeImporter(ImportOptions{ID: "bench"})
		for n, l := range lines {
			if err := im.Add(l, n+1); err != nil {
				b.Fatal(err)
			}
		}
		c, err := im.Finish()
		if err != nil {
			b.Fatal(err)
		}
		if r := Verify(c); !r.Pass {
			b.Fatal(r.FirstFailure)
		}
	}
}
