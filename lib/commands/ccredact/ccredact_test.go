package ccredact

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/secrets"
)

func run(t *testing.T, deps cli.System, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return golden.Call(func(a []string, in io.Reader, out, errw io.Writer) int { return RunWith(deps, a, in, out, errw) }, stdin, args...)
}

const corpus = "../../../testdata/corpus/claude"

// TestCorpusHasNoFalsePositive: the real-CLI corpus holds no secret (its
// API key was a fake that never reached a transcript), so --scan finds
// nothing and redacting gives every transcript back byte for byte.
func TestCorpusHasNoFalsePositive(t *testing.T) {
	deps := configDir(corpus)
	code, out, errs := run(t, deps, "", "--scan")
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("--scan on the corpus: exit %d\n%s%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(corpus, "projects/*/*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(corpus, "projects/*/*/subagents/*.jsonl"))
	files = append(files, sub...)
	if len(files) < 8 {
		t.Fatalf("corpus has %d transcripts", len(files))
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(t, deps, "", f)
		if code != 0 || out != string(want) || errs != "" {
			t.Errorf("%s: exit %d, output differs: %v, stderr %q", f, code, out != string(want), errs)
		}
	}
}

// planted is a secret of each kind, built at run time.
type planted struct{ kind, secret, context string }

func plants() []planted {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		b[n/2], b[n/2+1] = '7', 'Q'
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	return []planted{
		{"anthropic-api-key", "sk-ant-api03-" + rnd(alnum+"_-", 93) + "AA", "export ANTHROPIC_API_KEY=%s"},
		{"openai-api-key", "sk-proj-" + rnd(alnum+"_-", 80), "OPENAI_API_KEY=%s python app.py"},
		{"aws-access-key-id", "AKIA" + rnd(upper, 16), "aws_access_key_id = %s"},
		{"aws-secret-access-key", rnd(alnum+"/+", 40), "aws_secret_access_key = %s"},
		{"github-token", "ghp_" + rnd(alnum, 36), "GH_TOKEN=%s gh pr list"},
		{"gitlab-token", "glpat-" + rnd(alnum, 20), "PRIVATE-TOKEN: %s"},
		{"slack-token", "xoxb-" + rnd("0123456789", 12) + "-" + rnd(alnum, 24), "SLACK=%s"},
		{"slack-webhook-url", "T0" + rnd(upper, 8) + "/B0" + rnd(upper, 8) + "/" + rnd(alnum, 24), "https://hooks.slack.com/services/%s"},
		{"stripe-key", "sk_live_" + rnd(alnum, 24), "stripe key %s"},
		{"google-api-key", "AIza" + rnd(alnum+"_-", 35), "maps?key=%s"},
		{"npm-token", "npm_" + rnd(alnum, 36), "//registry.npmjs.org/:_authToken=%s"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ" + rnd(alnum, 30) + "." + rnd(alnum, 43), "Cookie: s=%s"},
		{"private-key", "-----BEGIN EC PRIVATE KEY-----\n" + rnd(alnum+"+/", 64) + "\n" + rnd(alnum+"+/", 40) + "\n-----END EC PRIVATE KEY-----", "$ cat key.pem\n%s\n"},
		{"url-credentials", "pw" + rnd(alnum, 10), "postgres://app:%s@db:5432/app"},
		{"bearer-token", rnd(alnum, 40), `curl -H "Authorization: Bearer %s" x`},
		{"password-assignment", "Pw" + rnd(alnum, 14), "DB_PASSWORD=%s"},
	}
}

func (p planted) text() string { return strings.Replace(p.context, "%s", p.secret, 1) }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// record puts a text into one of the places a transcript holds strings.
func record(i int, text string) string {
	q := quote(text)
	switch i % 5 {
	case 0:
		return `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":` + q + `}}]}}`
	case 1:
		return `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":` + q + `}]},"toolUseResult":{"stdout":` + q + `,"stderr":""}}`
	case 2:
		return `{"type":"user","message":{"role":"user","content":` + q + `}}`
	case 3:
		return `{"type":"attachment","attachment":{"type":"file","content":{"file":{"content":` + q + `}}}}`
	default:
		return `{"type":"assistant","message":{"content":[{"type":"text","text":` + q + `}]}}`
	}
}

var fields = []string{
	".message.content[0].input.command",
	".message.content[0].content",
	".message.content",
	".attachment.content.file.content",
	".message.content[0].text",
}

// machine writes a config dir with one session: a main transcript with a
// planted secret of every kind among clean lines, a subagent and a
// tool-results file with one each.
func machine(t *testing.T) (cli.System, string, []planted) {
	t.Helper()
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-x")
	id := "11111111-2222-4333-8444-555555555555"
	sess := filepath.Join(proj, id)
	for _, d := range []string{"subagents", "tool-results"} {
		if err := os.MkdirAll(filepath.Join(sess, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ps := plants()
	var main strings.Builder
	for i, p := range ps {
		fmt.Fprintf(&main, "%s\n%s\n", record(i+2, "nothing secret: tokens "+p.kind), record(i, "run: "+p.text()))
	}
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, id+".jsonl"), main.String())
	write(filepath.Join(sess, "subagents", "agent-a0123456789abcdef.jsonl"), record(1, "ok")+"\n"+record(1, ps[4].text())+"\n")
	write(filepath.Join(sess, "tool-results", "abc123xyz.txt"), "line 1\nline 2\n"+ps[0].text()+"\n")
	return configDir(dir), proj, ps
}

func TestScanFindsEveryPlant(t *testing.T) {
	deps, proj, ps := machine(t)
	code, out, errs := run(t, deps, "", "--scan")
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	id := "11111111-2222-4333-8444-555555555555"
	var want []string
	for i, p := range ps {
		want = append(want, fmt.Sprintf(`{"session_id":%q,"path":%q,"line":%d,"field":%q,"kind":%q}`,
			id, filepath.Join(proj, id+".jsonl"), 2*i+2, fields[i%5], p.kind))
	}
	want = append(want,
		fmt.Sprintf(`{"session_id":%q,"path":%q,"line":2,"field":".message.content[0].content","kind":"github-token"}`, id, filepath.Join(proj, id, "subagents", "agent-a0123456789abcdef.jsonl")),
		fmt.Sprintf(`{"session_id":%q,"path":%q,"line":2,"field":".toolUseResult.stdout","kind":"github-token"}`, id, filepath.Join(proj, id, "subagents", "agent-a0123456789abcdef.jsonl")),
		fmt.Sprintf(`{"session_id":%q,"path":%q,"line":3,"field":null,"kind":"anthropic-api-key"}`, id, filepath.Join(proj, id, "tool-results", "abc123xyz.txt")),
	)
	// Tool results put the text in two strings of one record (content and
	// toolUseResult.stdout): the expected list gets the second of each.
	var full []string
	for i, w := range want[:len(ps)] {
		full = append(full, w)
		if i%5 == 1 {
			full = append(full, strings.Replace(w, fields[1], ".toolUseResult.stdout", 1))
		}
	}
	full = append(full, want[len(ps):]...)
	if got := strings.TrimSuffix(out, "\n"); got != strings.Join(full, "\n") {
		t.Errorf("findings\n got:\n%s\nwant:\n%s", got, strings.Join(full, "\n"))
	}
	for _, p := range ps {
		if strings.Contains(out, p.secret) || strings.Contains(errs, p.secret) {
			t.Errorf("%s: the secret is printed", p.kind)
		}
	}
}

func TestRedactTranscript(t *testing.T) {
	deps, proj, ps := machine(t)
	path := filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")
	in, _ := os.ReadFile(path)
	code, out, errs := run(t, deps, "", path)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	inLines := strings.Split(strings.TrimSuffix(string(in), "\n"), "\n")
	outLines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(inLines) != len(outLines) {
		t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
	}
	for i := range inLines {
		p := ps[i/2]
		if i%2 == 0 {
			if outLines[i] != inLines[i] {
				t.Errorf("line %d has no secret but changed:\n%s\n%s", i+1, inLines[i], outLines[i])
			}
			continue
		}
		if !json.Valid([]byte(outLines[i])) || strings.Contains(outLines[i], p.secret) {
			t.Errorf("line %d (%s): invalid or not redacted: %s", i+1, p.kind, outLines[i])
		}
		want := record(i/2, "run: "+strings.Replace(p.context, "%s", "[REDACTED:"+p.kind+"]", 1))
		if outLines[i] != want {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, outLines[i], want)
		}
	}
	// The same through stdin, as cc-entries would send it, and through a
	// session record, which stands for its transcript.
	if code, out2, _ := run(t, deps, string(in)); code != 0 || out2 != out {
		t.Errorf("stdin: exit %d, output differs", code)
	}
	rec := fmt.Sprintf(`{"session_id":"x","transcript_path":%q,"title":"t"}`, path) + "\n"
	if code, out2, _ := run(t, deps, rec+rec); code != 0 || out2 != out {
		t.Errorf("session record: exit %d, output differs (read once)", code)
	}
	// With "-" a session record is a record like any other.
	if code, out2, _ := run(t, deps, rec, "-"); code != 0 || out2 != rec {
		t.Errorf(`"-": exit %d, got %q`, code, out2)
	}
}

func TestScanStdin(t *testing.T) {
	deps, proj, ps := machine(t)
	path := filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")
	gh := ps[4].text()
	entry := `{"cc_source":{"path":"/p/s.jsonl","line":7,"session_id":"s1","agent_id":null},"type":"user","message":{"content":` + quote(gh) + `}}`
	raw := `{"type":"user","sessionId":"s2","message":{"content":` + quote(gh) + `}}`
	session := fmt.Sprintf(`{"session_id":"abc","transcript_path":%q}`, path)
	code, out, errs := run(t, deps, entry+"\n"+raw+"\n"+session+"\n", "--scan", "--jq", `[.session_id, .path, .line, .field, .kind] | @tsv`, "-r")
	if code != 1 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(out, "\n")
	if lines[0] != "s1\t/p/s.jsonl\t7\t.message.content\tgithub-token" || lines[1] != "s2\t\t2\t.message.content\tgithub-token" {
		t.Errorf("got %q", lines[:2])
	}
	// The session record brings its main transcript, subagent and tool results.
	if n := strings.Count(out, "\tabc\t") + strings.Count(out, "abc\t"); n < len(ps)+3 {
		t.Errorf("session record: %d findings of session abc:\n%s", n, out)
	}
}

func TestBadInput(t *testing.T) {
	deps, _, ps := machine(t)
	gh := ps[4].text()
	in := `{"a":1}` + "\n" + `{"a":` + quote(gh) + "\n\n" + `not json ` + gh + "\n" + `{"b":` + quote(gh) + `}` + "\n" + `{"c":"cut`
	code, out, errs := run(t, deps, in)
	want := `{"a":1}` + "\n" + `{"b":"GH_TOKEN=[REDACTED:github-token] gh pr list"}` + "\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, out %q", code, out)
	}
	for _, w := range []string{"<stdin>:2: not a JSON record, left out", "<stdin>:4: not a JSON record, left out", "<stdin>:6: incomplete last line"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	if strings.Contains(errs, ps[4].secret) {
		t.Error("a secret reached stderr")
	}
	// --scan still finds the secrets of lines that are not JSON.
	code, out, errs = run(t, deps, in, "--scan", "--jq", ".line")
	if code != 1 || out != "2\n4\n5\n" || !strings.Contains(errs, "scanned as text") {
		t.Errorf("--scan: exit %d, out %q, err %q", code, out, errs)
	}
}

func TestRulesFile(t *testing.T) {
	deps, _, _ := machine(t)
	rules := filepath.Join(t.TempDir(), "site.rules")
	if err := os.WriteFile(rules, []byte("# ours\nacme-token acme_[a-z0-9]{12}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, deps, `{"x":"use acme_0123456789ab now"}`+"\n", "--rules", rules)
	if code != 0 || out != `{"x":"use [REDACTED:acme-token] now"}`+"\n" {
		t.Errorf("exit %d, out %q", code, out)
	}
	if err := os.WriteFile(rules, []byte("Bad kind\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, deps, "{}\n", "--rules", rules)
	if code != 2 || !strings.Contains(errs, "site.rules:1: kind") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestUsage(t *testing.T) {
	deps, _, _ := machine(t)
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{nil, 2, "cc-redact: no input"},
		{[]string{"--profile", "x"}, 2, "--profile picks"},
		{[]string{"--scan", "--profile", "nope"}, 2, `cc-redact: no profile named "nope" (known: `},
		{[]string{"-", "-"}, 2, `"-" (stdin) can be given once`},
		{[]string{"--scan", "--workers", "0"}, 2, "--workers must be 1 or more"},
		{[]string{"/no/such/file.jsonl"}, 1, "cc-redact: open /no/such/file.jsonl"},
		{[]string{"--rules", "/no/such/rules"}, 2, "--rules: open /no/such/rules"},
	} {
		code, _, errs := run(t, deps, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, errs, c.code, c.err)
		}
	}
}

// The kinds in the help are the rules'.
func TestHelpNamesEveryKind(t *testing.T) {
	for _, r := range secrets.Default.Rules() {
		if !strings.Contains(help, r.Kind) {
			t.Errorf("help does not name %s", r.Kind)
		}
	}
}

// TestBigFileThroughMaps: a transcript over 1 MiB is read from memory
// maps; its lines come out the same, the secret on its last line is found.
func TestBigFileThroughMaps(t *testing.T) {
	deps, _, ps := machine(t)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	var b strings.Builder
	n := 0
	for b.Len() < 3<<20 {
		n++
		fmt.Fprintf(&b, "%s\n", record(n, fmt.Sprintf("line %d: the tokens of %s", n, strings.Repeat("x", n%300))))
	}
	clean := b.String()
	b.WriteString(record(0, ps[4].text()))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, deps, "", "--scan", "--jq", ".line", path)
	if code != 1 || out != fmt.Sprintf("%d\n", n+1) || errs != "" {
		t.Errorf("--scan: exit %d, %q, %q", code, out, errs)
	}
	code, out, errs = run(t, deps, "", path)
	if code != 0 || !strings.HasPrefix(out, clean) || strings.Contains(out, ps[4].secret) || errs != "" {
		t.Errorf("redact: exit %d, stderr %q", code, errs)
	}
}

// A symlink to a FIFO among a session's tool-results (the listing lets
// symlinks through) is named and skipped, not opened for a read that
// would block forever; the other files are still scanned.
func TestScanSkipsFIFO(t *testing.T) {
	deps, proj, _ := machine(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	link := filepath.Join(proj, "11111111-2222-4333-8444-555555555555", "tool-results", "fifo.txt")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var code int
	var out, errs string
	go func() {
		defer close(done)
		code, out, errs = run(t, deps, "", "--scan")
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		// Unblock the read so the test ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("--scan blocked on a FIFO")
	}
	if code != 1 || !strings.Contains(errs, "fifo.txt: skipped: a named pipe (FIFO), not a regular file") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "abc123xyz.txt") {
		t.Errorf("the other files were not scanned: %s", out)
	}
}

// configDir is a System whose only setting is CLAUDE_CONFIG_DIR=dir.
func configDir(dir string) cli.System {
	return cli.System{Getenv: func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return dir
		}
		return ""
	}}
}

// --scan names ten bad lines of a file, then counts the rest with the
// file's name (it said only "more bad lines not shown").
func TestScanWarningsCounted(t *testing.T) {
	deps, _, ps := machine(t)
	path := filepath.Join(t.TempDir(), "31111111-2222-4333-8444-555555555555.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat("not json: "+ps[0].text()+"\n", 15)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, deps, "", "--scan", path)
	if n := strings.Count(errs, "not a JSON record, scanned as text"); code != 1 || n != 10 ||
		!strings.Contains(errs, path+": 5 more warnings not shown (15 in all)") {
		t.Errorf("exit %d, %d named, stderr:\n%s", code, n, errs)
	}
	if strings.Count(out, "\n") != 15 {
		t.Errorf("findings: %s", out)
	}
}

// TestNotATranscript: a binary file given as a transcript is one error
// naming it, exit 1, and none of its bytes written (its digits once came
// out as records); a JSON line that is not an object is not a record.
func TestNotATranscript(t *testing.T) {
	deps, _, _ := machine(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, deps, "", exe)
	if code != 1 || out != "" || errs != "cc-redact: "+exe+": not a transcript: a binary file\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = run(t, deps, "7\n\"x\"\n{\"a\":1}\n[1]\nnull\n")
	if code != 1 || out != "{\"a\":1}\n" || strings.Count(errs, "a JSON value that is not an object") != 4 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
