package hooks

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const fixtures = "../../testdata/hooks/payloads"

// TestFixturesEveryEvent parses one payload per event, built from the
// spec's field lists, and wants every field modelled and well typed.
func TestFixturesEveryEvent(t *testing.T) {
	if len(Events) != 33 {
		t.Fatalf("%d events, want 33", len(Events))
	}
	for _, name := range Events {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fixtures, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if ev.EventName() != name {
				t.Errorf("EventName = %q", ev.EventName())
			}
			if _, unknown := ev.(*UnknownEvent); unknown {
				t.Errorf("parsed as UnknownEvent")
			}
			b := ev.Common()
			if len(b.TypeMismatches) > 0 || len(b.UnknownFields) > 0 {
				t.Errorf("mismatches %v, unknown %v", b.TypeMismatches, b.UnknownFields)
			}
			if b.SessionID == "" || b.Cwd == "" || b.TranscriptPath == "" {
				t.Errorf("base fields not read: %+v", b)
			}
			// Every top-level field of the fixture lands in a non-zero field.
			v := reflect.ValueOf(ev).Elem()
			table := fieldTable(v.Type())
			for _, f := range b.Raw {
				if string(f.Value) == "null" || string(f.Value) == "false" || string(f.Value) == "0" || string(f.Value) == "[]" || string(f.Value) == `""` {
					continue
				}
				if v.FieldByIndex(table[f.Name]).IsZero() {
					t.Errorf("field %s was not read", f.Name)
				}
			}
		})
	}
}

func TestParseTyped(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join(fixtures, "PreToolUse.json"))
	ev, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	pre, ok := ev.(*PreToolUseEvent)
	if !ok {
		t.Fatalf("got %T", ev)
	}
	if pre.ToolName != "Bash" || pre.ToolUseID != "toolu_01A" || pre.Effort == nil || pre.Effort.Level != "high" {
		t.Errorf("got %+v", pre)
	}
	view, mm := pre.Tool()
	sh, ok := view.(*ShellInput)
	if !ok || sh.Command != "touch ran" || len(mm) > 0 {
		t.Errorf("Tool() = %#v, %v", view, mm)
	}
	data, _ = os.ReadFile(filepath.Join(fixtures, "Stop.json"))
	ev, _ = Parse(data)
	stop := ev.(*StopEvent)
	if len(stop.BackgroundTasks) != 1 || stop.BackgroundTasks[0].Command != "npm run dev" || !stop.SessionCrons[0].Recurring {
		t.Errorf("got %+v", stop)
	}
	data, _ = os.ReadFile(filepath.Join(fixtures, "PostModelSwitch.json"))
	ev, _ = Parse(data)
	if sw := ev.(*PostModelSwitchEvent); sw.RequestedModel != nil || sw.ToModel != "claude-sonnet-5-5" {
		t.Errorf("got %+v", sw)
	}
}

