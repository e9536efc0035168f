package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// branchIDs returns the branch of a transcript file as uuids in file order.
func branchIDs(t *testing.T, path string) []string {
	t.Helper()
	on, err := ActiveBranch(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	if _, err := ReadFile(path, Options{}, func(l *Line) error {
		if on[string(l.Header.UUID)] {
			ids = append(ids, string(l.Header.UUID))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// testdata/parallel.jsonl is the conversation of a real Claude Code 2.1.328
// session (its records cut down to the fields the branch reads) whose last
// turn ran three Bash calls in parallel: four assistant records of one
// message (text, then a tool_use each, chained), three tool_result records
// each under its own tool_use, written in the order the calls ended.
func TestActiveBranchParallelCalls(t *testing.T) {
	const path = "testdata/parallel.jsonl"
	var all []string
	if _, err := ReadFile(path, Options{}, func(l *Line) error {
		all = append(all, string(l.Header.UUID))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Every record of that session is on its only branch; the chain walk
	// alone misses the third tool_use and two of the results.
	if got := branchIDs(t, path); !reflect.DeepEqual(got, all) {
		t.Errorf("branch misses %v", missing(all, got))
	}
}

func missing(all, got []string) []string {
	var m []string
	for _, id := range all {
		if !slices.Contains(got, id) {
			m = append(m, id)
		}
	}
	return m
}

func TestActiveBranchRecovery(t *testing.T) {
	asst := func(uuid, parent, msg string, uses ...string) string {
		var blocks []string
		for _, u := range uses {
			blocks = append(blocks, `{"type":"tool_use","id":"`+u+`","name":"Bash","input":{}}`)
		}
		if len(blocks) == 0 {
			blocks = append(blocks, `{"type":"text","text":"t"}`)
		}
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":` + q(parent) +
			`,"message":{"id":"` + msg + `","role":"assistant","content":[` + strings.Join(blocks, ",") + `]}}`
	}
	result := func(uuid, parent, extra string, ids ...string) string {
		var blocks []string
		for _, id := range ids {
			blocks = append(blocks, `{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}`)
		}
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + q(parent) + extra +
			`,"message":{"role":"user","content":[` + strings.Join(blocks, ",") + `]}}`
	}
	prompt := func(uuid, parent string) string {
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + q(parent) + `,"message":{"role":"user","content":"p"}}`
	}
	att := func(uuid, parent string) string {
		return `{"type":"attachment","uuid":"` + uuid + `","parentUuid":` + q(parent) + `,"attachment":{"type":"hook_success"}}`
	}
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"parallel results each under its tool_use", []string{
			prompt("p1", ""), asst("a1", "p1", "m1", "t1"), asst("a2", "a1", "m1", "t2"),
			result("r1", "a1", "", "t1"), result("r2", "a2", "", "t2"), asst("a3", "r2", "m2"),
		}, []string{"p1", "a1", "a2", "r1", "r2", "a3"}},
		// The result of the last call ends first and is the chain's
		// parent: the walk misses the last tool_use record too.
		{"last call answered first", []string{
			prompt("p1", ""), asst("a1", "p1", "m1", "t1"), asst("a2", "a1", "m1", "t2"), asst("a3", "a2", "m1", "t3"),
			result("r1", "a1", "", "t1"), result("r3", "a3", "", "t3"), result("r2", "a2", "", "t2"), asst("a4", "r2", "m2"),
		}, []string{"p1", "a1", "a2", "a3", "r1", "r3", "r2", "a4"}},
		// A rewind left an old branch: its message is not touched by the
		// chain, so nothing of it comes back.
		{"rewound branch stays out", []string{
			prompt("p1", ""), asst("a1", "p1", "m1", "t1"), asst("a2", "a1", "m1", "t2"),
			result("r1", "a1", "", "t1"), result("r2", "a2", "", "t2"),
			prompt("p2", ""), asst("b1", "p2", "m3"),
		}, []string{"p2", "b1"}},
		// A result whose parent does not hold its call is found by
		// sourceToolAssistantUUID, once.
		{"result by source", []string{
			prompt("p1", ""), asst("a1", "p1", "m1", "t1"), asst("a2", "a1", "m1", "t2"),
			result("r1", "p1", `,"sourceToolAssistantUUID":"a1"`, "t1"), result("r2", "a2", "", "t2"), asst("a3", "r2", "m2"),
		}, []string{"p1", "a1", "a2", "r1", "r2", "a3"}},
		// A call already answered on the chain is not answered twice.
		{"answered call not recovered again", []string{
			prompt("p1", ""), asst("a1", "p1", "m1", "t1"), result("r1", "a1", "", "t1"),
			result("r1b", "p1", `,"sourceToolAssistantUUID":"a1"`, "t1"), asst("a2", "r1", "m2"),
		}, []string{"p1", "a1", "r1", "a2"}},
		// Hook attachments dangling under an off-chain result come along;
		// a run that branches or leads back into the dialogue does not.
		{"dangling tails", []string{
			prompt("p1", ""), asst("a1", "p1", "m1", "t1"), asst("a2", "a1", "m1", "t2"),
			result("r1", "a1", "", "t1"), att("h1", "r1"), att("h2", "h1"),
			result("r2", "a2", "", "t2"), att("k1", "r2"), att("k2", "k1"), att("k3", "k1"),
			asst("a3", "r2", "m2"),
		}, []string{"p1", "a1", "a2", "r1", "h1", "h2", "r2", "a3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(p, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := branchIDs(t, p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func q(s string) string {
	if s == "" {
		return "null"
	}
	return `"` + s + `"`
}
