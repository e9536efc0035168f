package rules

import (
	"strings"
	"testing"
)

func TestLint(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule string // one rule's YAML, indented under "rules:"
		want string // the problem's message, "" for none
		mean string // its did_you_mean
	}{
		{"Edit has no content", `{name: e, events: PreToolUse, matcher: Edit, if: '.tool_input.content | test("TODO")', decision: deny, reason: r}`,
			`rule "e" reads .tool_input.content, which Edit's tool_input never has (did you mean new_string?); Edit's tool_input has file_path, new_string, old_string, replace_all`, ".tool_input.new_string"},
		{"Write has content", `{name: w, events: PreToolUse, matcher: Write, if: '.tool_input.content | test("TODO")', decision: deny, reason: r}`, "", ""},
		{"Write or Edit: one has it", `{name: we, events: PreToolUse, matcher: Write|Edit, if: '.tool_input.content // .tool_input.new_string | test("x")', decision: deny, reason: r}`, "", ""},
		{"no user_prompt", `{name: p, events: UserPromptSubmit, if: '.user_prompt | test("deploy")', decision: block, reason: r}`,
			`rule "p" reads .user_prompt, which UserPromptSubmit's payload never has (did you mean prompt?)`, ".prompt"},
		{"prompt", `{name: p, events: UserPromptSubmit, if: '.prompt | test("deploy")', decision: block, reason: r}`, "", ""},
		{"one of two events has it", `{events: [UserPromptSubmit, PreToolUse], if: '.prompt // .tool_input.command | test("x")', additional_context: c}`, "", ""},
		{"neither event", `{events: [Stop, SubagentStop], if: '.stop_hook_activ', decision: block, reason: r}`,
			`rule at line 2 reads .stop_hook_activ, which Stop's or SubagentStop's payload never has (did you mean stop_hook_active?)`, ".stop_hook_active"},
		{"misspelt in both tools", `{name: b, events: PreToolUse, matcher: Bash|Monitor, if: '.tool_input.cmd', decision: deny, reason: r}`,
			`rule "b" reads .tool_input.cmd, which Bash's or Monitor's tool_input never has (did you mean command?)`, ".tool_input.command"},
		{"mcp tool is open", `{events: PreToolUse, matcher: mcp__x__y, if: '.tool_input.anything', decision: deny, reason: r}`, "", ""},
		{"regex matcher is open", `{events: PreToolUse, matcher: '^Ed', if: '.tool_input.content', decision: deny, reason: r}`, "", ""},
		{"all tools is open", `{events: PreToolUse, if: '.tool_input.whatever', decision: deny, reason: r}`, "", ""},
		{"but payload fields are not", `{events: PreToolUse, if: '.tool_inputs.command', decision: deny, reason: r}`,
			`rule at line 2 reads .tool_inputs, which PreToolUse's payload never has (did you mean tool_input?)`, ".tool_input"},
		{"tool_response is passed through", `{events: PostToolUse, matcher: Bash, if: '.tool_response.anything', decision: block, reason: r}`, "", ""},
		{"nested struct", `{events: PreToolUse, if: '.effort.levl', decision: deny, reason: r}`,
			`rule at line 2 reads .effort.levl, which PreToolUse's payload never has (did you mean level?)`, ".effort.level"},
		{"batch calls", `{events: PostToolBatch, if: 'any(.tool_calls[]; .tool_nme == "Bash")', additional_context: c}`,
			`rule at line 2 reads .tool_calls[].tool_nme, which PostToolBatch's payload never has (did you mean tool_name?)`, ".tool_calls[].tool_name"},
		{"has() is a read", `{events: PreToolUse, matcher: Edit, if: '.tool_input | has("content")', decision: deny, reason: r}`,
			`rule at line 2 reads .tool_input.content, which Edit's tool_input never has (did you mean new_string?)`, ".tool_input.new_string"},
		{"Grep's dash flags", `{events: PreToolUse, matcher: Grep, if: '.tool_input["-i"]', decision: deny, reason: r}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load([]byte("rules:\n  - " + tc.rule + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			ps, err := f.Lint()
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(ps) != 0 {
					t.Fatalf("problems: %v", ps)
				}
				return
			}
			if len(ps) != 1 {
				t.Fatalf("want one problem, got %v", ps)
			}
			if got := ps[0].Message; !strings.HasPrefix(got, tc.want) {
				t.Errorf("message:\n got %s\nwant %s", got, tc.want)
			}
			if ps[0].DidYouMean == nil || *ps[0].DidYouMean != tc.mean {
				t.Errorf("did_you_mean = %v, want %s", ps[0].DidYouMean, tc.mean)
			}
		})
	}
}

func TestLintBrokenRule(t *testing.T) {
	f, err := Load([]byte("rules:\n  - {events: Stop, if: '.a |', decision: block, reason: r}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Lint(); err == nil || IsLint(err) {
		t.Fatalf("a condition that does not compile: %v", err)
	}
}

// TestDidYouMean: a misspelt key, event, decision, case key or matcher
// tool of a rule file is named with the nearest real one, as flags are.
func TestDidYouMean(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"rules:\n- name: x\n  events: PreToolUse\n  decison: deny\n", `unknown rule field "decison"; did you mean decision?`},
		{"rules:\n- name: x\n  events: PreTooluse\n  decision: deny\n  reason: r\n", `unknown event "PreTooluse"; did you mean PreToolUse?`},
		{"rules:\n- name: x\n  events: [Stop, PostTolUse]\n  decision: block\n  reason: r\n", `unknown event "PostTolUse"; did you mean PostToolUse?`},
		{"rules:\n- name: x\n  events: PreToolUse\n  decision: dney\n  reason: r\n", `unknown decision "dney"; did you mean deny?`},
		{"rules:\n- name: x\n  events: PreToolUse\n  decision: nope\n  reason: r\n", `unknown decision "nope" (want allow, deny,`},
	} {
		_, err := Load([]byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.yaml, err, tt.want)
		}
	}
	f, err := Load([]byte("rules:\n- name: x\n  events: PreToolUse\n  matcher: Bassh|Edit|mcp__gh__x\n  decision: deny\n  reason: r\n"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := f.Lint()
	if err != nil || len(ps) != 1 || ps[0].Field != "matcher" || ps[0].DidYouMean == nil || *ps[0].DidYouMean != "Bash" ||
		!strings.Contains(ps[0].Message, `matcher names "Bassh"`) {
		t.Errorf("%v %+v", err, ps)
	}
}
