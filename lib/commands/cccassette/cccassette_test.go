package cccassette

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

const fixtures = "../../cassette/testdata/blackbox/"

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	// No API keys for import to look for; the proxied child gets this
	// process's environment (PATH).
	sys := cli.System{Environ: os.Environ}
	return golden.Call(func(a []string, in io.Reader, out, errw io.Writer) int { return RunWith(sys, a, in, out, errw) }, stdin, args...)
}

// ndjsonOf converts a fixture to the NDJSON form.
func ndjsonOf(t *testing.T, name string) string {
	t.Helper()
	code, out, errs := run(t, "", "convert", fixtures+name)
	if code != 0 {
		t.Fatalf("convert: %d %s", code, errs)
	}
	return out
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestVerifyExitCodes(t *testing.T) {
	good := ndjsonOf(t, "fork-child.v2.json")
	l := lines(good)
	tampered := strings.Replace(good, "No hotels available for that date.", "Rooms available.", 1)
	swapped := strings.Join([]string{l[0], l[1], l[3], l[2]}, "\n") + "\n"
	nonFinite := strings.Replace(good, `"timestamp":0`, `"timestamp":1e400`, 1)
	cases := []struct {
		name, in string
		code     int
		want     string
	}{
		{"good", good, 0, `"pass":true`},
		{"tampered", tampered, 1, `"first_failure":{"name":"hash_chain","status":"fail","detail":"step 3 hash mismatch`},
		{"out of order", swapped, 1, `"detail":"step at position 1 has index 2; expected 1","step_index":1`},
		{"non-finite", nonFinite, 1, `cannot be hashed: timestamp: non-finite number","step_index":0`},
		{"truncated", good[:len(good)-40], 1, `"detail":"line 8: truncated: the last line is incomplete`},
		{"missing header", strings.Join(l[1:], "\n") + "\n", 1, `"detail":"line 1: missing header`},
		{"duplicated header", l[0] + "\n" + good, 1, `"detail":"line 2: duplicate header`},
		{"not JSON", "hello\n", 1, `"detail":"line 1: not valid JSON`},
	}
	for _, c := range cases {
		code, out, errs := run(t, c.in, "verify")
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d (want %d)\n%s%s", c.name, code, c.code, out, errs)
		}
		if strings.Count(out, "\n") != 1 {
			t.Errorf("%s: %d records, want 1", c.name, strings.Count(out, "\n"))
		}
	}
}

func TestVerifyManyAndForms(t *testing.T) {
	// Both forms, several files, and a stream of several cassettes.
	code, out, errs := run(t, "", "verify", fixtures+"success-final-answer.v2.json", fixtures+"error-unknown-tool.v2.json", fixtures+"fork-child.v2.json")
	if code != 0 || strings.Count(out, `"pass":true`) != 3 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	stream := ndjsonOf(t, "success-final-answer.v2.json") + ndjsonOf(t, "error-unknown-tool.v2.json")
	code, out, _ = run(t, stream, "verify", "--jq", ".status", "-r")
	if code != 0 || out != "success\nerror\n" {
		t.Errorf("stream: exit %d %q", code, out)
	}
	code, _, errs = run(t, "", "verify")
	if code != 2 || !strings.Contains(errs, "no cassette given") {
		t.Errorf("no input: exit %d %s", code, errs)
	}
}

