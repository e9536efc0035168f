package cassette

import (
	"strings"
	"testing"
)

// TestImportRunEnd is Blackbox's rule for what ends an imported run: the
// run ends with the last answer; a user record after it (a prompt, a meta
// reminder, a prompt answered only by thinking or empty text) opens no
// step; a call cut off without a result ends the run with its turn,
// incomplete; a transcript without an assistant message is refused.
func TestImportRunEnd(t *testing.T) {
	at := func(sec int) string { return `"timestamp":"2026-05-01T10:00:0` + string(rune('0'+sec)) + `.000Z"` }
	prompt := func(sec int, text string) string {
		return `{"type":"user",` + at(sec) + `,"message":{"role":"user","content":"` + text + `"}}`
	}
	meta := func(sec int, text string) string {
		return `{"type":"user","isMeta":true,` + at(sec) + `,"message":{"role":"user","content":"` + text + `"}}`
	}
	asst := func(sec int, id string, blocks ...string) string {
		return `{"type":"assistant",` + at(sec) + `,"message":{"id":"` + id + `","role":"assistant","content":[` + strings.Join(blocks, ",") + `]}}`
	}
	text := func(s string) string { return `{"type":"text","text":"` + s + `"}` }
	thinking := `{"type":"thinking","thinking":"hmm","signature":"x"}`
	use := func(id string) string {
		return `{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"ls"}}`
	}
	result := func(sec int, id string) string {
		return `{"type":"user",` + at(sec) + `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]}}`
	}
	tests := []struct {
		name   string
		lines  []string
		steps  string // step types, in order
		status string
		answer string
		err    string
	}{
		{"ends with its answer", []string{prompt(0, "go"), asst(1, "m1", text("done"))},
			"model_input model_output metadata", StatusSuccess, "done", ""},
		// The one real session of 81 where cc-cassette and Blackbox 0.2.2
		// differed: /rename after the answer writes a meta reminder.
		{"meta reminder after the answer", []string{prompt(0, "go"), asst(1, "m1", text("done")),
			meta(2, "The user named this session Beta calc work.")},
			"model_input model_output metadata", StatusSuccess, "done", ""},
		{"prompt after the answer", []string{prompt(0, "go"), asst(1, "m1", text("done")), prompt(2, "and then?")},
			"model_input model_output metadata", StatusSuccess, "done", ""},
		{"follow-up answered only by thinking", []string{prompt(0, "go"), asst(1, "m1", text("done")),
			prompt(2, "and then?"), asst(3, "m2", thinking)},
			"model_input model_output metadata", StatusSuccess, "done", ""},
		{"turn with only empty text", []string{prompt(0, "go"), asst(1, "m1", text("done")),
			prompt(2, "and then?"), asst(3, "m2", text(""))},
			"model_input model_output metadata", StatusSuccess, "done", ""},
		// A prompt between two answers is history: the second answer's
		// model_input shows it.
		{"answered follow-up", []string{prompt(0, "go"), asst(1, "m1", text("done")), prompt(2, "more"), asst(3, "m2", text("more done"))},
			"model_input model_output model_input model_output metadata", StatusSuccess, "more done", ""},
		{"ended on tool calls", []string{prompt(0, "go"), asst(1, "m1", use("t1")), result(2, "t1")},
			"model_input model_output tool_call tool_result", StatusIncomplete, "", ""},
		{"answer, then tool calls", []string{prompt(0, "go"), asst(1, "m1", text("done")), prompt(2, "again"),
			asst(3, "m2", use("t1")), result(4, "t1")},
			"model_input model_output model_input model_output tool_call tool_result", StatusIncomplete, "", ""},
		// Cut off while the first of two parallel calls ran: the run
		// ends with that turn, whose second call keeps its result, as
		// Blackbox ends it (more in testdata/ccedges).
		{"cut off mid-tool", []string{prompt(0, "go"), asst(1, "m1", use("t1"), use("t2")), result(2, "t2")},
			"model_input model_output tool_call tool_call tool_result", StatusIncomplete, "", ""},
		{"only a user line", []string{prompt(0, "go")}, "", "", "", "no assistant messages"},
		{"only user lines and meta", []string{prompt(0, "go"), meta(1, "note")}, "", "", "", "no assistant messages"},
		{"a missing result before the last turn", []string{prompt(0, "go"), asst(1, "m1", use("t1")), asst(2, "m2", text("done"))},
			"", "", "", "has no result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im := NewClaudeCodeImporter(ImportOptions{ID: "t"})
			for i, l := range tt.lines {
				if err := im.Add([]byte(l), i+1); err != nil {
					t.Fatal(err)
				}
			}
			c, err := im.Finish()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, s := range c.Steps {
				typ, _ := s.GetString("type")
				types = append(types, typ)
			}
			if got := strings.Join(types, " "); got != tt.steps {
				t.Errorf("steps %q, want %q", got, tt.steps)
			}
			r := Verify(c)
			if !r.Pass || r.Status != tt.status {
				t.Errorf("verify pass %v status %s, want %s", r.Pass, r.Status, tt.status)
			}
			if a, _ := OutcomeOfCassette(c).Answer(); a != tt.answer {
				t.Errorf("answer %q, want %q", a, tt.answer)
			}
		})
	}
}