func TestParseTolerance(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		typ        string
		mismatches []string
		unknown    []string
		record     string
	}{
		{
			name:       "wrong types read as empty",
			in:         `{"hook_event_name":"PreToolUse","session_id":7,"cwd":"/","tool_name":["Bash"],"tool_input":{"command":"ls"},"effort":{"level":3}}`,
			typ:        "*hooks.PreToolUseEvent",
			mismatches: []string{"session_id", "tool_name", "effort.level"},
			record:     `{"event":"PreToolUse","session_id":null,"cwd":"/","tool_name":null,"tool_input":{"command":"ls"},"effort":null,"unknown_fields":[],"type_mismatches":["session_id","tool_name","effort.level"]}`,
		},
		{
			name:    "unknown fields kept",
			in:      `{"hook_event_name":"Stop","stop_hook_active":true,"new_field":{"a":1},"cwd":"/x"}`,
			typ:     "*hooks.StopEvent",
			unknown: []string{"new_field"},
			record:  `{"event":"Stop","stop_hook_active":true,"new_field":{"a":1},"cwd":"/x","unknown_fields":["new_field"],"type_mismatches":[]}`,
		},
		{
			name:    "unknown event",
			in:      `{"session_id":"s","hook_event_name":"FutureEvent","thing":1}`,
			typ:     "*hooks.UnknownEvent",
			unknown: []string{"thing"},
			record:  `{"event":"FutureEvent","session_id":"s","thing":1,"unknown_fields":["thing"],"type_mismatches":[]}`,
		},
		{
			name:   "FileChanged event renamed, pretty input compacted, html kept",
			in:     "{\"hook_event_name\": \"FileChanged\",\n \"event\": \"unlink\", \"file_path\": \"<a&b>\"}",
			typ:    "*hooks.FileChangedEvent",
			record: `{"event":"FileChanged","file_event":"unlink","file_path":"<a&b>","unknown_fields":[],"type_mismatches":[]}`,
		},
		{
			name:       "nested array mismatch",
			in:         `{"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":1}]}`,
			typ:        "*hooks.PostToolBatchEvent",
			mismatches: []string{"tool_calls.tool_name"},
			record:     `{"event":"PostToolBatch","tool_calls":null,"unknown_fields":[],"type_mismatches":["tool_calls.tool_name"]}`,
		},
		{
			name:   "null optional is not a mismatch",
			in:     `{"hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}`,
			typ:    "*hooks.PreCompactEvent",
			record: `{"event":"PreCompact","trigger":"auto","custom_instructions":null,"unknown_fields":[],"type_mismatches":[]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := reflect.TypeOf(ev).String(); got != tt.typ {
				t.Errorf("type %s, want %s", got, tt.typ)
			}
			b := ev.Common()
			if !slices.Equal(b.TypeMismatches, tt.mismatches) {
				t.Errorf("mismatches %q, want %q", b.TypeMismatches, tt.mismatches)
			}
			if !slices.Equal(b.UnknownFields, tt.unknown) {
				t.Errorf("unknown %q, want %q", b.UnknownFields, tt.unknown)
			}
			if got := string(Record(ev)); got != tt.record {
				t.Errorf("record\n got %s\nwant %s", got, tt.record)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{"a":1}`, `{"hook_event_name":5}`, `{"hook_event_name":""}`, `{"hook_event_name":"Stop"`, `{"hook_event_name":"Stop"} {}`} {
		_, err := Parse([]byte(in))
		if !errors.Is(err, ErrNotPayload) {
			t.Errorf("Parse(%q) err = %v, want ErrNotPayload", in, err)
		}
	}
}

func TestToolViews(t *testing.T) {
	tests := []struct {
		tool, input string
		want        any
		mismatches  []string
	}{
		{"Bash", `{"command":"ls","timeout":5000,"run_in_background":true}`, &ShellInput{Command: "ls", Timeout: 5000, RunInBackground: true}, nil},
		{"PowerShell", `{"command":"dir"}`, &ShellInput{Command: "dir"}, nil},
		{"Read", `{"file_path":"/a","offset":10,"limit":5}`, &ReadInput{FilePath: "/a", Offset: 10, Limit: 5}, nil},
		{"Write", `{"file_path":"/a","content":"x"}`, &WriteInput{FilePath: "/a", Content: "x"}, nil},
		{"Edit", `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":true}`, &EditInput{FilePath: "/a", OldString: "x", NewString: "y", ReplaceAll: true}, nil},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb","new_source":"1"}`, &NotebookEditInput{NotebookPath: "/n.ipynb", NewSource: "1"}, nil},
		{"Glob", `{"pattern":"**/*.go"}`, &GlobInput{Pattern: "**/*.go"}, nil},
		{"Grep", `{"pattern":"x","-i":true,"-C":2,"output_mode":"content"}`, &GrepInput{Pattern: "x", CaseInsensitive: true, Context: 2, OutputMode: "content"}, nil},
		{"WebFetch", `{"url":"https://x","prompt":"p"}`, &WebFetchInput{URL: "https://x", Prompt: "p"}, nil},
		{"WebSearch", `{"query":"q","allowed_domains":["a.com"]}`, &WebSearchInput{Query: "q", AllowedDomains: []string{"a.com"}}, nil},
		{"Agent", `{"description":"d","prompt":"p","subagent_type":"Explore"}`, &AgentInput{Description: "d", Prompt: "p", SubagentType: "Explore"}, nil},
		{"ToolSearch", `{"query":"select:TaskCreate"}`, &ToolSearchInput{Query: "select:TaskCreate"}, nil},
		{"TaskCreate", `{"subject":"s","description":"d","activeForm":"a"}`, &TaskCreateInput{Subject: "s", Description: "d", ActiveForm: "a"}, nil},
		{"TaskUpdate", `{"taskId":"1","status":"completed"}`, &TaskUpdateInput{TaskID: "1", Status: "completed"}, nil},
		{"Bash", `{"command":42,"description":"d"}`, &ShellInput{Description: "d"}, []string{"tool_input.command"}},
		{"Bash", `"ls"`, nil, []string{"tool_input"}},
		{"mcp__x__y", `{"a":1}`, nil, nil},
	}
	for _, tt := range tests {
		got, mm := ParseToolInput(tt.tool, json.RawMessage(tt.input))
		if tt.want == nil {
			if got != nil {
				t.Errorf("%s %s: got %#v, want nil", tt.tool, tt.input, got)
			}
		} else if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s:\n got %#v\nwant %#v", tt.tool, tt.input, got, tt.want)
		}
		if !slices.Equal(mm, tt.mismatches) {
			t.Errorf("%s %s: mismatches %q, want %q", tt.tool, tt.input, mm, tt.mismatches)
		}
	}
}

