package sessions

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/profiles"
)

// The listing benchmark. A generated config dir holds CCPIPE_BENCH_SESSIONS
// transcripts (default 2000) of a few KB, of which CCPIPE_BENCH_LARGE
// (default 4) are grown to a large size; the "1MB" and "large" variants
// differ only in that size (1 MB against CCPIPE_BENCH_LARGE_MB, default 64).
// Listing time and bytes read per transcript must be the same for both;
// `cat` of the same files (the peer) grows with the size. Trees are kept
// under $TMPDIR/ccpipe-bench-sessions-* between runs; delete them when done.
//
//	go test ./lib/sessions -run '^$' -bench BenchmarkList -benchtime 5x
//	CCPIPE_BENCH_SESSIONS=10000 CCPIPE_BENCH_LARGE_MB=100 go test ./lib/sessions -run '^$' -bench BenchmarkList -benchtime 3x
func BenchmarkList(b *testing.B) {
	n := envInt("CCPIPE_BENCH_SESSIONS", 2000)
	large := envInt("CCPIPE_BENCH_LARGE", 4)
	bigMB := envInt("CCPIPE_BENCH_LARGE_MB", 64)
	for _, v := range []struct {
		name string
		mb   int
	}{{"1MB", 1}, {"large", bigMB}} {
		b.Run(fmt.Sprintf("%s/n=%d", v.name, n), func(b *testing.B) {
			home := benchTree(b, n, large, v.mb)
			profs := []profiles.Profile{{Name: "bench", ConfigDir: home, ProjectsDir: filepath.Join(home, "projects"), SessionsDir: filepath.Join(home, "sessions")}}
			files, _ := Files(context.Background(), ProjectsDirs(profs), nil)
			var total int64
			var paths []string
			for _, f := range files {
				total += f.SizeBytes
				paths = append(paths, f.TranscriptPath)
			}
			catNs := timeCat(b, paths)
			b.ResetTimer()
			var read int64
			var count int
			for i := 0; i < b.N; i++ {
				list, errs := List(context.Background(), profs, ListOptions{NoActive: true})
				if len(errs) > 0 || len(list) != n {
					b.Fatalf("listed %d of %d: %v", len(list), n, errs)
				}
				read, count = 0, len(list)
				for _, s := range list {
					read += s.BytesRead
				}
			}
			b.StopTimer()
			listNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(read)/float64(count), "bytes_read/transcript")
			b.ReportMetric(float64(total)/float64(count), "bytes_on_disk/transcript")
			b.ReportMetric(catNs/1e6, "cat_ms")
			b.ReportMetric(catNs/listNs, "cat/list")
		})
	}
}

// timeCat runs cat over the files once, output discarded, and returns the
// wall time in ns: the cost of reading every byte.
func timeCat(b *testing.B, paths []string) float64 {
	b.Helper()
	start := time.Now()
	for i := 0; i < len(paths); i += 500 {
		end := min(i+500, len(paths))
		cmd := exec.Command("cat", paths[i:end]...)
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stdout = devnull
		err = cmd.Run()
		devnull.Close()
		if err != nil {
			b.Skipf("cat: %v", err)
		}
	}
	return float64(time.Since(start).Nanoseconds())
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchTree generates (once) a config dir of n transcripts in 50 project
// dirs; the first `large` of them are padded to mb megabytes.
func benchTree(b *testing.B, n, large, mb int) string {
	b.Helper()
	home := filepath.Join(os.TempDir(), fmt.Sprintf("ccpipe-bench-sessions-%d-%d-%d", n, large, mb))
	done := filepath.Join(home, ".complete")
	if _, err := os.Stat(done); err == nil {
		return home
	}
	os.RemoveAll(home)
	filler := `{"type":"assistant","uuid":"u","timestamp":"2026-11-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 170) + `"}]}}` + "\n"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		dir := filepath.Join(home, "projects", fmt.Sprintf("-home-dev-p%02d", i%50))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, id+".jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fmt.Fprintf(w, `{"type":"user","cwd":"/home/dev/p%02d","sessionId":"%s","timestamp":"2026-11-01T10:00:00.000Z","promptSource":"typed","message":{"role":"user","content":"prompt %d"}}`+"\n", i%50, id, i)
		size := int64(4 << 10)
		if i < large {
			size = int64(mb) << 20
		}
		for written := int64(0); written < size; written += int64(len(filler)) {
			w.WriteString(filler)
		}
		fmt.Fprintf(w, `{"type":"custom-title","customTitle":"title %d","sessionId":"%s"}`+"\n", i, id)
		fmt.Fprintf(w, `{"type":"assistant","timestamp":"2026-11-0%dT11:00:00.000Z","message":{"role":"assistant","content":[]}}`+"\n", 1+i%9)
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return home
}