// A step of hundreds of MB is read and hashed with memory bounded by the
// step; a change in it names its index.
func TestHugeStep(t *testing.T) {
	size := 5 << 20
	if !testing.Short() && !raceOn {
		size = 200 << 20
	}
	r := cassette.NewRecorder("big")
	var b bytes.Buffer
	w := cassette.NewWriter(&b)
	w.Write(cassette.Header{Version: 2, ID: "big"}.Value())
	big := strings.Repeat("x\"y\n", size/4)
	for i, p := range []cassette.Value{
		cassette.ObjectValue(cassette.Member{Key: "messages", Value: cassette.ArrayValue()}, cassette.Member{Key: "tools", Value: cassette.ArrayValue()}),
		cassette.ObjectValue(cassette.Member{Key: "type", Value: cassette.StringValue("final_answer")}, cassette.Member{Key: "text", Value: cassette.StringValue(big)}),
	} {
		s, err := r.Append([]string{cassette.ModelInput, cassette.ModelOutput}[i], int64(i), p)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(s.Value())
	}
	w.Flush()
	big = ""
	path := filepath.Join(t.TempDir(), "big.ndjson")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "verify", path)
	if code != 0 || !strings.Contains(out, `"pass":true,"path":"`+path+`","id":"big","steps":2`) {
		t.Fatalf("exit %d: %.300s %s", code, out, errs)
	}
	data := b.Bytes()
	i := bytes.LastIndex(data, []byte(`x\"y`))
	data[i] = 'z'
	os.WriteFile(path, data, 0o644)
	code, out, _ = run(t, "", "verify", path)
	if code != 1 || !strings.Contains(out, `"detail":"step 1 hash mismatch`) {
		t.Errorf("tampered: exit %d: %.300s", code, out)
	}
	// Cut in the middle of the big line: truncated, one clear error.
	os.WriteFile(path, data[:len(data)/2], 0o644)
	code, out, _ = run(t, "", "verify", path)
	if code != 1 || !strings.Contains(out, `"detail":"line 3: truncated`) {
		t.Errorf("truncated: exit %d: %.300s", code, out)
	}
}

func TestDiff(t *testing.T) {
	parent := ndjsonOf(t, "fork-child.v2.json")
	child := strings.Replace(parent, "No hotels available for that date.", "Two rooms left.", -1)
	dir := t.TempDir()
	pp, cp := filepath.Join(dir, "p.ndjson"), filepath.Join(dir, "c.ndjson")
	os.WriteFile(pp, []byte(parent), 0o644)
	// Rehash the child so that its chain holds.
	os.WriteFile(cp, []byte(rehash(t, child, "child")), 0o644)

	code, out, errs := run(t, "", "diff", pp, pp)
	if code != 0 || !strings.Contains(out, `"same":true`) || !strings.Contains(out, `"first_divergence":null`) {
		t.Errorf("same: exit %d %s %s", code, out, errs)
	}
	code, out, _ = run(t, "", "diff", pp, cp)
	for _, want := range []string{`"same":false`, `"shared_prefix_length":3`, `"index":3,"path":"payload.result.message"`, `"summary":"tool_result differs at index 3"`, `"changed_field":"result"`, `"verdict":"no behavioral change: the divergence did not alter the run outcome"`} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("diff: exit %d, want %s in\n%s", code, want, out)
		}
	}
	// A broken chain is an error, not a difference.
	os.WriteFile(cp, []byte(child), 0o644)
	code, _, errs = run(t, "", "diff", pp, cp)
	if code != 1 || !strings.Contains(errs, "hash_chain failed at step 3") {
		t.Errorf("broken chain: exit %d %s", code, errs)
	}
	code, _, _ = run(t, "", "diff", pp)
	if code != 2 {
		t.Errorf("one argument: exit %d", code)
	}
}

