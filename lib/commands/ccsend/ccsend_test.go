package ccsend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
	"github.com/ccpipe/ccpipe/lib/ndjson"
	"github.com/ccpipe/ccpipe/lib/peer"
	"github.com/ccpipe/ccpipe/lib/peer/peertest"
	"github.com/ccpipe/ccpipe/lib/profiles"
	"github.com/ccpipe/ccpipe/lib/registry"
	"github.com/ccpipe/ccpipe/lib/sessions"
)

const token = "feedc0defeedc0defeedc0defeedc0de"

// fixture is a config dir with three live registry records: this test
// process (app-3c, with a key file, socket served by the fake inbox), its
// parent (future-1, peerProtocol 2) and pid 1 (stale-9, a socket file
// nobody listens on).
type fixture struct {
	root, sockDir string
	pid           string
	in            *peertest.Inbox
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	host := registry.LocalHost()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sockDir := peertest.Dir(t) // the byte counts in the golden files depend on its length
	f := &fixture{root: root, sockDir: sockDir, pid: strconv.Itoa(os.Getpid())}
	f.in = peertest.NewInbox(t, sockDir, "live.sock")
	stale := filepath.Join(sockDir, "stale.sock")
	peertest.Stale(t, stale)

	dir := filepath.Join(root, "home", ".claude", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(pid int, name, sock string, proto int, updated int64) {
		start, err := host.ProcStart(pid)
		if err != nil {
			t.Skipf("no /proc here: %v", err)
		}
		rec := fmt.Sprintf(`{"pid":%d,"sessionId":"%08d-1111-4111-8111-111111111111","cwd":"/home/dev/app","startedAt":1796032410531,"procStart":%q,"version":"2.1.328","peerProtocol":%d,"kind":"interactive","entrypoint":"cli","pidDomain":%q,"messagingSocketPath":%q,"name":%q,"nameSource":"derived","status":"idle","updatedAt":%d}`,
			pid, proto, start, proto, host.Domain, sock, name, updated)
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)+".json"), []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(os.Getpid(), "app-3c", f.in.Path, 1, 1796032410533)
	write(os.Getppid(), "future-1", filepath.Join(sockDir, "future.sock"), 2, 1796032410532)
	write(1, "stale-9", stale, 1, 1796032410531)
	start, _ := host.ProcStart(os.Getpid())
	key := fmt.Sprintf(`{"peerToken":%q,"procStart":%q,"pidDomain":%q}`, token, start, host.Domain)
	if err := os.WriteFile(registry.KeyPath(dir, os.Getpid(), f.in.Path), []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) deps(env map[string]string) cli.System {
	return cli.System{
		Home:   filepath.Join(f.root, "home"),
		Getenv: func(k string) string { return env[k] },
		Pid:    1,
	}
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)

// normalize replaces what differs between runs with stable names.
func (f *fixture) normalize(s string) string {
	s = strings.ReplaceAll(s, f.root, "$ROOT")
	s = strings.ReplaceAll(s, f.sockDir, "$SOCKS")
	s = strings.ReplaceAll(s, fmt.Sprintf("%08d-1111", os.Getpid()), "$PID-1111")
	s = strings.ReplaceAll(s, fmt.Sprintf("%08d-1111", os.Getppid()), "$PPID-1111")
	s = regexp.MustCompile(`\b`+f.pid+`\b`).ReplaceAllString(s, "$$PID")
	seen := map[string]string{}
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if strings.HasPrefix(u, "00000000-0000-4000") {
			return u
		}
		if seen[u] == "" {
			seen[u] = fmt.Sprintf("<uuid%d>", len(seen)+1)
		}
		return seen[u]
	})
}

