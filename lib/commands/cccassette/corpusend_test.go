package cccassette

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/cli"
	"github.com/ccpipe/ccpipe/lib/commands/ccentries"
	"github.com/ccpipe/ccpipe/lib/transcript"
)

// TestCorpusRunEnd imports every session of the real-CLI corpus (and its
// subagents) and checks each run's status and step count against what the
// session is (testdata/corpus/MANIFEST.md): a model turn is 2 steps, a
// call with its result 2 more, the end with an answer 1 (run_completed).
// c0a1f003 ends with /compact after its answer (a compact summary, a meta
// caveat, the command and its output as user records): the run still ends
// with that answer, as Blackbox ends it. Each session is also imported
// from its cc-entries --branch lines, which must give the same cassette.
func TestCorpusRunEnd(t *testing.T) {
	want := map[string]struct {
		steps  int
		status string
	}{
		"c0a1f001-0000-4000-8000-000000000001": {9*(2+2) + 2 + 1, cassette.StatusSuccess},     // 9 calls one per turn, the answer
		"c0a1f002-0000-4000-8000-000000000002": {2*(2+2) + 2 + 2 + 1, cassette.StatusSuccess}, // 2 Agent calls, an answer, the answer after the task notification
		"agent-a620942e6fc1c75cf":              {(2 + 2) + 2 + 1, cassette.StatusSuccess},
		"agent-a7320cfe3f347049a":              {(2 + 2) + 2 + 1, cassette.StatusSuccess},
		"c0a1f003-0000-4000-8000-000000000003": {2 + 2 + 1, cassette.StatusSuccess},       // two answers, then /compact
		"c0a1f004-0000-4000-8000-000000000004": {2 + 1, cassette.StatusSuccess},           // the answer after a 529 retry
		"c0a1f005-0000-4000-8000-000000000005": {2 + 1, cassette.StatusSuccess},           // the synthetic API-error text is the answer
		"c0a1f006-0000-4000-8000-000000000006": {(2 + 2) + 2 + 1, cassette.StatusSuccess}, // a denied Bash call, the answer
		"c0a1f007-0000-4000-8000-000000000007": {(2 + 2) + 2 + 1, cassette.StatusSuccess}, // Bash sleep, the answer
	}
	seen := 0
	for _, path := range corpusSessions(t) {
		paths := []string{path}
		subs, err := transcript.Subagents(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			paths = append(paths, s.Path)
		}
		for _, p := range paths {
			id := transcript.SessionID(p)
			t.Run(id, func(t *testing.T) {
				w, ok := want[id]
				if !ok {
					t.Fatalf("%s is not in the table", filepath.Base(p))
				}
				seen++
				var out, errb bytes.Buffer
				if code := RunWith(cli.System{}, []string{"import", p}, nil, &out, &errb); code != 0 {
					t.Fatalf("import: exit %d: %s", code, errb.String())
				}
				cs, err := cassette.ReadAll(bytes.NewReader(out.Bytes()))
				if err != nil || len(cs) != 1 {
					t.Fatalf("%v, %d cassettes", err, len(cs))
				}
				r := cassette.Verify(cs[0])
				if !r.Pass || len(cs[0].Steps) != w.steps || r.Status != w.status {
					t.Errorf("%d steps, %s (verify %v); want %d, %s", len(cs[0].Steps), r.Status, r.Pass, w.steps, w.status)
				}
				if strings.Contains(id, "agent-") {
					return // a subagent file's lines are all on its one branch
				}
				var branch bytes.Buffer
				if code := transcriptBranch(t, p, &branch); code != 0 {
					t.Fatalf("cc-entries --branch: exit %d", code)
				}
				var piped bytes.Buffer
				errb.Reset()
				if code := RunWith(cli.System{}, []string{"import", "--id", id}, bytes.NewReader(branch.Bytes()), &piped, &errb); code != 0 {
					t.Fatalf("import of the branch: exit %d: %s", code, errb.String())
				}
				if piped.String() != out.String() {
					t.Errorf("cc-entries --branch | cc-cassette import differs from cc-cassette import")
				}
			})
		}
	}
	if seen != len(want) {
		t.Errorf("%d cassettes imported, the table has %d", seen, len(want))
	}
}

// transcriptBranch writes cc-entries --branch of a transcript.
func transcriptBranch(t *testing.T, path string, w *bytes.Buffer) int {
	t.Helper()
	var errb bytes.Buffer
	code := ccentries.Run([]string{"--branch", path}, nil, w, &errb)
	if code != 0 {
		t.Log(errb.String())
	}
	return code
}
