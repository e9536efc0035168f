package ccextract

import (
	"bytes"
	"fmt"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/cccassette"
	"github.com/ccpipe/ccpipe/lib/extract"
	"github.com/ccpipe/ccpipe/lib/jsonscan"
	"github.com/ccpipe/ccpipe/lib/records"
)

// A cut last line the kind wants is checked by its decode, then named as
// incomplete (not malformed), as when every line was scanned first.
func TestStdinIncompleteWantedLine(t *testing.T) {
	in := strings.Join(transcriptLines, "\n") + "\n" + transcriptLines[3][:60]
	var out, errb strings.Builder
	if code := Run([]string{"shell", "--errors"}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "cc-extract: <stdin>:5: incomplete last line (file still being written?)\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Errorf("%d facts, want the one failed call: %s", n, out.String())
	}
}

// FuzzDecodeOnlyValid guards readEntries' order: a line the kind wants is
// checked as JSON by its decode alone, so a decode must never accept a
// line the JSON scanner rejects (that line used to be skipped as
// malformed before it was decoded).
func FuzzDecodeOnlyValid(f *testing.F) {
	for _, l := range transcriptLines {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}} x`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"\q"}}]}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":tru}]}}`))
	var xs []*extract.Extractor
	for _, kind := range extract.Kinds {
		x, err := extract.New(extract.Options{Kind: kind}, func(any) error { return nil })
		if err != nil {
			f.Fatal(err)
		}
		xs = append(xs, x)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		valid := jsonscan.Valid(line)
		for i, x := range xs {
			if !x.Wants(line) {
				continue
			}
			for _, decode := range []func([]byte) (any, error){
				func(b []byte) (any, error) { return x.Decode(b) },
				func(b []byte) (any, error) { return x.DecodeOwned(bytes.Clone(b)) },
			} {
				if _, err := decode(line); err == nil && !valid {
					t.Fatalf("%s: decoded a line that is not JSON: %q", extract.Kinds[i], line)
				}
			}
		}
	})
}

// TestStdinSameAsFiles: the facts of every kind read from stdin (as
// cc-entries prints them) are the facts read from the file, for the
// real-CLI transcript of testdata, the file read with --no-subagents (from
// stdin, entries come as they are); but subagents, which from a file also
// reads the subagents' own transcripts beside it.
func TestStdinSameAsFiles(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "transcripts", "claude", "projects", "*", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no transcripts")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range extract.Kinds {
			if kind == "subagents" {
				continue
			}
			var fromFile, fromStdin, e1, e2 strings.Builder
			c1 := Run([]string{kind, "--no-subagents", p}, nil, &fromFile, &e1)
			c2 := Run([]string{kind}, bytes.NewReader(data), &fromStdin, &e2)
			if c1 != c2 || fromFile.String() != fromStdin.String() {
				t.Errorf("%s %s: file (exit %d) and stdin (exit %d) differ:\n%s\n%s", kind, filepath.Base(p), c1, c2, e1.String(), e2.String())
			}
		}
	}
}

// TestPrefiltersStdinFileEnds: entries of several transcripts on stdin,
// each with its cc_source (cc-entries' output), give the facts of the
// files read one by one. A file ends where the cc_source's path changes,
// on whatever line: also on one the kind's prefilter answers without a
// decode (failures notes a call's tool name from its bytes; the name must
// be noted after the end of the file before, not cleared with it).
func TestPrefiltersStdinFileEnds(t *testing.T) {
	dir := t.TempDir()
	call := func(id, name string) string {
		return `{"type":"assistant","sessionId":"s","uuid":"a` + id + `","message":{"content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":{"command":"ls","file_path":"/f"}}]}}`
	}
	result := func(id, extra string) string {
		return `{"type":"user","sessionId":"s","uuid":"u` + id + `","message":{"content":[{"tool_use_id":"` + id + `","type":"tool_result","content":"Exit code 1\nno"` + extra + `}]}}`
	}
	files := [][]string{
		{call("toolu_1", "Bash"), result("toolu_1", `,"is_error":true`), call("toolu_2", "Read")},
		{call("toolu_3", "Read"), result("toolu_3", `,"is_error":true`), call("toolu_4", "Bash"), result("toolu_4", "")},
		{result("toolu_2", `,"is_error":true`), call("toolu_5", "Bash"), result("toolu_5", `,"is_error":true`)},
	}
	var paths []string
	for i, lines := range files {
		p := filepath.Join(dir, fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i+1))
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var entries, e0 strings.Builder
	if code := ccentries.Run(append([]string{"--with-source"}, paths...), nil, &entries, &e0); code != 0 {
		t.Fatalf("cc-entries: exit %d: %s", code, e0.String())
	}
	sameFromStdin(t, "", paths, entries.String(), "subagents", "usage")
}

