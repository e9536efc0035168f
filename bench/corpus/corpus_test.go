package corpus

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func tiny(dir string, seed uint64) Options {
	return Options{Out: dir, Size: 3 << 20, Sessions: 30, Seed: seed, HugeLine: 256 << 10, Zst: 0.2, Workers: 2}
}

func generate(t *testing.T, o Options) *Manifest {
	t.Helper()
	m, err := Generate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// digest maps every file under dir to the hash of its bytes.
func digest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "manifest.json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	ma := generate(t, tiny(a, 7))
	oa := tiny(b, 7)
	oa.Workers = 1 // scheduling must not matter
	mb := generate(t, oa)
	generate(t, tiny(c, 8))
	da, db, dc := digest(t, a), digest(t, b), digest(t, c)
	if len(da) < 30 {
		t.Fatalf("only %d files written", len(da))
	}
	if !reflect.DeepEqual(da, db) {
		for k := range da {
			if da[k] != db[k] {
				t.Errorf("%s differs between two runs with seed 7", k)
			}
		}
		t.Fatalf("same seed, different trees (%d vs %d files)", len(da), len(db))
	}
	if !reflect.DeepEqual(ma.Sessions, mb.Sessions) || ma.Bytes != mb.Bytes {
		t.Fatal("same seed, different manifests")
	}
	if reflect.DeepEqual(da, dc) {
		t.Fatal("seeds 7 and 8 gave the same tree")
	}
}

// fold is an independent oracle for the search semantics: Unicode lower case,
// then ß and ẞ folded to "ss" as full case folding does.
func fold(b []byte) []byte {
	b = bytes.ToLower(b)
	return bytes.ReplaceAll(b, []byte("ß"), []byte("ss"))
}

type fileInfo struct {
	session string
	kind    string // main, subagent, tool_results, other
	data    []byte
}

// readTree reads every transcript-related file and attributes it to a session.
func readTree(t *testing.T, dir string) []fileInfo {
	t.Helper()
	var out []fileInfo
	root := filepath.Join(dir, "projects")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".zst") {
			zr, err := zstd.NewReader(bytes.NewReader(b))
			if err != nil {
				return err
			}
			b, err = io.ReadAll(zr)
			zr.Close()
			if err != nil {
				return err
			}
		}
		fi := fileInfo{data: b, kind: "other"}
		switch {
		case len(parts) == 2:
			fi.session = strings.TrimSuffix(strings.TrimSuffix(parts[1], ".zst"), ".jsonl")
			fi.kind = "main"
		case len(parts) == 4 && parts[2] == "subagents" && strings.HasSuffix(p, ".jsonl"):
			fi.session, fi.kind = parts[1], "subagent"
		case len(parts) == 4 && parts[2] == "tool-results":
			fi.session, fi.kind = parts[1], "tool_results"
		default:
			fi.session = parts[1]
		}
		out = append(out, fi)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestPlantedBookkeeping(t *testing.T) {
	dir := t.TempDir()
	generate(t, tiny(dir, 3))
	var pl Planted
	readJSON(t, filepath.Join(dir, "planted.json"), &pl)
	files := readTree(t, dir)
	for term, want := range pl.Terms {
		needle := fold([]byte(term))
		got := []string{}
		kinds := map[string]bool{}
		for _, f := range files {
			if bytes.Contains(fold(f.data), needle) {
				got = append(got, f.session)
				kinds[f.kind] = true
			}
		}
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: found in %v, planted.json says %v", term, got, want)
		}
		switch term {
		case TermSubagent:
			if len(kinds) != 1 || !kinds["subagent"] {
				t.Errorf("%s found in %v files", term, kinds)
			}
		case TermToolResults:
			if len(kinds) != 1 || !kinds["tool_results"] {
				t.Errorf("%s found in %v files", term, kinds)
			}
		}
	}
	// Every spelling of the non-ASCII term is used, and rg-style simple folding misses STRASSE.
	forms := map[string]bool{}
	for _, f := range files {
		for _, form := range NonASCIIForms {
			if bytes.Contains(f.data, []byte(form)) {
				forms[form] = true
			}
		}
	}
	if !forms["STRASSE"] {
		t.Errorf("STRASSE is never planted (forms seen: %v)", forms)
	}
	byName := map[string]Query{}
	for _, q := range pl.Queries {
		byName[q.Name] = q
		if len(q.Sessions) == 0 {
			t.Errorf("query %s expects no session", q.Name)
		}
	}
	and := byName["and"]
	for _, id := range and.Sessions {
		for _, term := range and.Terms {
			if _, ok := slices.BinarySearch(pl.Terms[term], id); !ok {
				t.Errorf("and: %s lacks %s", id, term)
			}
		}
	}
	if len(and.Sessions) >= len(pl.Terms[TermAndA]) && len(pl.Terms[TermAndA]) > 1 {
		t.Errorf("and query is not narrower than one term: %d vs %d", len(and.Sessions), len(pl.Terms[TermAndA]))
	}
	var union []string
	for _, term := range AnyTerms {
		union = append(union, pl.Terms[term]...)
	}
	slices.Sort(union)
	if !slices.Equal(slices.Compact(union), byName["any5"].Sessions) {
		t.Errorf("any5 is not the union of its terms")
	}
	if len(byName["huge_line"].Sessions) != 1 {
		t.Errorf("huge_line: %v", byName["huge_line"].Sessions)
	}
}

