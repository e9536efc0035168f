package transcript

import (
	"encoding/json"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/ccpipe/ccpipe/lib/ndjson"
)

// The benchmarks read one generated 64 MiB transcript (from the page
// cache after the first pass), so MB/s is the reader's speed, not the
// disk's. TRANSCRIPT_BENCH_FILE=path benchmarks another file instead
// (bench/entries.sh joins a bench/gen corpus into one). Compare:
//
//	BenchmarkTypesAssistant  the --types assistant path (byte check + Scan)
//	BenchmarkScan            every line scanned (passthrough with counts)
//	BenchmarkDecode          every line decoded into an Entry
//	BenchmarkJSONValid       ndjson.Records: encoding/json's json.Valid per line
//	BenchmarkJSONMap         json.Unmarshal into map[string]any per line
var (
	benchOnce sync.Once
	benchPath string
	benchSize int64
)

func benchCorpus(b *testing.B) string {
	benchOnce.Do(func() {
		if p := os.Getenv("TRANSCRIPT_BENCH_FILE"); p != "" {
			benchPath = p
			fi, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			benchSize = fi.Size()
			return
		}
		dir, err := os.MkdirTemp("", "transcript-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchPath = writeCorpus(b, dir, 64<<20)
		fi, _ := os.Stat(benchPath)
		benchSize = fi.Size()
	})
	b.SetBytes(benchSize)
	return benchPath
}

func benchRead(b *testing.B, opts Options) {
	path := benchCorpus(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if _, err := ReadFile(path, opts, func(*Line) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no records")
		}
	}
}

func BenchmarkTypesAssistant(b *testing.B) { benchRead(b, Options{Types: []string{"assistant"}}) }
func BenchmarkTypesUser(b *testing.B)      { benchRead(b, Options{Types: []string{"user"}}) }
func BenchmarkScan(b *testing.B)           { benchRead(b, Options{}) }
func BenchmarkDecode(b *testing.B)         { benchRead(b, Options{Decode: true}) }

func BenchmarkJSONValid(b *testing.B) {
	path := benchCorpus(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(path)
		if _, err := ndjson.Records(f, nil, func([]byte, int) error { return nil }); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

func BenchmarkJSONMap(b *testing.B) {
	path := benchCorpus(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(path)
		rd := ndjson.NewReader(f)
		for {
			line, err := rd.Next()
			if err == io.EOF {
				break
			}
			var m map[string]any
			if json.Unmarshal(line, &m) != nil {
				b.Fatal("bad line")
			}
		}
		f.Close()
	}
}

// BenchmarkTypesAssistantNoMmap is BenchmarkTypesAssistant with the
// memory maps off (every file read as a stream): issue 15 asks whether
// the maps earn their SIGBUS guard.
func BenchmarkTypesAssistantNoMmap(b *testing.B) {
	saved := minMapped
	minMapped = 1 << 62
	defer func() { minMapped = saved }()
	benchRead(b, Options{Types: []string{"assistant"}})
}
