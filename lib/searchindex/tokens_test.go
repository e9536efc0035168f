package searchindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cache"
	"github.com/ccpipe/ccpipe/lib/search"
)

// TestProofTwin: the index gives the same answers with the tokens'
// proofs as without them (every candidate verified), each the scan's,
// over a corpus that grows and changes between queries; the proofs are
// used, and so is the verify they spare.
func TestProofTwin(t *testing.T) {
	smallDocs(t)
	r := rand.New(rand.NewPCG(51, 52))
	paths := corpus(t, r, t.TempDir(), 40)
	twin(t, r, paths, 60, &useProofs, "term proven by a token", func(ix *Index) int64 { return ix.proofs.Load() },
		func(i int, o *search.Options) {
			if i%3 == 0 {
				o.Terms[0] = fmt.Sprintf("w%d", r.IntN(8)) // common whole tokens
			}
		})
}

// TestProofExact: a token proves only what the scan would find. A term
// inside a longer word, said only in a line that is not a record, only
// in metadata, or only in a stored tool result, is verified (or not
// found) as the scan does; as a whole word in two sessions' prompts it
// is proven, unread.
func TestProofExact(t *testing.T) {
	smallDocs(t)
	dir, cacheDir := t.TempDir(), t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-p")
	prompt := func(text string) string {
		return mustJSON(map[string]any{"type": "user", "uuid": "u1", "cwd": "/home/dev/p", "message": map[string]any{"role": "user", "content": text}})
	}
	sessions := []struct{ lines, toolResult string }{
		{lines: prompt("the quokka said hi")},                                  // 0: a whole word
		{lines: prompt("one Quokka, two")},                                     // 1: a whole word, other case
		{lines: prompt("quokkas everywhere")},                                  // 2: inside a longer word
		{lines: prompt("nothing here") + "\n" + `not json: quokka here`},       // 3: in a line that is no record
		{lines: strings.Replace(prompt("plain"), "/home/dev/p", "/quokka", 1)}, // 4: in metadata only
		{lines: prompt("plain"), toolResult: "the quokka output\n"},            // 5: in a stored tool result only
		{lines: prompt("nothing at all")},                                      // 6
	}
	var paths []string
	for i, s := range sessions {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		p := filepath.Join(proj, id+".jsonl")
		write(t, p, s.lines+"\n")
		if s.toolResult != "" {
			write(t, filepath.Join(proj, id, "tool-results", "r1.txt"), s.toolResult)
		}
		paths = append(paths, p)
	}
	cache.Settle()
	o := search.Options{Terms: []string{"QUOKKA"}}
	checkSame(t, cacheDir, paths, o) // builds
	ix := checkSame(t, cacheDir, paths, o)
	if ix.proofs.Load() != 2 {
		t.Fatalf("%d terms proven by a token, want 2 (sessions 0 and 1)", ix.proofs.Load())
	}
	got := searchWith(t, cacheDir, paths, o)
	want := []string{paths[0], paths[1], paths[2], paths[5]}
	if !slices.Equal(got, want) {
		t.Fatalf("QUOKKA: %q, want %q", got, want)
	}
}

