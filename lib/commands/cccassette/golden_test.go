package cccassette

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccpipe/ccpipe/lib/cassette"
	"github.com/ccpipe/ccpipe/lib/internal/golden"
)

// rehash records the steps of an NDJSON cassette again under id, so that
// a cassette changed by hand has a whole chain.
func rehash(t *testing.T, nd, id string) string {
	t.Helper()
	cs, err := cassette.ReadAll(strings.NewReader(nd))
	if err != nil {
		t.Fatal(err)
	}
	rec := cassette.NewRecorder(id)
	var b bytes.Buffer
	w := cassette.NewWriter(&b)
	w.Write(cs[0].Header)
	for _, s := range cs[0].Steps {
		st, err := cassette.DecodeStep(s)
		if err != nil {
			t.Fatal(err)
		}
		ns, err := rec.Append(st.Type, st.Timestamp, st.Payload)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(ns.Value())
	}
	w.Flush()
	return b.String()
}

// TestGolden keeps the records of verify, diff, assert and show in
// testdata/records (every field they document), and what is written in
// Blackbox's schema (show --step, convert) in testdata/stored, over the
// Blackbox fixtures and cassettes changed from them. Temp paths are
// written $TMP.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok, failed, fork := fixtures+"success-final-answer.v2.json", fixtures+"error-unknown-tool.v2.json", fixtures+"fork-child.v2.json"
	parentND := ndjsonOf(t, "fork-child.v2.json")
	parent := write("parent.ndjson", parentND)
	// The tool result of step 3 changed: a fork that diverges there.
	child := write("child.ndjson", rehash(t, strings.ReplaceAll(parentND, "No hotels available for that date.", "Two rooms left."), "fixture-fork-child"))
	// The first four lines: the header and steps 0-2, a run cut short.
	short := write("short.ndjson", strings.Join(lines(parentND)[:4], "\n")+"\n")
	tampered := strings.Replace(ndjsonOf(t, "success-final-answer.v2.json"), "Paris.", "Lyon.", 1)
	// A provider id in the header and in a step, and a key-shaped string
	// in user text, hashed into the chain: verify names where, never what.
	leaky := write("leaky.ndjson", rehash(t, strings.Replace(strings.Replace(strings.Replace(ndjsonOf(t, "success-final-answer.v2.json"),
		`"createdAt":0}`, `"createdAt":0,"parentId":"chatcmpl-AbCdEfGhIjKlMn"}`, 1),
		`"final_answer"`, `"final_answer","msgId":"msg_01AbCdEfGhIjKlMnOpQrStUv"`, 1),
		"What is the capital of France?", "My key is sk-ant-api03-"+strings.Repeat("a1B2", 20)+"AA. What is the capital of France?", 1), "fixture-leaky"))

	tests := []struct {
		name, stdin string
		args        []string
	}{
		{name: "records/verify_fixtures", args: []string{"verify", ok, failed, fork}},
		{name: "records/verify_tampered", stdin: tampered, args: []string{"verify"}},
		{name: "records/verify_findings", args: []string{"verify", leaky}},
		{name: "records/verify_not_json", stdin: "hello\n", args: []string{"verify"}},
		{name: "records/diff_same", args: []string{"diff", parent, parent}},
		{name: "records/diff_fork", args: []string{"diff", parent, child}},
		{name: "records/diff_fork_semantic", args: []string{"diff", "--semantic", parent, child}},
		{name: "records/diff_cut_short", args: []string{"diff", short, parent}},
		{name: "records/assert_pass", args: []string{"assert", ok, "--expect-status", "success", "--expect-tool-sequence", "", "--expect-final-answer", "The capital of France is Paris.", "--expect", ".steps | length == 3"}},
		{name: "records/assert_fail", args: []string{"assert", failed, "--expect-status", "success", "--expect-failure-reason", "unknown_tool", "--expect-tools", "search", "--expect-tool-sequence", "search", "--expect", ".steps | length == 3"}},
		{name: "records/assert_verify_fails", stdin: tampered, args: []string{"assert", "--expect-status", "success"}},
		{name: "records/show_steps", args: []string{"show", failed}},
		{name: "records/show_summary", args: []string{"show", "--summary", ok, failed, fork, short}},
		{name: "stored/show_step", args: []string{"show", "--step", "3", fork}},
		{name: "stored/convert", args: []string{"convert", ok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.stdin, tt.args...)
			if strings.Contains(out+errs, "a1B2a1B2") {
				t.Error("the planted key is printed")
			}
			got := strings.ReplaceAll(golden.Output(code, errs, out), dir, "$TMP")
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), got)
		})
	}
}