func TestMatcher(t *testing.T) {
	// FROM-CODE: the events Claude Code applies no matcher to.
	none := []string{PostToolBatch, UserPromptSubmit, Stop, TeammateIdle, TaskCreated, TaskCompleted,
		WorktreeCreate, WorktreeRemove, CwdChanged, MessageDisplay}
	for _, name := range Events {
		if TakesMatcher(name) == slices.Contains(none, name) {
			t.Errorf("%s: TakesMatcher = %v", name, TakesMatcher(name))
		}
		data, _ := os.ReadFile(filepath.Join(fixtures, name+".json"))
		ev, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := ev.Matcher()
		if ok != TakesMatcher(name) {
			t.Errorf("%s: Matcher ok=%v, TakesMatcher=%v", name, ok, TakesMatcher(name))
		}
		if ok && v == "" {
			t.Errorf("%s: empty matcher value", name)
		}
	}
	if TakesMatcher("Nope") {
		t.Error("TakesMatcher(unknown) = true")
	}
	if !strings.Contains(string(Record(&UnknownEvent{Base{HookEventName: "X"}})), `"event":"X"`) {
		t.Error("Record of a bare event")
	}
}

// TestParseSalvagesNested: a hook payload and a status line are read by
// one decoder: an object given for a struct field with one bad member
// keeps its siblings and names that member alone; the record still
// prints the whole field as null.
func TestParseSalvagesNested(t *testing.T) {
	ev, err := Parse([]byte(`{"hook_event_name":"PreToolUse","tool_name":"mcp__x__y","tool_input":{},"mcp_server":{"name":7,"source":"plugin"}}`))
	if err != nil {
		t.Fatal(err)
	}
	e := ev.(*PreToolUseEvent)
	if e.MCPServer == nil || e.MCPServer.Source != "plugin" || e.MCPServer.Name != "" {
		t.Errorf("mcp_server %+v", e.MCPServer)
	}
	if got := e.TypeMismatches; len(got) != 1 || got[0] != "mcp_server.name" {
		t.Errorf("mismatches %q", got)
	}
	if rec := string(Record(ev)); !strings.Contains(rec, `"mcp_server":null`) {
		t.Errorf("record %s", rec)
	}
	p, bad, err := ParseStatusLine([]byte(`{"model":{"id":"m","display_name":5}}`))
	if err != nil || len(bad) != 1 || bad[0] != "model.display_name" || p.Model.ID != "m" {
		t.Errorf("status line %+v %q %v", p, bad, err)
	}
}
