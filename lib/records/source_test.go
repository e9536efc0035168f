package records

import (
	"reflect"
	"testing"
)

func TestSourceOf(t *testing.T) {
	full := Source{Path: "/p/s.jsonl", Line: 3, SessionID: "s1", AgentID: "a1", ToolUseID: "tu"}
	tests := []struct {
		name, line string
		want       Source
		ok         bool
	}{
		{"first, as cc-entries puts it", `{"cc_source":{"path":"/p/s.jsonl","line":3,"session_id":"s1","agent_id":"a1","tool_use_id":"tu"},"type":"user"}`, full, true},
		{"anywhere else", `{"type":"user","cc_source":{"path":"/p/s.jsonl","line":3,"session_id":"s1","agent_id":"a1","tool_use_id":"tu"}}`, full, true},
		{"nulls", `{"cc_source":{"path":null,"line":1,"session_id":"s1","agent_id":null},"type":"user"}`, Source{Line: 1, SessionID: "s1"}, true},
		{"a field of another type gives no value", `{"cc_source":{"path":7,"line":"x","session_id":"s1"}}`, Source{SessionID: "s1"}, true},
		{"escapes", `{"cc_source":{"path":"/a\u00e9\"b"}}`, Source{Path: "/aé\"b"}, true},
		{"none", `{"type":"user","sessionId":"s1"}`, Source{}, false},
		{"not an object", `{"cc_source":[1]}`, Source{}, false},
		{"in a string only", `{"text":"\"cc_source\""}`, Source{}, false},
	}
	for _, tt := range tests {
		got, ok := SourceOf([]byte(tt.line))
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: got %+v %v, want %+v %v", tt.name, got, ok, tt.want, tt.ok)
		}
		// Classify reads the same cc_source.
		if r, err := Classify([]byte(tt.line)); err == nil && (r.Source != nil) == tt.ok && tt.ok && *r.Source != tt.want {
			t.Errorf("%s: Classify's Source %+v, want %+v", tt.name, *r.Source, tt.want)
		}
	}
}

func TestSessionOfPath(t *testing.T) {
	const id = "11111111-1111-4111-8111-111111111111"
	tests := []struct{ path, want string }{
		{"/c/projects/-w/" + id + ".jsonl", id},
		{"/c/projects/-w/" + id + ".jsonl.gz", id},
		{"/c/projects/-w/" + id + "/subagents/agent-a1.jsonl", id},
		{"/c/projects/-w/" + id + "/tool-results/x.txt", id},
		// Outside a projects dir: the session dir, else the file's name.
		{"/tmp/copy/s9/subagents/agent-a1.jsonl", "s9"},
		{"/tmp/copy/s9/tool-results/x.txt", "s9"},
		{"/tmp/t.jsonl", "t"},
		{"/tmp/agent-a1.jsonl", "agent-a1"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SessionOfPath(tt.path); got != tt.want {
			t.Errorf("SessionOfPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
	r, _ := Classify([]byte(`{"transcript_path":"/c/projects/-w/` + id + `/subagents/agent-a1.jsonl"}`))
	if r.SessionID != "" || r.Session() != id {
		t.Errorf("a record without session_id: SessionID %q, Session %q", r.SessionID, r.Session())
	}
	r, _ = Classify([]byte(`{"transcript_path":"/tmp/t.jsonl","session_id":"s1"}`))
	if r.Session() != "s1" {
		t.Errorf("a record's own session_id comes first: %q", r.Session())
	}
}

// TestSessionFields: what a session record says of its session, read in
// the one Classify pass (cc-grep's filters), and an entry's agent.
func TestSessionFields(t *testing.T) {
	r, err := Classify([]byte(`{"session_id":"s1","transcript_path":"/t.jsonl","cwd":"/w","profiles":["a",3,"b"],"started_at":"2026-01-01T00:00:00Z","last_activity_at":"2026-01-02T00:00:00Z","active":{"profile":"work","updated_at":"x"}}`))
	want := Record{Kind: Session, TranscriptPath: "/t.jsonl", SessionID: "s1", Cwd: "/w", Profile: "work", Profiles: []string{"a", "b"},
		StartedAt: "2026-01-01T00:00:00Z", LastActivityAt: "2026-01-02T00:00:00Z"}
	if err != nil || !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v %v\nwant %+v", r, err, want)
	}
	r, _ = Classify([]byte(`{"address":"p/x","socket_path":"/s","profile":"home","updated_at":"2026-01-03T00:00:00Z","active":{"profile":"work"}}`))
	if r.Profile != "home" || r.UpdatedAt != "2026-01-03T00:00:00Z" {
		t.Errorf("the record's own profile first: %+v", r)
	}
	for line, agent := range map[string]string{
		`{"type":"user","sessionId":"s","agentId":"a1"}`:                              "a1",
		`{"cc_source":{"path":"/p","session_id":"s","agent_id":"a2"},"agentId":"a1"}`: "a2",
		`{"cc_source":{"path":"/p","session_id":"s","agent_id":null},"type":"user"}`:  "",
		`{"type":"user","sessionId":"s"}`:                                             "",
	} {
		if r, _ := Classify([]byte(line)); r.AgentID != agent {
			t.Errorf("%s: AgentID %q, want %q", line, r.AgentID, agent)
		}
	}
}

func TestSourceWhere(t *testing.T) {
	for _, c := range []struct {
		s    *Source
		want string
	}{
		{nil, "<stdin>:7"},
		{&Source{}, "<stdin>:7"},                   // cc-entries --with-source -: no path
		{&Source{Path: "/p/s.jsonl"}, "<stdin>:7"}, // a path but no line
		{&Source{Path: "/p/s.jsonl", Line: 40}, "/p/s.jsonl:40"},
	} {
		if got := c.s.Where(7); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
