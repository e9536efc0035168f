package ccgrep

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/records"
)

// TestStdinDecodedOnce: with every filter on (--cwd-within, --profile,
// --since) and --matches, each stdin record is decoded once, by
// records.Classify, and what the filters and the hits read comes from that
// one Record: the session of a record without a session_id is its path's.
func TestStdinDecodedOnce(t *testing.T) {
	h, proj := home(t)
	oldPath := filepath.Join(proj, idOld+".jsonl")
	newPath := filepath.Join(proj, idNew+".jsonl")
	var lines []string
	for _, p := range []string{oldPath, newPath, oldPath} {
		lines = append(lines, `{"transcript_path":"`+p+`","cwd":"/home/dev/app","profiles":["default"],"started_at":"2026-01-02T09:00:00Z","last_activity_at":"2026-01-03T11:00:00Z"}`)
	}
	lines = append(lines, `{"transcript_path":"`+oldPath+`","cwd":"/srv"}`, `{"cwd":"/x"}`)
	calls := 0
	classify = func(line []byte) (records.Record, error) {
		calls++
		return records.Classify(line)
	}
	t.Cleanup(func() { classify = records.Classify })
	code, out, errs := run(t, h, strings.Join(lines, "\n")+"\n", "flaky", "--matches", "--cwd-within", "/home/dev",
		"--profile", "default", "--since", "2026-01-01", "-q", "[.session_id, .where] | @json", "-r")
	want := `["` + idOld + `","prompt"]` + "\n" + `["` + idNew + `","tool_result"]` + "\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant:\n%s", code, out, errs, want)
	}
	if calls != len(lines) {
		t.Errorf("%d records decoded %d times, want once each", len(lines), calls)
	}
}

// TestStdinOnePath: nothing else in the command decodes a stdin record
// (sessions.FromRecord, json.Unmarshal): Classify's Record is the one path.
func TestStdinOnePath(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		p, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(p, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok {
				switch x.Name + "." + sel.Sel.Name {
				case "sessions.FromRecord", "json.Unmarshal", "json.NewDecoder":
					t.Errorf("%s: %s.%s decodes a record again", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