func TestExpectedUsageAndShapes(t *testing.T) {
	dir := t.TempDir()
	m := generate(t, tiny(dir, 5))
	var eu ExpectedUsage
	readJSON(t, filepath.Join(dir, "expected-usage.json"), &eu)
	all, mainOnly := map[string]*Tokens{}, map[string]*Tokens{}
	seen := map[string]bool{}
	longest := 0
	types := map[string]int{}
	for _, f := range readTree(t, dir) {
		if f.kind != "main" && f.kind != "subagent" {
			continue
		}
		uuids := map[string]bool{}
		toolUses := map[string]bool{}
		for i, line := range bytes.Split(bytes.TrimSuffix(f.data, []byte("\n")), []byte("\n")) {
			longest = max(longest, len(line))
			var rec struct {
				Type       string  `json:"type"`
				UUID       string  `json:"uuid"`
				ParentUUID *string `json:"parentUuid"`
				Timestamp  string  `json:"timestamp"`
				SessionID  string  `json:"sessionId"`
				Message    struct {
					ID      string `json:"id"`
					Model   string `json:"model"`
					Content json.RawMessage
					Usage   struct {
						Input  int64 `json:"input_tokens"`
						Output int64 `json:"output_tokens"`
						CC     int64 `json:"cache_creation_input_tokens"`
						CR     int64 `json:"cache_read_input_tokens"`
					} `json:"usage"`
				} `json:"message"`
			}
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("%s line %d: %v", f.session, i+1, err)
			}
			types[rec.Type]++
			if rec.SessionID != f.session && rec.Type != "file-history-snapshot" {
				t.Fatalf("%s line %d: sessionId %q", f.session, i+1, rec.SessionID)
			}
			if rec.UUID != "" {
				if rec.ParentUUID != nil && !uuids[*rec.ParentUUID] {
					t.Fatalf("%s line %d: parent %s not seen before", f.session, i+1, *rec.ParentUUID)
				}
				uuids[rec.UUID] = true
			}
			var blocks []struct {
				Type      string `json:"type"`
				ToolUseID string `json:"tool_use_id"`
			}
			if rec.Type == "assistant" || rec.Type == "user" {
				_ = json.Unmarshal(rec.Message.Content, &blocks)
			}
			if rec.Type == "assistant" {
				if len(blocks) != 1 {
					t.Fatalf("%s line %d: %d content blocks in an assistant record", f.session, i+1, len(blocks))
				}
				var b struct{ Type, ID string }
				_ = json.Unmarshal(rec.Message.Content[1:len(rec.Message.Content)-1], &b)
				if b.Type == "tool_use" {
					toolUses[b.ID] = true
				}
				if rec.Message.Model == "<synthetic>" || seen[rec.Message.ID] {
					continue
				}
				seen[rec.Message.ID] = true
				u := Tokens{InputTokens: rec.Message.Usage.Input, OutputTokens: rec.Message.Usage.Output,
					CacheCreationInputTokens: rec.Message.Usage.CC, CacheReadInputTokens: rec.Message.Usage.CR, Messages: 1}
				u.TotalTokens = u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
				day := rec.Timestamp[:10]
				if all[day] == nil {
					all[day] = &Tokens{}
				}
				all[day].Add(u)
				if f.kind == "main" {
					if mainOnly[day] == nil {
						mainOnly[day] = &Tokens{}
					}
					mainOnly[day].Add(u)
				}
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && !toolUses[b.ToolUseID] {
					t.Fatalf("%s line %d: tool_result for unknown tool_use %s", f.session, i+1, b.ToolUseID)
				}
			}
		}
	}
	gotDays, gotTot := sortedDays(all)
	if !reflect.DeepEqual(gotDays, eu.Days) || gotTot != eu.Totals {
		t.Errorf("usage by day differs:\nscanned  %+v\nexpected %+v", gotTot, eu.Totals)
	}
	gotMain, gotMainTot := sortedDays(mainOnly)
	if !reflect.DeepEqual(gotMain, eu.MainOnlyDays) || gotMainTot != eu.MainOnlyTotals {
		t.Errorf("main-only usage differs: scanned %+v, expected %+v", gotMainTot, eu.MainOnlyTotals)
	}
	if eu.Totals.Messages == 0 || eu.Totals.TotalTokens == 0 {
		t.Fatal("no usage generated")
	}
	if longest < 256<<10 {
		t.Errorf("longest line %d bytes, want the huge line of 256 KiB", longest)
	}
	for _, typ := range []string{"user", "assistant", "system", "attachment", "queue-operation", "last-prompt", "cost-state", "ai-title", "api-request"} {
		if types[typ] == 0 {
			t.Errorf("no %s record in the corpus (types: %v)", typ, types)
		}
	}
	forks := 0
	for _, s := range m.Sessions {
		if s.ForkOf != "" {
			forks++
		}
	}
	t.Logf("%d sessions, %d forks, %d bytes, types %v", len(m.Sessions), forks, m.Bytes, types)
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"2GB", 2 << 30, false}, {"500MB", 500 << 20, false}, {"64KiB", 64 << 10, false}, {"1048576", 1 << 20, false},
		{"1.5g", 3 << 29, false}, {" 3 mb ", 3 << 20, false}, {"0", 0, false},
		{"", 0, true}, {"GB", 0, true}, {"-1MB", 0, true}, {"1TB", 0, true}, {"NaN", 0, true}, {"1e300", 0, true},
	} {
		got, err := ParseSize(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, bad=%v", c.in, got, err, c.want, c.bad)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"2GB", "1.5MiB", "12", "x", "-3k", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && (n < 0 || n > 1<<50) {
			t.Fatalf("ParseSize(%q) = %d without error", s, n)
		}
	})
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t cr\r", "\x00\x1f ctrl", "straße 日本 🚀", "<html>&"} {
		var got string
		if err := json.Unmarshal(appendString(nil, s), &got); err != nil || got != s {
			t.Errorf("appendString(%q) round-trips to %q, %v", s, got, err)
		}
	}
	if string(appendString(nil, "<a>&é")) != `"<a>&é"` {
		t.Errorf("appendString escapes what JSON.stringify keeps: %s", appendString(nil, "<a>&é"))
	}
}

// TestNoGiantsNoHugeLine generates a corpus with neither (gen -giants 0
// -huge-line 0), which once indexed the plan list at -1.
func TestNoGiantsNoHugeLine(t *testing.T) {
	o := tiny(t.TempDir(), 3)
	o.Giants, o.HugeLine = -1, -1
	m := generate(t, o)
	if len(m.Sessions) != o.Sessions {
		t.Fatalf("%d sessions, want %d", len(m.Sessions), o.Sessions)
	}
	for _, s := range m.Sessions {
		if s.HugeLine {
			t.Fatalf("session %s has the huge line", s.SessionID)
		}
	}
}
