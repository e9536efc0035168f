package ccstatusline

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cli"
)

// TestPrintSettings: the statusLine object runs this binary by absolute
// path, with the --template and the files given; stderr names the
// settings file ($CLAUDE_CONFIG_DIR's when set).
func TestPrintSettings(t *testing.T) {
	sys := cli.System{Home: "/home/dev", Executable: func() (string, error) { return "/usr/local/bin/cc-statusline", nil },
		Getenv: func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" {
				return "/home/dev/.claude-work"
			}
			return ""
		}}
	prices, _ := filepath.Abs("prices.yaml")
	tests := []struct {
		args []string
		want string
	}{
		{nil, "/usr/local/bin/cc-statusline"},
		{[]string{"--template", "{{.model}} {{usd .session_cost_usd}}", "--prices", "prices.yaml"},
			"/usr/local/bin/cc-statusline --template '{{.model}} {{usd .session_cost_usd}}' --prices " + prices},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := RunWith(sys, append([]string{"--print-settings"}, tt.args...), nil, &out, &errb)
		var got struct {
			StatusLine struct{ Type, Command string } `json:"statusLine"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || code != 0 {
			t.Fatalf("exit %d, stdout not JSON (%v): %s%s", code, err, out.String(), errb.String())
		}
		if got.StatusLine.Type != "command" || got.StatusLine.Command != tt.want {
			t.Errorf("got %+v, want command %q", got.StatusLine, tt.want)
		}
		if want := "cc-statusline: add this to /home/dev/.claude-work/settings.json (your user settings; a project's .claude/settings.json or .claude/settings.local.json works too), merged with what is there: keep its other keys and hooks\n"; errb.String() != want {
			t.Errorf("stderr %q", errb.String())
		}
	}
}