// sameFromStdin: every kind but skip (and shell and tools with --errors)
// gives the same output, exit code included, from the files at paths as
// from entries, their lines on stdin.
func sameFromStdin(t *testing.T, label string, paths []string, entries string, skip ...string) {
	t.Helper()
	for _, kind := range extract.Kinds {
		if slices.Contains(skip, kind) {
			continue
		}
		for _, flags := range [][]string{nil, {"--errors"}} {
			if flags != nil && kind != "shell" && kind != "tools" {
				continue
			}
			var fromFiles, fromStdin, e1, e2 strings.Builder
			c1 := Run(append(append([]string{kind, "--no-subagents", "--no-cache"}, flags...), paths...), nil, &fromFiles, &e1)
			c2 := Run(append([]string{kind}, flags...), strings.NewReader(entries), &fromStdin, &e2)
			if c1 != c2 || fromFiles.String() != fromStdin.String() {
				t.Errorf("%s%s %v: files (exit %d) and stdin (exit %d) differ:\n%s%s\n%s%s", label, kind, flags, c1, c2, fromFiles.String(), e1.String(), fromStdin.String(), e2.String())
			}
		}
	}
}

// TestStdinForkFirst: entries on stdin without a cc_source (cc-entries'
// default), a fork's before the session it copied, give every kind's
// facts as the same files read in that order: a session's change ends a
// transcript, so a copied call's id is not left ignored for the
// original's (its failed Bash call was lost to shell --errors). So do
// the same files piped through cc-entries --with-source -, whose
// cc_source path is null: its session ends a transcript too.
func TestStdinForkFirst(t *testing.T) {
	dir := "../../../testdata/corpus-fork/claude/projects/-home-dev-projects-forks/"
	orders := [][]string{
		{"f0a1f002-0000-4000-8000-000000000002", "f0a1f003-0000-4000-8000-000000000003", "f0a1f004-0000-4000-8000-000000000004", "f0a1f001-0000-4000-8000-000000000001"},
		{"f0a1f004-0000-4000-8000-000000000004", "f0a1f001-0000-4000-8000-000000000001", "f0a1f003-0000-4000-8000-000000000003", "f0a1f002-0000-4000-8000-000000000002"},
	}
	for _, order := range orders {
		var paths []string
		for _, id := range order {
			paths = append(paths, dir+id+".jsonl")
		}
		var entries, e0 strings.Builder
		if code := ccentries.Run(paths, nil, &entries, &e0); code != 0 {
			t.Fatalf("cc-entries: exit %d: %s", code, e0.String())
		}
		// Read from files, a subagent run names its transcript; on
		// stdin it cannot.
		sameFromStdin(t, fmt.Sprint(order, " "), paths, entries.String(), "subagents")

		var cat strings.Builder
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			cat.Write(b)
		}
		var sourced strings.Builder
		if code := ccentries.Run([]string{"--with-source", "-"}, strings.NewReader(cat.String()), &sourced, &e0); code != 0 {
			t.Fatalf("cc-entries -: exit %d: %s", code, e0.String())
		}
		if !strings.HasPrefix(sourced.String(), `{"cc_source":{"path":null,`) {
			t.Fatalf("cc-entries --with-source - gave no null path: %.80s", sourced.String())
		}
		sameFromStdin(t, fmt.Sprint(order, " null path "), paths, sourced.String(), "subagents")
	}
}