// TestTokenLists: a segment holds the tokens of its pieces' content that
// are in two pieces at least, each with the first document per piece,
// and tokenDocs finds them by their bytes; a small segment (one run's
// update) holds all of them.
func TestTokenLists(t *testing.T) {
	smallDocs(t)
	small := smallSegment
	smallSegment = 0 // the test's few bytes count as a big segment's
	t.Cleanup(func() { smallSegment = small })
	q := &query{}
	b := newBuilder(q)
	lines := func(texts ...string) string {
		var sb strings.Builder
		for _, s := range texts {
			sb.WriteString(mustJSON(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": s}}) + "\n")
		}
		return sb.String()
	}
	long := strings.Repeat("z", maxToken+1)
	filler := strings.Repeat("filler words ", 60) // past docText: a document each
	texts := []string{
		lines("alpha beta "+long, filler, "alpha gamma"),
		lines(filler, "beta Alpha", "delta"),
		lines("only once here"),
	}
	var pieces []*piece
	var docs []span
	var tris [][]uint32
	for _, text := range texts {
		p, _, err := b.index(strings.NewReader(text), 0, true, true, false, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		pieces = append(pieces, p)
		docs = append(docs, p.docs...)
		tris = append(tris, p.tris...)
	}
	if len(pieces[0].docs) < 2 || len(pieces[1].docs) < 2 {
		t.Fatalf("pieces of %d and %d documents: the test wants several", len(pieces[0].docs), len(pieces[1].docs))
	}
	seg, err := encodeSegment(7, docs, tris, tokenLists(pieces), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := writeSegment(t, seg)
	n0 := uint32(len(pieces[0].docs))
	for _, tt := range []struct {
		tok  string
		want []uint32
	}{
		{"alpha", []uint32{0, n0 + 1}}, // the first document of each piece it is in
		{"beta", []uint32{0, n0 + 1}},
		{"filler", []uint32{0, n0}},
		{"gamma", nil}, // one piece only
		{"once", nil},
		{"alph", nil}, // no whole token
		{long, nil},   // too long to be kept
		{"missing", nil},
	} {
		got, err := s.tokenDocs([]byte(tt.tok))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("tokenDocs(%.20q) = %v, want %v", tt.tok, got, tt.want)
		}
	}
	// One run's update: a small segment keeps every token.
	smallSegment = small
	var keys []uint32
	for _, l := range tokenLists(pieces) {
		keys = append(keys, l.key)
	}
	for _, tok := range []string{"gamma", "once", "alpha"} {
		if !slices.Contains(keys, tokenKey(tokenHash([]byte(tok))|1)) {
			t.Errorf("a small segment does not keep %q", tok)
		}
	}
}

// TestTokenListDamaged: a token's posting list that fails its CRC is an
// error, not an answer.
func TestTokenListDamaged(t *testing.T) {
	p := &piece{docs: []span{{0, 10}}}
	q := &piece{docs: []span{{0, 10}}}
	for _, x := range []*piece{p, q} {
		(&builder{}).addTokens(x, []byte("kiwi mango"))
	}
	lists := tokenLists([]*piece{p, q})
	seg, err := encodeSegment(7, []span{{0, 10}, {0, 10}}, [][]uint32{nil, nil}, lists, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(seg, []byte("kiwi"))
	if i < 0 {
		t.Fatal("no token in the segment")
	}
	seg[i] ^= 1
	s := writeSegment(t, seg)
	if _, err := s.tokenDocs([]byte("kiwi")); err != errBad {
		t.Fatalf("a damaged list: %v, want errBad", err)
	}
	if docs, err := s.tokenDocs([]byte("mango")); err == nil && !slices.Equal(docs, []uint32{0, 1}) {
		t.Fatalf("mango, in its own list: %v", docs)
	}
}

// FuzzDecodeTokens: any list decodes or is refused, never a panic; what
// decodes is in order and below ndocs.
func FuzzDecodeTokens(f *testing.F) {
	l := binary.AppendUvarint(nil, 4)
	l = append(l, "kiwi"...)
	l = binary.AppendUvarint(l, 2)
	l = binary.AppendUvarint(l, 1)
	l = binary.AppendUvarint(l, 3)
	f.Add(l, []byte("kiwi"), 10)
	f.Add([]byte{4, 'k', 'i', 'w', 'i', 0}, []byte("kiwi"), 10)
	f.Add([]byte{200, 1}, []byte("x"), 3)
	f.Fuzz(func(t *testing.T, list, tok []byte, ndocs int) {
		if ndocs < 0 || ndocs > 1<<20 {
			return
		}
		docs, err := decodeTokens(list, tok, ndocs)
		if err != nil {
			return
		}
		for i, d := range docs {
			if int(d) >= ndocs || i > 0 && d <= docs[i-1] {
				t.Fatalf("documents %v for ndocs %d", docs, ndocs)
			}
		}
	})
}

// TestTokenOf: a term's folding is looked up as a token only when it
// could be one.
func TestTokenOf(t *testing.T) {
	for _, tt := range []struct {
		term string
		ok   bool
	}{
		{"Quokka", true}, {"E0501", true}, {"ERR_CONN_RESET", true}, {"Straße", true}, {"日本語", true},
		{"ab", false}, {"/usr/local", false}, {"go test", false}, {"a-b", false}, {strings.Repeat("x", maxToken+1), false},
	} {
		if got := tokenOf(search.FoldTerm(tt.term)) != nil; got != tt.ok {
			t.Errorf("tokenOf(%q): %v, want %v", tt.term, got, tt.ok)
		}
	}
}
