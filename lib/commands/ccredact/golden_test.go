package ccredact

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// TestGolden keeps cc-redact --scan's findings in testdata/*.golden: a
// whole config dir (main transcript, subagent, tool result: field null),
// and stdin records with and without cc_source or a sessionId (path and
// session_id null); and the redacted records themselves in
// testdata/redacted. The secrets are planted by plants(); no output
// holds them.
func TestGolden(t *testing.T) {
	deps, proj, ps := machine(t)
	dir := filepath.Dir(filepath.Dir(proj))
	gh := quote(ps[4].text())
	stdin := `{"cc_source":{"path":"/p/s.jsonl","line":7,"session_id":"s1","agent_id":null},"type":"user","message":{"content":` + gh + `}}` + "\n" +
		`{"type":"user","sessionId":"s2","message":{"content":` + gh + `}}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"text","text":` + gh + `}]}}` + "\n"
	tests := []struct {
		name, stdin string
		args        []string
	}{
		{name: "scan_config_dir", args: []string{"--scan", "--workers", "1"}},
		{name: "scan_stdin", stdin: stdin, args: []string{"--scan"}},
		{name: "redacted/stdin", stdin: stdin},
		{name: "redacted/transcript", args: []string{filepath.Join(proj, "11111111-2222-4333-8444-555555555555.jsonl")}},
		{name: "scan_clean", stdin: `{"type":"user","message":{"content":"nothing here"}}` + "\n", args: []string{"--scan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, deps, tt.stdin, tt.args...)
			for _, p := range ps {
				if strings.Contains(out+errs, p.secret) {
					t.Errorf("%s: the secret is printed", p.kind)
				}
			}
			got := strings.ReplaceAll(golden.Output(code, errs, out), dir, "$CONFIG_DIR")
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}