func TestAssert(t *testing.T) {
	ok := fixtures + "success-final-answer.v2.json"
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--expect-status", "success", "--expect-tool-sequence", "", "--expect-final-answer", "The capital of France is Paris."}, 0, `"pass":true`},
		{[]string{"--expect-status", "error"}, 1, "expectation status failed: expected error, got success"},
		{[]string{"--expect-tools", "search"}, 1, "expectation tools failed: expected search, got (none)"},
		{[]string{"--expect-tool-sequence", "search"}, 1, "expectation tool_sequence failed: expected search, got (none)"},
		{[]string{"--expect-failure-reason", "x"}, 1, "expected x, got (none)"},
		{[]string{"--expect", `.steps | length == 3`, "--expect", `.id == "fixture-success-final-answer"`}, 0, `"pass":true`},
		{[]string{"--expect", `.steps | length == 4`}, 1, "expectation expect failed"},
		{[]string{"--expect-status", "done"}, 2, `--expect-status "done": want one of success, error, incomplete`},
		{[]string{"--expect", `.[`}, 2, "--expect"},
	}
	for _, c := range cases {
		code, out, errs := run(t, "", append([]string{"assert", ok}, c.args...)...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d (want %d)\n%s%s", c.args, code, c.code, out, errs)
		}
	}
	code, out, errs := run(t, "", "assert", fixtures+"error-unknown-tool.v2.json", "--expect-status", "error", "--expect-failure-reason", "unknown_tool", "--expect-tools", "flights")
	if code != 0 {
		t.Errorf("error fixture: %d %s %s", code, out, errs)
	}
	// A cassette that fails verify skips every expectation.
	tampered := strings.Replace(ndjsonOf(t, "success-final-answer.v2.json"), "Paris.", "Lyon.", 1)
	code, out, _ = run(t, tampered, "assert", "--expect-status", "success")
	if code != 1 || !strings.Contains(out, `"status":"skip","expected":"success","actual":"success","detail":"skipped (verification failed)"`) {
		t.Errorf("tampered: %d %s", code, out)
	}
}

// TestAssertTools: --expect-tools is a set (each tool called at least
// once, in any order, other tools too), --expect-tool-sequence the exact
// ordered list (Blackbox's --expect-tools), on a real session that calls
// Bash, Bash, Bash, Read, Edit, Write, Glob, Grep, Bash.
func TestAssertTools(t *testing.T) {
	c := "testdata/corpus/c0a1f001-0000-4000-8000-000000000001.ndjson"
	cases := []struct {
		flag, tools string
		code        int
		want        string
	}{
		{"--expect-tools", "Bash,Edit", 0, `{"name":"tools","status":"pass","expected":"Bash, Edit","actual":"Bash, Read, Edit, Write, Glob, Grep","detail":"Bash, Read, Edit, Write, Glob, Grep"}`},
		{"--expect-tools", "Grep, Read ,Bash,Grep", 0, `"expected":"Grep, Read, Bash"`},
		{"--expect-tools", "Bash,WebFetch,Task", 1, "expectation tools failed: expected Bash, WebFetch, Task, got Bash, Read, Edit, Write, Glob, Grep"},
		{"--expect-tools", "WebFetch", 1, `"detail":"not called: WebFetch"`},
		{"--expect-tools", "", 2, `--expect-tools "" names no tool; to expect that no tool was called: --expect-tool-sequence ""`},
		{"--expect-tools", " , ", 2, "names no tool"},
		{"--expect-tool-sequence", "Bash,Edit", 1, "expectation tool_sequence failed: expected Bash, Edit, got Bash, Bash, Bash, Read, Edit, Write, Glob, Grep, Bash"},
		{"--expect-tool-sequence", "Bash,Bash,Bash,Read, Edit,Write,Glob,Grep,Bash", 0, `{"name":"tool_sequence","status":"pass"`},
		{"--expect-tool-sequence", "", 1, `"detail":"tool sequence mismatch"`},
	}
	for _, tc := range cases {
		code, out, errs := run(t, "", "assert", c, tc.flag, tc.tools)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%s %q: exit %d (want %d), want %s in\n%s%s", tc.flag, tc.tools, code, tc.code, tc.want, out, errs)
		}
	}
}

// TestReadmeAssertExample runs the README's cassette example as a user
// first would, on a real session of the corpus that used Bash and Edit
// among other tools: import, then the assert line exactly as the README
// writes it. It passes (with an exact ordered list it failed).
func TestReadmeAssertExample(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "cc-cassette assert run.ndjson ") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("the README has no cc-cassette assert example")
	}
	code, cas, errs := run(t, "", "import", corpusProjects+"/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	args := strings.Fields(strings.TrimPrefix(line, "cc-cassette assert run.ndjson "))
	code, out, errs := run(t, cas, append([]string{"assert"}, args...)...)
	if code != 0 || !strings.Contains(out, `"pass":true`) {
		t.Errorf("%s: exit %d\n%s%s", line, code, out, errs)
	}
}

