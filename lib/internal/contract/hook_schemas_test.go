package contract

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/internal/claudetest"
	"github.com/ccpipe/ccpipe/lib/internal/fakeapi"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// toolSchemasFile is the tool input schemas cc-hook lint checks rules
// against, embedded into lib/hooks.
const toolSchemasFile = "../../hooks/tool-schemas-2.1.328.json"

// TestToolSchemas reads every tool's input_schema out of the real CLI's
// API requests (the deferred tools too: the model loads them all with
// ToolSearch first) and checks that lib/hooks' copy is what the installed
// binary sends, descriptions left out. -update rewrites the copy.
func TestToolSchemas(t *testing.T) {
	Require(t)
	t.Parallel()
	e := claudetest.New(t, claudetest.Config{Script: &fakeapi.Script{Turns: []fakeapi.Turn{
		{Blocks: []fakeapi.Block{fakeapi.ToolUse("ToolSearch", map[string]any{"query": "select:" + strings.Join(deferredTools, ",")})}},
		{Blocks: []fakeapi.Block{fakeapi.Text("Done.")}},
	}}})
	dir := e.Project("schemas")
	res := e.Headless(claudetest.Cmd{Dir: dir, Prompt: "go", AllowedTools: []string{"Bash", "Grep", "Glob"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d: %s", res.ExitCode, res.Stderr)
	}
	schemas := map[string]any{}
	var listed []string
	for _, r := range e.API.Requests() {
		var body struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"input_schema"`
			} `json:"tools"`
		}
		if json.Unmarshal(r.Body, &body) != nil {
			continue
		}
		for _, tool := range body.Tools {
			if tool.Name == "DeferredToolPlaceholder" {
				continue // stands for the deferred tools before ToolSearch loads them
			}
			schemas[tool.Name] = stripDescriptions(tool.InputSchema)
		}
		if m := deferredList.FindSubmatch(r.Body); m != nil && listed == nil {
			listed = strings.Split(strings.TrimSpace(strings.ReplaceAll(string(m[1]), `\n`, "\n")), "\n")
		}
	}
	// Every deferred tool the CLI names was loaded, so the file has them all.
	if listed == nil {
		t.Error("no request named the deferred tools (the system message's wording changed?)")
	}
	sort.Strings(listed)
	for _, name := range listed {
		if !slices.Contains(deferredTools, name) {
			t.Errorf("the CLI lists deferred tool %s, which the test does not load: add it to deferredTools", name)
		}
	}
	for _, name := range deferredTools {
		if _, ok := schemas[name]; !ok {
			t.Errorf("deferred tool %s was not loaded by ToolSearch", name)
		}
	}
	doc := map[string]any{"version": claudetest.Version, "tools": schemas}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, toolSchemasFile, buf.String())
}

// deferredTools are the tools 2.1.328 sends only after ToolSearch loads them.
var deferredTools = []string{"CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree",
	"Monitor", "NotebookEdit", "SendMessage", "TaskStop", "WebFetch", "WebSearch"}

// deferredList is the system message naming the deferred tools.
var deferredList = regexp.MustCompile(`load tool schemas before calling them:((?:\\n[A-Za-z0-9_]+)+)`)

// stripDescriptions drops the prose of a JSON schema (description keys),
// which changes with every wording fix and tells lint nothing.
func stripDescriptions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k == "description" {
				if _, isText := x.(string); isText {
					continue
				}
			}
			out[k] = stripDescriptions(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = stripDescriptions(x)
		}
		return out
	}
	return v
}
