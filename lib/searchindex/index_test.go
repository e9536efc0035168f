package searchindex

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cachepkg "github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/search"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

// vocab holds words of every kind the folding and the content rules
// treat apart: ASCII in both cases, words whose folding changes length
// (ß, ﬁ), Greek final sigma, the Kelvin sign (folds to ASCII k), dotted
// I, CJK, JSON escapes, paths and error codes.
var vocab = []string{
	"the", "error", "func", "return", "FlakyTest", "flakytest", "ERR_CONN_RESET", "/usr/local/bin", "E1234",
	"Straße", "STRASSE", "strasse", "ΣΊΣΥΦΟΣ", "σίσυφος", "ﬁx", "FIX", "\u212aelvin", "kelvin", "İstanbul",
	"日本語", "naïve", "NAÏVE", "café", "quote\"d", `back\slash`, "tab\there", "emoji😀", "a", "ab", "abc",
	"timeout", "TIMEOUT", "segfault", "go test ./...", "ǅemal", "ǆ", "ﬀ", "ὒ", "ᾈ",
	// Characters whose full folding is ASCII letters, or ends or starts
	// with one, and their ASCII spellings: an ASCII term finds them too.
	"proﬁle", "PROFILE", "ſtate", "state", "ﬅop", "stop", "datẚ", "data", "ǰob", "job", "ŉight", "night",
	"ı", "ΌΣΟΣ", "όσος", "Maß", "MASS", "ﬄow", "FFLOW",
}

func word(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return vocab[r.IntN(len(vocab))]
	}
	// Zipf-ish: most words common, a long tail of rare ones.
	return fmt.Sprintf("w%d", int(r.ExpFloat64()*40))
}

func sentence(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = word(r)
	}
	return strings.Join(ws, " ")
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// record is one transcript line of a random kind, content or not.
func record(r *rand.Rand, i int) string {
	uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	meta := map[string]any{"uuid": uuid, "timestamp": "2026-01-02T10:00:00.000Z", "cwd": "/home/" + word(r), "gitBranch": word(r)}
	switch r.IntN(7) {
	case 0:
		meta["type"] = "user"
		meta["message"] = map[string]any{"role": "user", "content": sentence(r, 1+r.IntN(30))}
	case 1:
		meta["type"] = "user"
		meta["message"] = map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t" + word(r), "content": sentence(r, r.IntN(200))},
		}}
	case 2:
		meta["type"] = "assistant"
		meta["message"] = map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": sentence(r, 1+r.IntN(40))},
			map[string]any{"type": "thinking", "thinking": sentence(r, r.IntN(20))},
		}}
	case 3:
		meta["type"] = "assistant"
		meta["message"] = map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": sentence(r, 1+r.IntN(8)), "description": word(r)}},
		}}
	case 4:
		meta["type"] = "attachment"
		meta["attachment"] = map[string]any{"type": "hook_success", "stdout": sentence(r, r.IntN(10)), "content": sentence(r, 3)}
	case 5:
		meta["type"] = "attachment"
		meta["attachment"] = map[string]any{"type": "skill_listing", "content": sentence(r, 10)} // boilerplate
	default:
		meta["type"] = "system"
		meta["content"] = sentence(r, 10) // not content
	}
	return mustJSON(meta)
}

// corpus writes n sessions under dir/projects/p: transcripts, subagents
// and stored tool results, a line still being written at some ends.
func corpus(t testing.TB, r *rand.Rand, dir string, n int) []string {
	t.Helper()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	var paths []string
	for s := range n {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", s)
		p := filepath.Join(proj, id+".jsonl")
		writeLines(t, p, r, 1+r.IntN(40), r.IntN(5) == 0)
		if r.IntN(3) == 0 {
			writeLines(t, filepath.Join(proj, id, "subagents", "agent-a1.jsonl"), r, 1+r.IntN(10), false)
		}
		if r.IntN(3) == 0 {
			write(t, filepath.Join(proj, id, "tool-results", "r1.txt"), sentence(r, r.IntN(300))+"\n"+sentence(r, 5))
		}
		paths = append(paths, p)
	}
	return paths
}