// TestStdinForeignRecords: records that are not transcript entries
// (records.Classify), mixed among the entries on stdin, are each named or
// counted on stderr and skipped, and the entries give every kind's facts
// as the files do, exit code included: cc-extract's facts piped back in
// (a tool call's input, a block, with its own "type"), cc-cassette's
// steps (a top-level "type" beside an index), a hook payload. They were
// handed to the kind when they held a "type" anywhere, and dropped
// there unsaid. Entries with and without a cc_source (with one, the
// files give the same facts: sameFromStdin).
func TestStdinForeignRecords(t *testing.T) {
	const sid = "5e55e000-0000-4000-8000-000000000001"
	widget := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-10-01T09:00:00.000Z","sessionId":"` + sid + `","cwd":"/w","message":{"role":"user","content":"check the widget"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-10-01T09:00:01.000Z","sessionId":"` + sid + `","cwd":"/w","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"toolu_1","name":"Widget","input":{"type":"gear","size":3}},{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"false"}}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","timestamp":"2026-10-01T09:00:02.000Z","sessionId":"` + sid + `","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a gear"}]},{"type":"tool_result","tool_use_id":"toolu_2","content":"Exit code 1","is_error":true}]}}`,
	}
	p := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(widget, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{p, "../../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"}

	var foreign []string
	add := func(out string) {
		for l := range strings.Lines(out) {
			foreign = append(foreign, strings.TrimSuffix(l, "\n"))
		}
	}
	for _, kind := range extract.Kinds {
		var out, errb strings.Builder
		Run(append([]string{kind, "--no-cache"}, paths...), nil, &out, &errb)
		add(out.String())
	}
	for _, path := range paths {
		var out, errb strings.Builder
		if code := cccassette.Run([]string{"import", path}, nil, &out, &errb); code != 0 {
			t.Fatalf("cc-cassette import: exit %d: %s", code, errb.String())
		}
		add(out.String())
	}
	add(`{"hook_event_name":"Stop","session_id":"s","type":"x"}` + "\n")
	nested, steps := 0, 0
	for _, l := range foreign {
		r, err := records.Classify([]byte(l))
		if err != nil || r.Kind == records.Entry {
			t.Fatalf("not a foreign record: %v %v %s", r.Kind, err, l)
		}
		_, typed, _ := records.WalkEntry([]byte(l), func(*jsonscan.Member) bool { return true })
		switch {
		case strings.Contains(l, `"type"`) && !typed:
			nested++
		case strings.Contains(l, `"prevHash"`) && typed:
			steps++
		}
	}
	if nested == 0 || steps == 0 {
		t.Fatalf("%d facts with a nested \"type\", %d cassette steps: want some of each", nested, steps)
	}

	for _, sourced := range []bool{false, true} {
		args := paths
		if sourced {
			args = append([]string{"--with-source"}, paths...)
		}
		var entries, e0 strings.Builder
		if code := ccentries.Run(args, nil, &entries, &e0); code != 0 {
			t.Fatalf("cc-entries: exit %d: %s", code, e0.String())
		}
		var mixed strings.Builder
		rest := foreign
		for l := range strings.Lines(entries.String()) {
			if len(rest) > 0 {
				mixed.WriteString(rest[0] + "\n")
				rest = rest[1:]
			}
			mixed.WriteString(l)
		}
		for _, l := range rest {
			mixed.WriteString(l + "\n")
		}
		if sourced {
			sameFromStdin(t, "cc_source among other records ", paths, mixed.String(), "subagents")
		}
		for _, kind := range extract.Kinds {
			var alone, fromStdin, e1, e2 strings.Builder
			c1 := Run([]string{kind}, strings.NewReader(entries.String()), &alone, &e1)
			c2 := Run([]string{kind}, strings.NewReader(mixed.String()), &fromStdin, &e2)
			label := fmt.Sprintf("%s (cc_source %v)", kind, sourced)
			if c1 != c2 || e1.Len() > 0 || alone.String() != fromStdin.String() {
				t.Errorf("%s: the entries alone (exit %d, %d facts) and among other records (exit %d, %d facts) differ:\n%s\n%.2000s", label, c1, strings.Count(alone.String(), "\n"), c2, strings.Count(fromStdin.String(), "\n"), diffLines(alone.String(), fromStdin.String()), e1.String()+e2.String())
			}
			named := strings.Count(e2.String(), ": not a transcript entry (")
			summary := fmt.Sprintf("cc-extract: <stdin>: %d more warnings about stdin lines not shown (%d in all)\n", len(foreign)-named, len(foreign))
			if named != 10 || !strings.HasSuffix(e2.String(), summary) || strings.Count(e2.String(), "\n") != 11 {
				t.Errorf("%s: stderr does not count the %d foreign records:\n%s", label, len(foreign), e2.String())
			}
		}
	}
	// Nothing but facts with a "type" inside: no entry read, exit 1.
	var out, errb strings.Builder
	in := strings.Join(foreign[:3], "\n") + "\n"
	if code := Run([]string{"tools"}, strings.NewReader(in), &out, &errb); code != 1 || !strings.HasSuffix(errb.String(), "cc-extract: <stdin>: no transcript entry read\n") {
		t.Errorf("facts only: exit %d, stderr %s", code, errb.String())
	}
}

// diffLines is the first line where a and b differ, from each.
func diffLines(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n%.300s\n%.300s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines and %d", len(la), len(lb))
}