// activeRecords is what `cc-sessions --active` prints for the fixture.
func (f *fixture) activeRecords(t *testing.T) string {
	profs, _ := profiles.Discover(profiles.Env{Home: f.deps(nil).Home})
	list, _ := sessions.ActiveSessions(t.Context(), profs, sessions.ActiveOptions{Host: registry.LocalHost()})
	var b bytes.Buffer
	w := ndjson.NewWriter(&b)
	for _, a := range list {
		if err := w.Encode(a); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return b.String()
}

func TestGolden(t *testing.T) {
	f := newFixture(t)
	records := f.activeRecords(t)
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		stdin *string
		reply string
		term  bool // stdout is a terminal: a table, kept in testdata/tables
	}{
		{name: "words_name", args: []string{"default/app-3c", "--name", `CI "bot" <1>`, "--", "hello", "world"}},
		{name: "stdin_message", args: []string{"app-3c", "--priority", "now"}, stdin: ptr("Pipeline #1234 failed in job `test`\n\n")},
		{name: "stdin_empty", args: []string{"app-3c"}, stdin: ptr("")},
		{name: "mode", args: []string{"pid:" + f.pid, "--mode", "bypass", "--from", "ci watcher", "--", "x"}},
		{name: "rename", args: []string{"pid:" + f.pid, "--rename", "beta two!"}},
		{name: "current", args: []string{"--current", "--", "from inside"}, env: map[string]string{"CLAUDE_PID": f.pid}},
		{name: "current_none", args: []string{"--current", "--", "hi"}},
		{name: "wait_held", args: []string{"app-3c", "--wait", "--wait-timeout", "300ms", "--", "hi"}, reply: "held"},
		{name: "wait_dropped", args: []string{"app-3c", "--wait", "--", "hi"}, reply: "dropped"},
		{name: "wait_accepted", args: []string{"app-3c", "--wait", "--wait-timeout", "200ms", "--", "hi"}},
		{name: "wait_idle", args: []string{"app-3c", "--wait-idle", "--", "run the tests"}, reply: "idle"},
		{name: "wait_idle_timeout", args: []string{"app-3c", "--wait-idle", "--wait-timeout", "200ms", "--", "hi"}},
		{name: "stale", args: []string{"stale-9", "--", "hi"}},
		{name: "not_aligned", args: []string{"future-1", "--", "hi"}},
		{name: "missing", args: []string{"nosuch", "--", "hi"}},
		{name: "records", args: []string{"--", "deploy", "freeze"}, stdin: ptr(records +
			`{"session_id":"22222222-2222-4222-8222-222222222222","transcript_path":"/x/22222222-2222-4222-8222-222222222222.jsonl","active":null}` + "\n" +
			`{"socket_path":"` + f.in.Path + `"}` + "\n" +
			"not json\n" + `{"liveness":"dead","socket_path":"/gone.sock","session_id":"33333333-3333-4333-8333-333333333333"}` + "\n")},
		{name: "records_bare_socket_gone", args: []string{"--", "hi"}, stdin: ptr(`{"socket_path":"/tmp/ccpipe-test-no-such.sock"}` + "\n")},
		{name: "records_jq", args: []string{"--jq", "[.address, .status] | @tsv", "-r", "--", "hi"}, stdin: ptr(records)},
		{name: "too_large", args: []string{"app-3c"}, stdin: ptr(strings.Repeat("x", peer.MaxLine))},
		{name: "usage_two_targets", args: []string{"a", "b"}},
		{name: "usage_current_and_target", args: []string{"a", "--current", "--", "x"}},
		{name: "usage_no_message", args: []string{"app-3c"}},
		{name: "usage_no_target", args: []string{"--", "x"}},
		{name: "usage_records_no_words", args: nil, stdin: ptr(records)},
		{name: "usage_stamp", args: []string{"app-3c", "--stamp"}},
		{name: "usage_rename_message", args: []string{"app-3c", "--rename", "x", "--", "hi"}},
		{name: "usage_lines_wait", args: []string{"app-3c", "--lines", "--wait"}},
		{name: "usage_mode", args: []string{"app-3c", "--mode", "auto", "--", "x"}},
		{name: "usage_empty_words", args: []string{"app-3c", "--"}},
		// Issue 13: an empty TARGET, a 2 MB line in --lines, a path that
		// is not a socket, a body over the stdin bound.
		{name: "usage_empty_target", args: []string{"", "--", "x"}},
		{name: "lines_too_long", args: []string{"app-3c", "--lines"}, stdin: ptr("first\n" + strings.Repeat("y", 2<<20) + "\nlast\n")},
		{name: "records_not_socket", args: []string{"--", "hi"}, stdin: ptr(`{"socket_path":"/etc/passwd"}` + "\n")},
		{name: "too_large_stdin", args: []string{"app-3c"}, stdin: ptr(strings.Repeat("x", 5<<20))},
		// On a terminal one message's result is a table; a stream's
		// results stay NDJSON, printed as they happen.
		{name: "table_words", args: []string{"default/app-3c", "--", "hello"}, term: true, env: map[string]string{"NO_COLOR": "1"}},
		{name: "table_records_stream", args: []string{"--", "hi"}, stdin: ptr(records), term: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.in.Reset(peertest.Reply(tt.reply))
			var out, errb bytes.Buffer
			var code int
			sys := f.deps(tt.env)
			dir := "testdata"
			if tt.term {
				sys.Terminal = func(io.Writer) (int, bool) { return 200, true }
				dir = filepath.Join("testdata", "tables")
			}
			if tt.stdin != nil {
				code = RunWith(sys, tt.args, strings.NewReader(*tt.stdin), &out, &errb)
			} else {
				code = RunWith(sys, tt.args, nil, &out, &errb)
			}
			if strings.Contains(out.String()+errb.String(), token) {
				t.Fatal("the key file token reached the output")
			}
			recv := strings.Join(f.in.Received(), "-- next connection --\n")
			if len(recv) > 2000 {
				recv = recv[:200] + fmt.Sprintf("… (%d bytes)\n", len(recv))
			}
			got := f.normalize(fmt.Sprintf("exit %d\n-- stderr --\n%s-- stdout --\n%s-- inbox --\n%s", code, errb.String(), out.String(), recv))
			golden.Check(t, filepath.Join(dir, tt.name+".golden"), got)
		})
	}
	if _, err := os.Lstat(filepath.Join(f.sockDir, "ccpipe-cc-send.sock")); !os.IsNotExist(err) {
		t.Errorf("reply socket left behind: %v", err)
	}
}