func TestConvertByteStable(t *testing.T) {
	for _, name := range []string{"fork-child.v2.json", "error-unknown-tool.v2.json"} {
		_, doc1, _ := run(t, "", "convert", "--to", "json", fixtures+name)
		_, nd, _ := run(t, doc1, "convert")
		_, doc2, _ := run(t, nd, "convert", "--to", "json")
		_, nd2, _ := run(t, doc2, "convert", "--to", "ndjson")
		if doc1 != doc2 || nd != nd2 || doc1 == "" || strings.HasSuffix(doc1, "\n") {
			t.Errorf("%s: convert is not byte-stable", name)
		}
	}
}

func TestShow(t *testing.T) {
	code, out, _ := run(t, "", "show", fixtures+"error-unknown-tool.v2.json", "--jq", `"\(.index) \(.summary)"`, "-r")
	want := "0 Model called with 1 message(s)\n1 Model → tool_call: flights\n2 Tool called: flights\n" +
		"3 Tool result: flights → ERROR: Unknown fixture tool: \"flights\". Known tools: \"search\", \"calendar\", \"booking\"\n4 Run failed: unknown_tool\n"
	if code != 0 || out != want {
		t.Errorf("show: %d\n%s", code, out)
	}
	code, out, _ = run(t, "", "show", "--summary", fixtures+"fork-child.v2.json")
	if code != 0 || !strings.Contains(out, `"parent_id":"fixture-fork-parent","forked_from_step_id":"fixture-fork-parent:4","created_at":"1970-01-01T00:00:00.000Z","steps":7,"status":"success"`) {
		t.Errorf("summary: %s", out)
	}
	code, out, _ = run(t, "", "show", "--step", "3", fixtures+"fork-child.v2.json", "--jq", ".payload.result.available")
	if code != 0 || out != "false\n" {
		t.Errorf("step: %d %s", code, out)
	}
	code, _, errs := run(t, "", "show", "--step", "9", fixtures+"fork-child.v2.json")
	if code != 1 || !strings.Contains(errs, "--step 9 is past the end of the cassette (7 steps: 0–6)") {
		t.Errorf("past the end: %d %s", code, errs)
	}
}

