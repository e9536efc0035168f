package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccredact"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// A real Bash call prints a (fake) GitHub token ahead of an output large
// enough for the CLI to save whole under tool-results/. cc-redact --scan
// finds the token where the real CLI put it (the tool_result preview, the
// toolUseResult stdout, the tool-results file), and cc-redact gives the
// transcript back without it, every other line byte for byte.
func TestRedactFindsWhatBashPrinted(t *testing.T) {
	Require(t)
	t.Parallel()
	// The command builds the token, so that it appears only in the output.
	cmd := `echo "GH_TOKEN=ghp_$(printf 'Ab3dEf7hK9' | head -c 10)$(printf 'Qz8xWv2uT5%.0s' 1 2 3 | head -c 26)"; seq 1 40000`
	token := "ghp_Ab3dEf7hK9" + strings.Repeat("Qz8xWv2uT5", 3)[:26]
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("Bash", map[string]any{"command": cmd})}},
		{Match: "GH_TOKEN", Blocks: []fakeapi.Block{fakeapi.Text("Printed.")}},
	}}})
	dir := e.Project("redact")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "print the token", AllowedTools: []string{"Bash"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	raw, err := os.ReadFile(paths[0])
	if err != nil || !bytes.Contains(raw, []byte(token)) {
		t.Fatalf("the transcript does not hold the token (%v): the CLI changed how it stores Bash output", err)
	}
	saved, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(paths[0], ".jsonl"), "tool-results", "*"))
	if len(saved) != 1 {
		t.Fatalf("tool-results files: %v", saved)
	}

	deps := system(e.Home, e.ConfigDir)
	var out, errb bytes.Buffer
	code := ccredact.RunWith(deps, []string{"--scan"}, nil, &out, &errb)
	if code != 1 || errb.Len() > 0 {
		t.Fatalf("cc-redact --scan: exit %d: %s", code, errb.String())
	}
	if bytes.Contains(out.Bytes(), []byte(token)) {
		t.Fatal("--scan printed the token")
	}
	where := map[string]bool{}
	dec := json.NewDecoder(&out)
	for dec.More() {
		var f struct {
			Path, Kind string
			Field      *string
		}
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		if f.Kind != "github-token" {
			t.Errorf("unexpected finding %+v", f)
			continue
		}
		file := "transcript"
		if f.Path != paths[0] {
			file = filepath.Base(filepath.Dir(f.Path))
		}
		field := "(text)"
		if f.Field != nil {
			field = *f.Field
		}
		where[file+" "+field] = true
	}
	want := []string{"transcript .message.content[0].content", "transcript .toolUseResult.stdout", "tool-results (text)"}
	if len(where) != len(want) {
		t.Errorf("findings in %v, want %v", where, want)
	}
	for _, w := range want {
		if !where[w] {
			t.Errorf("no finding in %q; found %v", w, where)
		}
	}

	out.Reset()
	errb.Reset()
	if code := ccredact.RunWith(deps, []string{paths[0]}, nil, &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("cc-redact: exit %d: %s", code, errb.String())
	}
	in := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(in) != len(got) {
		t.Fatalf("%d lines in, %d out", len(in), len(got))
	}
	changed := 0
	for i := range in {
		if !json.Valid([]byte(got[i])) || strings.Contains(got[i], token) {
			t.Errorf("line %d: not valid JSON or still holds the token", i+1)
		}
		if got[i] != in[i] {
			changed++
			if !strings.Contains(in[i], token) || !strings.Contains(got[i], "[REDACTED:github-token]") {
				t.Errorf("line %d changed without a token in it", i+1)
			}
		}
	}
	if changed == 0 {
		t.Error("no line was redacted")
	}
}