func ptr(s string) *string { return &s }

// TestWaitNoReplySocketOutsidePrivateDir: --wait binds its reply socket
// only beside a live socket of ours in a private dir (issue 13.10).
func TestWaitNoReplySocketOutsidePrivateDir(t *testing.T) {
	f := newFixture(t)
	open := peertest.Dir(t)
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	in := peertest.NewInbox(t, open, "live.sock")
	for _, rec := range []string{
		`{"socket_path":"` + in.Path + `"}`,
		`{"socket_path":"/etc/passwd"}`,
		`{"socket_path":"/etc/gone.sock"}`,
	} {
		var out, errb bytes.Buffer
		code := RunWith(f.deps(nil), []string{"--wait", "--wait-timeout", "100ms", "--", "hi"}, strings.NewReader(rec+"\n"), &out, &errb)
		if code != 1 || out.Len() != 0 {
			t.Errorf("%s: exit %d, out %q, stderr %q", rec, code, out.String(), errb.String())
		}
		t.Logf("%s: %s", rec, errb.String())
	}
	// The target proved live (one connection) and got nothing written.
	if got := in.Next(5 * time.Second); got != "" {
		t.Errorf("the open-dir inbox got %q, want an empty connection", got)
	}
	for _, p := range []string{filepath.Join(open, "ccpipe-cc-send.sock"), "/etc/ccpipe-cc-send.sock"} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("reply socket made at %s: %v", p, err)
		}
	}
}

// TestLines: every stdin line reaches the inbox, in order, whatever the
// batching; each result counts the lines it carried.
func TestLines(t *testing.T) {
	f := newFixture(t)
	var in strings.Builder
	var want []string
	for i := range 50 {
		l := fmt.Sprintf("FAIL test_%02d", i)
		want = append(want, l)
		in.WriteString(l + "\n")
	}
	in.WriteString("\n   \n")
	var out, errb bytes.Buffer
	code := RunWith(f.deps(nil), []string{"app-3c", "--lines", "--stamp"}, strings.NewReader(in.String()), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	total := 0
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			Lines  int
			Status string
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Status != "sent" || r.Lines < 1 {
			t.Fatalf("result %s: %v", l, err)
		}
		total += r.Lines
	}
	if total != 50 {
		t.Errorf("results count %d lines, want 50", total)
	}
	var got []string
	stamp := regexp.MustCompile(`^\[#(\d+) \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] `)
	for _, c := range strings.Split(strings.Join(f.in.Received(), "-- next connection --\n"), "-- next connection --\n") {
		lines := strings.Split(strings.TrimSpace(c), "\n")
		var fr struct {
			Message struct{ Content string }
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &fr); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(fr.Message.Content, "\n") {
			m := stamp.FindStringSubmatch(l)
			if m == nil || m[1] != strconv.Itoa(len(got)+1) {
				t.Fatalf("line %q lacks stamp #%d", l, len(got)+1)
			}
			got = append(got, strings.TrimPrefix(l, m[0]))
		}
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("inbox got %q", got)
	}
}
