package contract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccpipe/ccpipe/lib/commands/ccstatusline"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/numfmt"
)

// An interactive session whose statusLine runs a capture script: Claude
// Code's real payload is recorded, and cc-statusline, given that payload,
// prints the model and the session's cost as Claude Code computed it. With
// CCPIPE_STATUSLINE_PAYLOAD_OUT set, the last payload is written there
// (lib/commands/ccstatusline/testdata/payload-2.1.328.json).
func TestStatuslinePayload(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Status line turn done.")},
			Usage: &fakeapi.Usage{InputTokens: 3000, OutputTokens: 200, CacheReadInputTokens: 20000, CacheCreationInputTokens: 1000,
				CacheCreation: &fakeapi.CacheCreation{Ephemeral5m: 400, Ephemeral1h: 600}}},
	}}})
	dir := e.Project("status")
	capture := filepath.Join(e.Root, "payloads.ndjson")
	script := e.WriteFile("capture.sh", "#!/bin/sh\n{ tr -d '\\n'; echo; } >> "+capture+"\necho captured-status-line\n", 0o755)
	s := e.Interactive(claudetest.Cmd{Dir: dir, Args: []string{"--permission-mode", "default"},
		Settings: map[string]any{"statusLine": map[string]any{"type": "command", "command": script}}})
	s.WaitReady(40 * time.Second)
	s.WaitScreen("captured-status-line", 30*time.Second)
	s.Type("hello status")
	s.WaitScreen("Status line turn done.", 30*time.Second)
	// The status line refreshes after the turn: wait for a payload with a cost.
	var last map[string]any
	var lastLine []byte
	e.WaitFor("a statusLine payload with a cost", 30*time.Second, func() (bool, error) {
		f, err := os.Open(capture)
		if err != nil {
			return false, nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var p map[string]any
			if json.Unmarshal(sc.Bytes(), &p) == nil {
				if c, _ := p["cost"].(map[string]any); c != nil {
					if v, _ := c["total_cost_usd"].(float64); v > 0 {
						last, lastLine = p, append([]byte(nil), sc.Bytes()...)
					}
				}
			}
		}
		return last != nil, nil
	})
	s.Exit(15 * time.Second)
	if out := os.Getenv("CCPIPE_STATUSLINE_PAYLOAD_OUT"); out != "" {
		var pretty bytes.Buffer
		_ = json.Indent(&pretty, lastLine, "", "  ")
		if err := os.WriteFile(out, append(pretty.Bytes(), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"session_id", "transcript_path", "model", "cost"} {
		if _, ok := last[k]; !ok {
			t.Errorf("payload has no %s: %s", k, lastLine)
		}
	}
	// cc-statusline on the real payload.
	var stdout, stderr bytes.Buffer
	code := ccstatusline.Run([]string{"--cache-dir", filepath.Join(e.Root, "slcache")}, bytes.NewReader(lastLine), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("cc-statusline exit %d: %s", code, stderr.String())
	}
	line := stdout.String()
	model, _ := last["model"].(map[string]any)
	name, _ := model["display_name"].(string)
	cost := last["cost"].(map[string]any)["total_cost_usd"].(float64)
	if !strings.Contains(line, name) || !strings.Contains(line, numfmt.Dollars(cost)) || strings.Count(line, "\n") != 1 {
		t.Errorf("cc-statusline printed %q; want one line with %q and %s", line, name, numfmt.Dollars(cost))
	}
}
