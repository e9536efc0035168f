package cccassette

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
)

func TestProxyUsageErrors(t *testing.T) {
	dir := t.TempDir()
	parent := filepath.Join(dir, "p.ndjson")
	if err := os.WriteFile(parent, []byte(ndjsonOf(t, "fork-child.v2.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"record", "--out", "x"}, "no command: put it after --"},
		{[]string{"record", "--", "true"}, "--out FILE is required"},
		{[]string{"record", "--out", "x", "extra", "--", "true"}, `unexpected argument "extra"`},
		{[]string{"replay", "--", "true"}, "name one cassette"},
		{[]string{"replay", parent, "--match", "loose", "--", "true"}, `--match "loose": want strict or sequence`},
		{[]string{"replay", parent, "--ignore", ".a |", "--", "true"}, "--ignore .a |"},
		{[]string{"fork", parent, "--set", "1", "--out", "o", "--live", "--", "true"}, "--at N is required"},
		{[]string{"fork", parent, "--at", "3", "--out", "o", "--live", "--", "true"}, "--set JSON|@FILE is required"},
		{[]string{"fork", parent, "--at", "3", "--set", "1", "--out", "o", "--", "true"}, "exactly one of --live and --script"},
		{[]string{"fork", parent, "--at", "3", "--set", "{", "--out", "o", "--live", "--", "true"}, "--set is not JSON"},
		{[]string{"fork", parent, "--at", "3", "--set", "1", "--out", parent, "--live", "--", "true"}, "would overwrite an input"},
		{[]string{"fork", parent, "--at", "2", "--set", "1", "--out", "o", "--live", "--", "true"}, "--at 2 is not a tool_result step (tool_result steps: 3)"},
	}
	for _, c := range cases {
		code, _, errs := run(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}

// clientJS is a tool-loop client of the Messages API (node's fetch,
// streaming): it runs each tool call as a shell command and prints the
// final text.
const clientJS = `const base = process.env.ANTHROPIC_BASE_URL;
const prompt = process.argv[2];
const tools = [{ name: "Bash", description: "run", input_schema: { type: "object" } }];
function parse(text) {
  const blocks = []; let msg;
  for (const chunk of text.split("\n\n")) {
    const line = chunk.split("\n").find((l) => l.startsWith("data: "));
    if (!line) continue;
    const ev = JSON.parse(line.slice(6));
    if (ev.type === "message_start") msg = ev.message;
    if (ev.type === "content_block_start") blocks[ev.index] = Object.assign({}, ev.content_block, { _json: "" });
    if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") blocks[ev.index].text += ev.delta.text;
    if (ev.type === "content_block_delta" && ev.delta.type === "input_json_delta") blocks[ev.index]._json += ev.delta.partial_json;
    if (ev.type === "content_block_stop" && blocks[ev.index].type === "tool_use") blocks[ev.index].input = JSON.parse(blocks[ev.index]._json || "{}");
  }
  return blocks.map(({ _json, ...b }) => b);
}
(async () => {
  const messages = [{ role: "user", content: prompt }];
  for (let i = 0; i < 5; i++) {
    const r = await fetch(base + "/v1/messages", { method: "POST", headers: { "x-api-key": process.env.ANTHROPIC_API_KEY, "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 100, stream: true, system: "Today's date is " + new Date().toISOString().slice(0, 10) + ".", tools, messages }) });
    if (r.status !== 200) { console.error("status", r.status, await r.text()); process.exit(4); }
    const content = parse(await r.text());
    messages.push({ role: "assistant", content });
    const calls = content.filter((b) => b.type === "tool_use");
    if (!calls.length) { console.log(content.map((b) => b.text).join("")); return; }
    messages.push({ role: "user", content: calls.map((c) => ({ type: "tool_result", tool_use_id: c.id,
      content: require("child_process").execSync(c.input.command).toString().trim() })) });
  }
})();
`

// record, replay (offline, and diverging), fork with a script, through
// the command, with node's fetch as the client.
func TestRecordReplayForkCommand(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not found")
	}
	dir := t.TempDir()
	api, err := fakeapi.Start(&fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.Text("Running."), fakeapi.ToolUse("Bash", map[string]any{"command": "echo ran > " + filepath.Join(dir, "f.txt") + " && echo done-1"})}},
		{Match: "done-1", Blocks: []fakeapi.Block{fakeapi.Text("All done.")}},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	client := filepath.Join(dir, "client.js")
	if err := os.WriteFile(client, []byte(clientJS), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ANTHROPIC_BASE_URL", api.URL())
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-cmd-0123456789abcdefghij")
	rec := filepath.Join(dir, "run.ndjson")

	code, out, errs := run(t, "", "record", "--out", rec, "--", "node", client, "do it")
	if code != 0 || out != "All done.\n" || !strings.Contains(errs, "cc-cassette: recorded "+rec+" (7 steps)") {
		t.Fatalf("record: exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
	if code, out, _ := run(t, "", "verify", rec); code != 0 {
		t.Fatalf("verify: %s", out)
	}
	b, _ := os.ReadFile(rec)
	if strings.Contains(string(b), "sk-ant-test") || strings.Contains(string(b), "toolu_") {
		t.Error("the cassette holds the key or a provider id")
	}

	api.Close()
	_ = os.Remove(filepath.Join(dir, "f.txt"))
	code, _, errs = run(t, "", "replay", rec, "--", "node", client, "do it")
	if code != 0 || !strings.Contains(errs, "cc-cassette: replayed 6 steps") {
		t.Errorf("replay: exit %d\n%s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(b) != "ran\n" {
		t.Errorf("replay did not run the tool: %q %v", b, err)
	}
	code, _, errs = run(t, "", "replay", rec, "--", "node", client, "do it now")
	if code != 1 || !strings.Contains(errs, "cc-cassette: replay diverged at step 0, messages[0].content\n  recorded: \"do it\"\n  actual:   \"do it now\"") {
		t.Errorf("diverging replay: exit %d\n%s", code, errs)
	}
	if code, _, errs = run(t, "", "replay", rec, "--ignore", ".messages[0].content", "--", "node", client, "do it now"); code != 0 {
		t.Errorf("replay --ignore: exit %d\n%s", code, errs)
	}

	script := filepath.Join(dir, "replies.json")
	_ = os.WriteFile(script, []byte(`[{"type":"final_answer","text":"Forked."}]`), 0o644)
	set := filepath.Join(dir, "set.json")
	_ = os.WriteFile(set, []byte(`{"tests":"pass"}`), 0o644)
	child := filepath.Join(dir, "child.ndjson")
	code, _, errs = run(t, "", "fork", rec, "--at", "3", "--set", "@"+set, "--script", script, "--out", child, "--", "node", client, "do it")
	if code != 0 {
		t.Fatalf("fork: exit %d\n%s", code, errs)
	}
	if code, out, _ := run(t, "", "verify", child); code != 0 {
		t.Fatalf("verify child: %s", out)
	}
	f, _ := os.Open(child)
	defer f.Close()
	cs, err := cassette.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := cs[0].Header.GetString("parentId"); p != "run" {
		t.Errorf("parentId %q", p)
	}
	step4, _ := cassette.AppendJS(nil, cs[0].Steps[4])
	if !strings.Contains(string(step4), `"result":"{\"tests\":\"pass\"}"`) {
		t.Errorf("model input after the fork: %s", step4)
	}
	code, out, _ = run(t, "", "diff", rec, child)
	if code != 1 || !strings.Contains(out, `"index":3`) {
		t.Errorf("diff: %d %s", code, out)
	}
}

func TestRecordPassesExitCode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	rec := filepath.Join(dir, "x.ndjson")
	code, _, errs := run(t, "", "record", "--out", rec, "--", "sh", "-c", "exit 7")
	if code != 7 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	b, _ := os.ReadFile(rec)
	if !strings.Contains(string(b), `"payload":{"event":"run_failed","exitCode":7,"reason":"process_exit","status":"error"}`) {
		t.Errorf("cassette %s", b)
	}
	code, _, errs = run(t, "", "record", "--out", rec, "--", filepath.Join(dir, "missing"))
	if code != 1 || !strings.Contains(errs, "cc-cassette: starting") {
		t.Errorf("missing command: %d %s", code, errs)
	}
}
