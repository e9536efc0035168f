package contract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/commands/ccrender"
	"github.com/ccpipe/ccpipe/lib/commands/ccsend"
	"github.com/ccpipe/ccpipe/lib/commands/ccsessions"
	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

// A session named late (-n on a --resume: the real CLI writes the
// custom-title where it was set and does not re-append it after the last
// prompt) and then ended: cc-sessions --find finds it by that title, its
// record carries the title, cc-render heads its page with it, and cc-send
// names it and says it is not running.
func TestTitleOfEndedSession(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("first answer")}},
		{Blocks: []fakeapi.Block{fakeapi.Text("second answer")}},
	}}})
	dir := e.Project("titles")
	if res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "first"}); res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	paths := e.Transcripts()
	if len(paths) != 1 {
		t.Fatalf("transcripts: %v", paths)
	}
	sid := strings.TrimSuffix(paths[0][strings.LastIndex(paths[0], "/")+1:], ".jsonl")
	const title = "Beta calc work"
	if res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "second", Args: []string{"--resume", sid, "-n", title}}); res.ExitCode != 0 {
		t.Fatalf("claude --resume -n exit %d: %s", res.ExitCode, res.Stderr)
	}
	sys := system(e.Home, e.ConfigDir)

	var out, errb bytes.Buffer
	if code := ccsessions.RunWith(sys, []string{"--find", title, "--jq", `.session_id + " " + .title`, "-r"}, nil, &out, &errb); code != 0 {
		t.Fatalf("cc-sessions --find %q: exit %d: %s", title, code, errb.String())
	}
	if got := strings.TrimSpace(out.String()); got != sid+" "+title {
		t.Errorf("cc-sessions --find: %q", got)
	}

	out.Reset()
	errb.Reset()
	if code := ccrender.RunWith(sys, []string{"md", paths[0]}, nil, &out, &errb); code != 0 {
		t.Fatalf("cc-render: exit %d: %s", code, errb.String())
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); first != "# "+title {
		t.Errorf("cc-render heads the page with %q", first)
	}

	out.Reset()
	errb.Reset()
	code := ccsend.RunWith(sys, []string{title, "--", "hi"}, nil, &out, &errb)
	want := "cc-send: " + sid + ` "` + title + `": session not running: it has ended`
	if code != 1 || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("cc-send to the ended session: exit %d, stderr %q; want %q...", code, errb.String(), want)
	}
}