func TestImportRefusesKey(t *testing.T) {
	key := "sk-test-literal-key-123"
	line := `{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"my key is ` + key + `"}}` + "\n" +
		`{"type":"assistant","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n"
	var out, errb bytes.Buffer
	code := RunWith(cli.System{Getenv: func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return " " + key + "\n"
		}
		return ""
	}}, []string{"import"}, strings.NewReader(line), &out, &errb)
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "the value of ANTHROPIC_API_KEY") || strings.Contains(errb.String(), key) {
		t.Errorf("exit %d, out %q, err %q", code, out.String(), errb.String())
	}
	// Without the key in the environment the same transcript imports.
	code, o, _ := run(t, line, "import")
	if code != 0 || strings.Count(o, "\n") != 4 {
		t.Errorf("without the key: %d %s", code, o)
	}
}

func TestImportOptions(t *testing.T) {
	path := "../../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"
	code, out, errs := run(t, "", "import", "--with-usage", "--keep-thinking", path)
	if code != 0 {
		t.Fatalf("%d %s", code, errs)
	}
	if !strings.Contains(out, `"event":"model_usage","model_output_step":1,`) || !strings.Contains(out, `"thinking":"`) {
		t.Errorf("no usage or thinking in\n%.2000s", out)
	}
	code, v, _ := run(t, out, "verify", "--jq", ".pass")
	if code != 0 || v != "true\n" {
		t.Errorf("with usage and thinking, verify: %s", v)
	}
	// cc-entries lines on stdin group by transcript.
	data, _ := os.ReadFile(path)
	code, out, errs = run(t, string(data), "import", "--id", "from-stdin")
	code2, byPath, _ := run(t, "", "import", "--id", "from-stdin", path)
	if code != 0 || code2 != 0 || out != byPath {
		t.Errorf("stdin and path differ: %d %d %s", code, code2, errs)
	}
	// Session records on stdin.
	rec := `{"session_id":"c0a1f001-0000-4000-8000-000000000001","transcript_path":"` + path + `"}` + "\n"
	code, out, _ = run(t, rec, "import")
	if code != 0 || !strings.HasPrefix(out, `{"version":2,"id":"c0a1f001-0000-4000-8000-000000000001"`) {
		t.Errorf("session record: %d %.200s", code, out)
	}
	// chat-json
	code, out, errs = run(t, "", "import", "--from", "chat-json", "--id", "external-chat-tool-use", fixtures+"chat-tool-use.foreign.json")
	if code != 0 || !strings.Contains(out, `"hash":"e3837b693496eb0df4b34183a220bc41522ae2e4fb73f0c8336aabd3bf4bec76"`) {
		t.Errorf("chat-json: %d %s", code, errs)
	}
	// Bad input: one line per problem, exit 1, no panic.
	code, _, errs = run(t, "{\"type\":\"user\",\"timestamp\":\"x\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n", "import")
	if code != 1 || !strings.Contains(errs, "timestamp is missing or not an ISO date") {
		t.Errorf("bad timestamp: %d %s", code, errs)
	}
}

// Bad lines are named ten at a time, then counted: on stdin (the shared
// cap of cli.Env.SkipInput) and per file.
func TestImportWarningsCapped(t *testing.T) {
	path := "../../../testdata/corpus/claude/projects/-home-dev-projects-alpha/c0a1f001-0000-4000-8000-000000000001.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Repeat("garbage\n", 15)
	_, _, errs := run(t, bad+string(data), "import", "--id", "x")
	if n := strings.Count(errs, "skipped: not a JSON object"); n != 10 || !strings.Contains(errs, "<stdin>: 5 more warnings about stdin lines not shown (15 in all)") {
		t.Errorf("stdin: %d named, stderr:\n%s", n, errs)
	}
	file := filepath.Join(t.TempDir(), "c0a1f001-0000-4000-8000-000000000001.jsonl")
	if err := os.WriteFile(file, append([]byte(bad), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, errs = run(t, "", "import", "--id", "x", file)
	if n := strings.Count(errs, ": skipped: malformed"); n != 10 || !strings.Contains(errs, "5 more skipped lines not shown (15 in all)") {
		t.Errorf("file: %d named, stderr:\n%s", n, errs)
	}
}

// import without input names what it wants (transcripts, not cassettes)
// and, being a usage error, creates no --out-dir.
func TestImportNoInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := run(t, "", "import", "--out-dir", dir)
	if code != 2 || !strings.Contains(errs, "cc-cassette: no transcript given") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("--out-dir created on a usage error: %v", err)
	}
}

// cc-entries lines of a whole transcript on stdin give the same cassette
// as the transcript's path, with nothing on stderr: a record without a
// sessionId (file-history-snapshot) between two turns must not cut the
// session in two.
func TestImportStdinEqualsPath(t *testing.T) {
	paths, err := filepath.Glob("../../../testdata/corpus/claude/projects/*/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus transcripts: %v", err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"type":"file-history-snapshot"`) {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, viaStdin, errs := run(t, string(data), "import")
			code2, viaPath, errs2 := run(t, "", "import", path)
			if code != 0 || code2 != 0 || errs != "" || errs2 != "" {
				t.Fatalf("exit %d/%d, stderr %q / %q", code, code2, errs, errs2)
			}
			if viaStdin != viaPath {
				t.Errorf("stdin gives %d lines, the path %d", len(lines(viaStdin)), len(lines(viaPath)))
			}
		})
	}
}