func writeLines(t testing.TB, p string, r *rand.Rand, n int, partial bool) {
	var b strings.Builder
	for i := range n {
		b.WriteString(record(r, i))
		b.WriteByte('\n')
	}
	s := b.String()
	if partial {
		s += record(r, n)[:20]
	}
	write(t, p, s)
}

func write(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// search answers a query over the sessions: from the index under cache
// ("" for the scan alone), as cc-grep runs it.
func searchWith(t testing.TB, cache string, paths []string, o search.Options) []string {
	got, _ := searchIndex(t, cache, paths, o)
	return got
}

// searchIndex is searchWith that also returns the index's counts (zero
// without one).
func searchIndex(t testing.TB, cache string, paths []string, o search.Options) ([]string, *Index) {
	t.Helper()
	s, err := search.New(o)
	if err != nil {
		t.Fatal(err)
	}
	var ix *Index
	if cache != "" && Usable(o) {
		ix = Open(cache, s)
		s.SetAnswerer(ix)
	}
	jobs := make([]search.Job, len(paths))
	for i, p := range paths {
		jobs[i] = search.Job{TranscriptPath: p}
	}
	var got []string
	err = s.SearchAll(context.Background(), 2, jobs, func(j search.Job, r search.Result) error {
		if r.Matched {
			got = append(got, j.TranscriptPath)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ix != nil {
		_ = ix.Close() // its error stays in saveErr for the tests of it

	}
	slices.Sort(got)
	return got, ix
}

// randomTerms picks a query: a vocabulary word, a piece of one, another
// case of it, or several at once.
func randomTerms(r *rand.Rand) []string {
	n := 1
	switch r.IntN(4) {
	case 0:
		n = 2
	case 1:
		n = 3
	}
	terms := make([]string, n)
	for i := range terms {
		w := word(r)
		switch r.IntN(5) {
		case 0:
			rs := []rune(w)
			a := r.IntN(len(rs))
			w = string(rs[a : a+1+r.IntN(len(rs)-a)])
		case 1:
			w = strings.ToUpper(w)
		case 2:
			w = strings.ToLower(w)
		}
		if strings.TrimSpace(w) == "" {
			w = "x"
		}
		terms[i] = w
	}
	return terms
}

func checkSame(t *testing.T, cache string, paths []string, o search.Options) *Index {
	t.Helper()
	want := searchWith(t, "", paths, o)
	got, ix := searchIndex(t, cache, paths, o)
	if !slices.Equal(got, want) {
		t.Fatalf("terms %q any=%v: index %d sessions, scan %d\nindex: %q\nscan:  %q", o.Terms, o.Any, len(got), len(want), got, want)
	}
	if ix == nil {
		return &Index{}
	}
	return ix
}

// smallDocs makes documents and segments small, so that a small corpus
// has many of each, and verify reads their first lines apart.
func smallDocs(t *testing.T) {
	dt, dr, st, vf, rd := docText, docRaw, segTarget, verifyFirst, racyDir
	// verifyFirst below a document's size: its lines are checked in
	// pieces. Every directory listing is kept, however
	// young the directory (the tests change them between queries, and
	// pause past a clock tick first).
	docText, docRaw, segTarget, verifyFirst, racyDir = 512, 4096, 64<<10, 700, -time.Hour
	t.Cleanup(func() { docText, docRaw, segTarget, verifyFirst, racyDir = dt, dr, st, vf, rd })
}

// TestIndexEqualsScan: random terms (common, rare, short, non-ASCII, in
// every case, AND and --any) give the index the scan's answer, over a
// generated corpus that grows and is rewritten between queries.
func TestIndexEqualsScan(t *testing.T) {
	smallDocs(t)
	r := rand.New(rand.NewPCG(1, 2))
	dir, cache := t.TempDir(), t.TempDir()
	paths := corpus(t, r, dir, 60)
	var answered, fromSnap, proofs int64
	n := 300
	if testing.Short() {
		n = 100
	}
	for i := range n {
		if i%50 == 49 {
			// Grow a transcript, rewrite another, add a session; change
			// the kept listings of session dirs (dirs.go).
			changeDirs(t, r, paths)
			f, err := os.OpenFile(paths[r.IntN(len(paths))], os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, record(r, 1000+i))
			f.Close()
			writeLines(t, paths[r.IntN(len(paths))], r, 3, false)
			paths = append(paths, corpus(t, r, filepath.Join(dir, fmt.Sprint(i)), 1)...)
		}
		ix := checkSame(t, cache, paths, search.Options{Terms: randomTerms(r), Any: r.IntN(2) == 0})
		answered += ix.Answered.Load()
		fromSnap += ix.fromSnap.Load()
		proofs += ix.proofs.Load()
	}
	if answered < int64(n*len(paths)/4) || fromSnap < answered/4 || fromSnap == answered {
		t.Fatalf("the index answered for %d sessions in %d queries, %d of them from snapshots: not both ways", answered, n, fromSnap)
	}
	if proofs == 0 {
		t.Fatal("no term proven by a token (tokens.go)")
	}
}

// changeDirs changes the session dirs whose listings the index keeps: a
// subagent transcript added to a session that has one, a stored tool
// result removed, a session dir made for a session without one, each
// dir's mtime then set back to what it was (only its ctime tells).
func changeDirs(t *testing.T, r *rand.Rand, paths []string) {
	t.Helper()
	time.Sleep(20 * time.Millisecond) // past the clock tick of the last listing
	for range 3 {
		p := paths[r.IntN(len(paths))]
		sess := strings.TrimSuffix(p, ".jsonl")
		var dir string
		switch r.IntN(3) {
		case 0:
			dir = filepath.Join(sess, "subagents")
		case 1:
			dir = filepath.Join(sess, "tool-results")
		default:
			dir = sess
		}
		fi, statErr := os.Stat(dir)
		switch {
		case dir == sess && statErr != nil: // a session dir appears
			writeLines(t, filepath.Join(sess, "subagents", "agent-new.jsonl"), r, 3, false)
		case filepath.Base(dir) == "subagents":
			writeLines(t, filepath.Join(dir, fmt.Sprintf("agent-n%d.jsonl", r.IntN(1000))), r, 3, false)
		case filepath.Base(dir) == "tool-results" && statErr == nil:
			ents, _ := os.ReadDir(dir)
			if len(ents) > 0 {
				os.Remove(filepath.Join(dir, ents[0].Name()))
			}
		default:
			write(t, filepath.Join(dir, "r9.txt"), sentence(r, 50))
		}
		if statErr == nil {
			if err := os.Chtimes(dir, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestIndexFullFolding: an ASCII term finds the characters that fold to
// ASCII letters (ß to ss, ﬁ to fi, the Kelvin sign to k, ſ to s), from
// the index and the scan alike; the Turkish dotless ı stays itself.
func TestIndexFullFolding(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	var answered int64
	says := []string{"die Straße", "my proﬁle", "273 \u212aelvin", "ſtate", "dotless ı"}
	var paths []string
	for i, text := range says {
		p := filepath.Join(dir, "projects", "p", fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i))
		write(t, p, mustJSON(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": text}})+"\n")
		paths = append(paths, p)
	}
	for _, tt := range []struct {
		term string
		want []int // sessions, by index in says
	}{
		{"STRASSE", []int{0}},
		{"profile", []int{1}},
		{"KELVIN", []int{2}},
		{"state", []int{3}},
		{"dotless i", nil},
		{"dotless I", nil},
	} {
		var want []string
		for _, i := range tt.want {
			want = append(want, paths[i])
		}
		for _, c := range []string{"", cache} {
			got, ix := searchIndex(t, c, paths, search.Options{Terms: []string{tt.term}})
			if !slices.Equal(got, want) {
				t.Errorf("%q (index %v): %q, want %q", tt.term, c != "", got, want)
			}
			if ix != nil {
				answered += ix.Answered.Load()
			}
		}
	}
	if answered == 0 {
		t.Fatal("the index answered for no session")
	}
}

// TestIndexEqualsScanCorpora runs random terms over the real corpora in
// testdata (written by the real Claude Code), words taken from them.
func TestIndexEqualsScanCorpora(t *testing.T) {
	smallDocs(t)
	var paths []string
	var words []string
	for _, c := range []string{"corpus", "corpus-fork", "corpus-pricing", "sessions"} {
		root := filepath.Join("..", "..", "testdata", c)
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(filepath.Dir(filepath.Dir(p))) != "projects" {
				return nil
			}
			if n := d.Name(); strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl.gz") || strings.HasSuffix(n, ".jsonl.zst") {
				paths = append(paths, p)
				if b, err := os.ReadFile(p); err == nil {
					search.EachContent(b[:min(len(b), 1<<16)], func([]byte) {})
					words = append(words, strings.Fields(string(b[:min(len(b), 4096)]))...)
				}
			}
			return nil
		})
	}
	if len(paths) < 5 {
		t.Skip("the corpora in testdata are not there")
	}
	r := rand.New(rand.NewPCG(3, 4))
	cache := t.TempDir()
	var answered, fromSnap, proofs int64
	for range 150 {
		terms := randomTerms(r)
		if r.IntN(2) == 0 {
			w := words[r.IntN(len(words))]
			if a := r.IntN(len(w)); len(w) > 3 {
				w = w[a:min(len(w), a+3+r.IntN(10))]
			}
			if strings.TrimSpace(w) != "" {
				terms[0] = w
			}
		}
		ix := checkSame(t, cache, paths, search.Options{Terms: terms, Any: r.IntN(2) == 0})
		answered += ix.Answered.Load()
		fromSnap += ix.fromSnap.Load()
		proofs += ix.proofs.Load()
	}
	if answered < 150*int64(len(paths))/4 || fromSnap < answered/4 || proofs == 0 {
		t.Fatalf("the index answered for %d sessions, %d of them from snapshots, %d terms proven by a token: not used", answered, fromSnap, proofs)
	}
}

// TestCompact: many runs that each index a little leave many small
// segments; past maxSmall, their files are indexed again into one, and
// the answers stay the scan's throughout.
func TestCompact(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	dir, cache := t.TempDir(), t.TempDir()
	paths := corpus(t, r, dir, 5)
	for i := range maxSmall + 3 {
		paths = append(paths, corpus(t, r, filepath.Join(dir, fmt.Sprint(i)), 1)...)
		checkSame(t, cache, paths, search.Options{Terms: []string{"error"}})
	}
	segs, _ := filepath.Glob(filepath.Join(segDir(cache), "*.trgm"))
	s, _ := search.New(search.Options{Terms: []string{"x"}})
	ix := Open(cache, s)
	st := ix.Stat()
	ix.Close()
	if st.Segments > maxSmall+1 {
		t.Fatalf("%d segments in use (%d files) after %d runs: not compacted", st.Segments, len(segs), maxSmall+3)
	}
	checkSame(t, cache, paths, search.Options{Terms: []string{"flakytest", "w1"}})
}

// TestListedEqualsScan: with what the listing saw of each session handed
// over (Index.Listed: the transcript's stamp, a project dir that holds
// nothing of the session dir's name), the index still gives the scan's
// answer, over a corpus whose transcripts grow and are rewritten, whose
// session dirs come and change between queries, each query listed anew.
func TestListedEqualsScan(t *testing.T) {
	smallDocs(t)
	r := rand.New(rand.NewPCG(21, 22))
	dir, cache := t.TempDir(), t.TempDir()
	paths := corpus(t, r, dir, 40)
	projects := []sessions.ProjectsDir{{Path: filepath.Join(dir, "projects")}}
	var hinted, noDir int
	for i := range 60 {
		if i%15 == 14 {
			changeDirs(t, r, paths)
			f, err := os.OpenFile(paths[r.IntN(len(paths))], os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, record(r, 1000+i))
			f.Close()
			writeLines(t, paths[r.IntN(len(paths))], r, 3, false)
			p := filepath.Join(dir, "projects", "-home-dev-p", fmt.Sprintf("%08d-0000-4000-8000-000000000001.jsonl", i))
			writeLines(t, p, r, 1+r.IntN(20), false)
			paths = append(paths, p)
		}
		o := search.Options{Terms: randomTerms(r), Any: r.IntN(2) == 0}
		want := searchWith(t, "", paths, o)
		files, errs := sessions.Files(context.Background(), projects, nil)
		if len(errs) > 0 || len(files) != len(paths) {
			t.Fatalf("listed %d of %d sessions: %v", len(files), len(paths), errs)
		}
		s, err := search.New(o)
		if err != nil {
			t.Fatal(err)
		}
		if !Usable(o) {
			continue
		}
		ix := Open(cache, s)
		s.SetAnswerer(ix)
		var jobs []search.Job
		for _, f := range files {
			st, nd, ok := f.Listed()
			if !ok {
				t.Fatalf("%s: not listed", f.TranscriptPath)
			}
			ix.Listed(f.TranscriptPath, st, nd)
			hinted++
			if nd {
				noDir++
			}
			jobs = append(jobs, search.Job{TranscriptPath: f.TranscriptPath})
		}
		var got []string
		if err := s.SearchAll(context.Background(), 2, jobs, func(j search.Job, r search.Result) error {
			if r.Matched {
				got = append(got, j.TranscriptPath)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		_ = ix.Close()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("terms %q any=%v: index %q, scan %q", o.Terms, o.Any, got, want)
		}
	}
	if hinted == 0 || noDir == 0 || noDir == hinted {
		t.Fatalf("%d sessions handed over, %d without a session dir: the test does not test", hinted, noDir)
	}
}

// TestTranscriptDecides: a session whose main transcript holds the terms
// is answered from the index without a look at its other files, as the
// scan stops there: a subagent transcript that cannot even be stat'ed (a
// dangling link) leaves it to the scan only when the transcript does not
// decide.
func TestTranscriptDecides(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	proj := filepath.Join(dir, "projects", "p")
	say := func(text string) string {
		return mustJSON(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": text}}) + "\n"
	}
	p := filepath.Join(proj, "00000001-0000-4000-8000-000000000000.jsonl")
	write(t, p, say("the flaky login test"))
	write(t, filepath.Join(proj, "00000001-0000-4000-8000-000000000000", "subagents", "agent-a1.jsonl"), say("a timeout"))
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(proj, "00000001-0000-4000-8000-000000000000", "subagents", "agent-a2.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		terms    []string
		any      bool
		answered int64
	}{
		{[]string{"flaky"}, false, 1},
		{[]string{"flaky", "login"}, false, 1},
		{[]string{"segfault", "flaky"}, true, 1},
		{[]string{"flaky", "timeout"}, false, 0}, // the subagents decide: the scan
		{[]string{"segfault"}, false, 0},
	} {
		o := search.Options{Terms: tt.terms, Any: tt.any}
		want := searchWith(t, "", []string{p}, o)
		got, ix := searchIndex(t, cache, []string{p}, o)
		if !slices.Equal(got, want) || ix.Answered.Load() != tt.answered {
			t.Errorf("%q any=%v: index %q (%d answered), scan %q, want %d answered", tt.terms, tt.any, got, ix.Answered.Load(), want, tt.answered)
		}
	}
}

// TestInvertCountingIsSorting: a segment's posting lists by counting
// (big segments: the trigrams present found from a bitmap, the counts
// left zero for the next) equal those by sorting pairs (small ones).
func TestInvertCountingIsSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	var c []uint32
	var seen []uint64
	counts := func() ([]uint32, []uint64) {
		if c == nil {
			c, seen = make([]uint32, 1<<24), make([]uint64, 1<<24/64)
		}
		return c, seen
	}
	old := sortBelow
	t.Cleanup(func() { sortBelow = old })
	for round := range 6 {
		tris := make([][]uint32, r.IntN(300))
		for d := range tris {
			set := map[uint32]bool{}
			for range r.IntN(200) {
				t := uint32(r.IntN(1 << 24))
				if r.IntN(2) == 0 {
					t = uint32(r.IntN(500)) // shared by many documents
				}
				if round == 5 {
					t |= 1<<24 - 64 // the last bitmap words
				}
				if !set[t] {
					set[t] = true
					tris[d] = append(tris[d], t)
				}
			}
		}
		sortBelow = 1 << 62
		s1, e1, f1 := invert(tris, counts)
		sortBelow = 0
		s2, e2, f2 := invert(tris, counts)
		if !slices.Equal(s1, s2) || !slices.Equal(e1, e2) || !slices.Equal(f1, f2) {
			t.Fatalf("round %d: counting (%d trigrams) differs from sorting (%d)", round, len(s2), len(s1))
		}
		if c != nil && (slices.ContainsFunc(c, func(n uint32) bool { return n != 0 }) || slices.ContainsFunc(seen, func(m uint64) bool { return m != 0 })) {
			t.Fatalf("round %d: counts not left zero", round)
		}
	}
}

// TestAllOfIsIntersection: a segment's documents holding every trigram
// of a set (allOf: the posting lists shortest first, each merged into
// what is left) are those its documents were written with, as a check
// of each document against the set finds them.
func TestAllOfIsIntersection(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	tris := make([][]uint32, 400)
	docs := make([]span, len(tris))
	for d := range tris {
		set := map[uint32]bool{}
		for range r.IntN(60) {
			t := uint32(r.IntN(40)) // a few trigrams: many lists, long and short
			if r.IntN(4) == 0 {
				t = uint32(r.IntN(1 << 24))
			}
			if !set[t] {
				set[t] = true
				tris[d] = append(tris[d], t)
			}
		}
		docs[d] = span{int64(d) * 10, int64(d)*10 + 10}
	}
	b, err := encodeSegment(7, docs, tris, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := writeSegment(t, b)
	for range 300 {
		var ts []uint32
		for range 1 + r.IntN(4) {
			ts = append(ts, uint32(r.IntN(45)))
		}
		var want []uint32
		for d, dt := range tris {
			if !slices.ContainsFunc(ts, func(t uint32) bool { return !slices.Contains(dt, t) }) {
				want = append(want, uint32(d))
			}
		}
		got, err := s.allOf(ts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("allOf(%v) = %v, want %v", ts, got, want)
		}
	}
}

// TestFirstBuildIndexesAll: a first build whose term each session's
// transcript decides still indexes the sessions' other files, so the
// next search, of a term found only in them, indexes nothing and gives
// the scan's answer.
func TestFirstBuildIndexesAll(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	proj := filepath.Join(dir, "projects", "p")
	say := func(text string) string {
		return mustJSON(map[string]any{"type": "user", "uuid": "u1", "message": map[string]any{"role": "user", "content": text}}) + "\n"
	}
	var paths []string
	for i := range 3 {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		p := filepath.Join(proj, id+".jsonl")
		write(t, p, say("the flaky login test"))
		write(t, filepath.Join(proj, id, "subagents", "agent-a1.jsonl"), say(fmt.Sprintf("a timeout %d", i)))
		write(t, filepath.Join(proj, id, "tool-results", "r1.txt"), fmt.Sprintf("exit status %d", i))
		paths = append(paths, p)
	}
	cachepkg.Settle() // files written in the tick of their stamp are indexed again
	for _, tt := range []struct {
		terms   []string
		indexed bool
	}{
		{[]string{"flaky"}, true},             // the first build: every file
		{[]string{"timeout 1"}, false},        // subagents only
		{[]string{"exit status 2"}, false},    // tool results only
		{[]string{"flaky", "timeout"}, false}, // both
	} {
		o := search.Options{Terms: tt.terms}
		want := searchWith(t, "", paths, o)
		got, ix := searchIndex(t, cache, paths, o)
		if !slices.Equal(got, want) || (ix.Indexed.Load() > 0) != tt.indexed {
			t.Errorf("%q: index %q (%d bytes indexed), scan %q; want indexed %v", tt.terms, got, ix.Indexed.Load(), want, tt.indexed)
		}
	}
}

// writeSegment writes a segment of version 7 and opens it (closed at the
// test's end).
func writeSegment(t *testing.T, b []byte) *segment {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seg.trgm")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := openSegment(path, 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close() })
	return s
}
