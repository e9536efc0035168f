package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDecodeTyped(t *testing.T) {
	line := `{"parentUuid":"p0","isSidechain":false,"promptId":"p1","type":"assistant","uuid":"a1",` +
		`"timestamp":"2026-05-01T10:00:03.250Z","sessionId":"s1","agentId":"ag","cwd":"/w","version":"2.1.328",` +
		`"gitBranch":"master","entrypoint":"cli","slug":"luminous-codd","requestId":"req_1","requestRef":"apireq-1",` +
		`"apiBlockIndex":2,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x",` +
		`"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],` +
		`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":9007199254740993,"output_tokens":120,` +
		`"cache_creation_input_tokens":3,"cache_read_input_tokens":4,"service_tier":"standard"}}}`
	e, err := Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := &Entry{
		Type: "assistant", UUID: "a1", ParentUUID: "p0", SessionID: "s1", AgentID: "ag",
		Timestamp: time.Date(2026, 5, 1, 10, 0, 3, 250e6, time.UTC), TimestampRaw: "2026-05-01T10:00:03.250Z",
		Cwd: "/w", Version: "2.1.328", GitBranch: "master", Entrypoint: "cli", PromptID: "p1", Slug: "luminous-codd",
		Raw: json.RawMessage(line),
		Message: &Message{ID: "msg_1", Type: "message", Role: "assistant", Model: "claude-x",
			Content:    []Block{{Type: "tool_use", ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}},
			StopReason: "tool_use",
			// Exact beyond float64's 2^53.
			Usage: &Usage{InputTokens: 9007199254740993, OutputTokens: 120, CacheCreationInputTokens: 3,
				CacheReadInputTokens: 4, ServiceTier: "standard"}},
		Assistant: &Assistant{RequestID: "req_1", RequestRef: "apireq-1", APIBlockIndex: 2},
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("got  %+v\nwant %+v", e, want)
		t.Errorf("message got %+v\nwant %+v", e.Message, want.Message)
	}
}

func TestDecodeBlocks(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		check func(t *testing.T, e *Entry)
	}{
		{"string content is one text block", `{"type":"user","message":{"role":"user","content":"hi <b> & you"}}`,
			func(t *testing.T, e *Entry) {
				if !e.Message.ContentIsString || Text(e.Message.Content) != "hi <b> & you" {
					t.Errorf("content %+v", e.Message)
				}
			}},
		{"tool_result with string content", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 1","is_error":true}]},"toolUseResult":"Error: Exit code 1","sourceToolAssistantUUID":"a9","toolDenialKind":"user-rejected"}`,
			func(t *testing.T, e *Entry) {
				b := e.Message.Content[0]
				if b.ToolUseID != "t1" || !b.IsError || !b.ContentIsString || Text(b.Content) != "Exit code 1" {
					t.Errorf("block %+v", b)
				}
				if string(e.User.ToolUseResult) != `"Error: Exit code 1"` || e.User.SourceToolAssistantUUID != "a9" || e.User.ToolDenialKind != "user-rejected" {
					t.Errorf("user %+v", e.User)
				}
			}},
		{"tool_result with blocks", `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iV"}},{"type":"tool_reference","tool_name":"Grep"},{"type":"text","text":"b"}]}]}}`,
			func(t *testing.T, e *Entry) {
				c := e.Message.Content[0].Content
				if len(c) != 4 || c[1].MediaType != "image/png" || c[2].ToolName != "Grep" || Text(c) != "a\nb" {
					t.Errorf("content %+v", c)
				}
			}},
		{"thinking, redacted and unknown blocks", `{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"redacted_thinking","data":"xx"},{"type":"server_tool_use","id":"s"}]}}`,
			func(t *testing.T, e *Entry) {
				c := e.Message.Content
				if c[0].Thinking != "hm" || c[0].Signature != "sig" || c[1].Data != "xx" {
					t.Errorf("blocks %+v", c)
				}
				if e.UnknownBlocks != 1 || string(c[2].Raw) != `{"type":"server_tool_use","id":"s"}` {
					t.Errorf("unknown %d %s", e.UnknownBlocks, c[2].Raw)
				}
			}},
		{"user extras", `{"type":"user","promptSource":"system","turnOrigin":"peer","origin":{"kind":"peer","from":"uds:/tmp/x.sock"},"isCompactSummary":true,"isVisibleInTranscriptOnly":true,"permissionDecision":{"decision":"accept"},"isMeta":true,"message":{"content":"x"}}`,
			func(t *testing.T, e *Entry) {
				u := e.User
				if u.OriginKind != "peer" || u.PromptSource != "system" || u.TurnOrigin != "peer" || !u.IsCompactSummary ||
					!u.IsVisibleInTranscriptOnly || !e.IsMeta || string(u.PermissionDecision) != `{"decision":"accept"}` {
					t.Errorf("user %+v meta %v", u, e.IsMeta)
				}
			}},
		{"synthetic api error", `{"type":"assistant","isApiErrorMessage":true,"error":"invalid_request","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error"}]}}`,
			func(t *testing.T, e *Entry) {
				if !e.Assistant.IsAPIErrorMessage || e.Assistant.Error != "invalid_request" || e.Message.Model != "<synthetic>" {
					t.Errorf("assistant %+v", e.Assistant)
				}
			}},
		{"system api_error and compaction", `{"type":"system","subtype":"api_error","level":"error","error":{"status":529},"retryInMs":500.5,"retryAttempt":1,"maxRetries":2,"content":"retrying","compactMetadata":{"trigger":"auto"},"parentUuid":null,"logicalParentUuid":"l1"}`,
			func(t *testing.T, e *Entry) {
				s := e.System
				if s.Subtype != "api_error" || s.Level != "error" || string(s.Error) != `{"status":529}` || s.RetryInMs != 500.5 ||
					s.RetryAttempt != 1 || s.MaxRetries != 2 || s.Content != "retrying" || string(s.CompactMetadata) != `{"trigger":"auto"}` ||
					e.LogicalParentUUID != "l1" {
					t.Errorf("system %+v", s)
				}
			}},
		{"attachment", `{"type":"attachment","attachment":{"type":"hook_success","hookName":"PreToolUse:Bash"}}`,
			func(t *testing.T, e *Entry) {
				if e.Attachment.Type != "hook_success" || !bytes.Contains(e.Attachment.Raw, []byte("PreToolUse")) {
					t.Errorf("attachment %+v", e.Attachment)
				}
			}},
		{"other types are plain entries", `{"type":"last-prompt","lastPrompt":"x","leafUuid":"u","sessionId":"s","message":7}`,
			func(t *testing.T, e *Entry) {
				if e.Message != nil || e.User != nil || e.TypeMismatches != nil || e.SessionID != "s" {
					t.Errorf("entry %+v", e)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Decode([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if len(e.TypeMismatches) > 0 && tt.name != "other types are plain entries" {
				t.Errorf("mismatches %v", e.TypeMismatches)
			}
			tt.check(t, e)
		})
	}
}

func TestDecodeTypeMismatches(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`{"type":"user","message":{"content":42}}`, []string{"message.content"}},
		{`{"type":"user","uuid":1,"isSidechain":"no","timestamp":5,"message":"x"}`, []string{"isSidechain", "message", "timestamp", "uuid"}},
		{`{"type":"assistant","message":{"content":[{"type":"text","text":7},{"type":"tool_use","name":[]}],"usage":{"input_tokens":"many","output_tokens":1.5}}}`,
			[]string{"message.content[0].text", "message.content[1].name", "message.usage.input_tokens", "message.usage.output_tokens"}},
		{`{"type":"assistant","message":{"content":[5,{"type":"text","text":"ok"}]}}`, []string{"message.content[0]"}},
		{`{"type":"user","message":{"content":[{"type":"tool_result","content":{"x":1}}]}}`, []string{"message.content[0].content"}},
		{`{"type":"system","subtype":["x"],"content":{"a":1}}`, []string{"content", "subtype"}},
		{`{"type":"attachment","attachment":"s"}`, []string{"attachment"}},
		{`{"type":"user","origin":{"kind":3}}`, []string{"origin.kind"}},
		{`{"type":"assistant","error":{"x":1}}`, []string{"error"}},
		{`{"type":"cost-state","totalCostUSD":"free","message":5,"uuid":7}`, []string{"uuid"}},
		{`{"type":7}`, []string{"type"}},
	}
	for _, tt := range tests {
		e, err := Decode([]byte(tt.line))
		if err != nil {
			t.Errorf("Decode(%s): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(e.TypeMismatches, tt.want) {
			t.Errorf("Decode(%s).TypeMismatches = %q, want %q", tt.line, e.TypeMismatches, tt.want)
		}
	}
	// A mismatched field reads as empty, the rest is kept.
	e, _ := Decode([]byte(`{"type":"assistant","uuid":"u","message":{"id":"m","content":[{"type":"text","text":7},{"type":"text","text":"ok"}]}}`))
	if e.UUID != "u" || e.Message.ID != "m" || e.Message.Content[0].Text != "" || e.Message.Content[1].Text != "ok" {
		t.Errorf("tolerant decode lost data: %+v %+v", e, e.Message)
	}
}

func TestDecodeNotObject(t *testing.T) {
	for _, in := range []string{``, `null`, `[1]`, `"s"`, `{"a":`, `{"a":1`} {
		if e, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = %+v, want an error", in, e)
		}
	}
}

// FuzzDecode: any input either fails cleanly or decodes, Raw is the input,
// and every mismatch path is non-empty.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","message":{"content":"hi"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","input":{}}],"usage":{"input_tokens":1}}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"image","source":{"media_type":"x"}}]}]}}`,
		`{"type":"system","subtype":1,"error":"e","content":[]}`, `{"type":"attachment","attachment":{"type":2}}`,
		`{"type":"user","uuid":[],"message":{"content":[1,{"type":5}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		if err != nil {
			return
		}
		if !bytes.Equal(e.Raw, b) {
			t.Fatalf("Raw %q != input %q", e.Raw, b)
		}
		for _, p := range e.TypeMismatches {
			if p == "" {
				t.Fatalf("empty mismatch path for %q", b)
			}
		}
	})
}

// decodeWhole is Decode without the dropping of unmodelled members.
func decodeWhole(t *testing.T, b []byte) (*Entry, error) {
	t.Helper()
	if !json.Valid(b) {
		return nil, errors.New("invalid")
	}
	return decode(b, b)
}

// Dropping the members Decode does not model changes nothing, whatever
// the keys' case, escapes or repetitions.
func TestDecodeModelledOnly(t *testing.T) {
	for _, in := range []string{
		`{"type":"user","toolUseResult":{"x":[1,2]},"shape":{"a":"b"},"message":{"content":"hi"},"rendered":"` + strings.Repeat("r", 100) + `"}`,
		`{"TYPE":"assistant","Message":{"content":[{"type":"text","text":"a"}]},"UUID":"u"}`,
		`{"\u0074ype":"system","content":"c","type":"user"}`,
		`{"type":"user","type":"assistant","uuid":1,"uuid":"u2"}`,
		`{"ſessionId":"s","type":"attachment","attachment":{"type":"x","type":"y"}}`,
		`{"type":"attachment","attachment":{"\u0074ype":"z","pad":[{}]}}`,
		`{"type":"attachment","attachment":[1]}`, `{"type":"user","origin":{"kind":7}}`,
		`{"isVisibleInTranscriptOnly":true,"type":"user","unknownButLongerThanAnyFieldNameWeModel":1}`,
		` { "type" : "user" , "message" : { "content" : [ ] } } `, `{}`,
	} {
		got, err := Decode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want, err := decodeWhole(t, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", in, got, want)
		}
	}
}

// FuzzDecodeModelled checks Decode against decoding the whole line.
func FuzzDecodeModelled(f *testing.F) {
	f.Add([]byte(`{"type":"user","toolUseResult":{"x":1},"Message":{"content":"hi"}}`))
	f.Add([]byte(`{"type":"attachment","attachment":{"type":"a","\u0074ype":"b"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Decode(b)
		want, werr := decodeWhole(t, b)
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		if werr != nil || len(trimmed) == 0 || trimmed[0] != '{' {
			if err == nil {
				t.Fatalf("Decode accepted %q", b)
			}
			return
		}
		if err != nil {
			t.Fatalf("Decode(%q): %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", b, got, want)
		}
	})
}

// FuzzKind checks decoder.kind against reading the object into a map.
func FuzzKind(f *testing.F) {
	for _, s := range []string{`{"type":"a"}`, `{"type":1}`, `[1]`, `"s"`, `{"\u0074ype":"b","type":"c"}`, `{"TYPE":"x"}`, ` {"type" : "y"} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || isNull(raw) {
			return
		}
		var d decoder
		got := d.kind(raw, nil, "p", "type")
		var want string
		wantMism := false
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			wantMism = true
		} else if v := obj["type"]; len(v) > 0 && !isNull(v) {
			wantMism = json.Unmarshal(v, &want) != nil
		}
		if got != want || (len(d.mism) > 0) != wantMism {
			t.Fatalf("kind(%s) = %q %v, want %q %v", raw, got, d.mism, want, wantMism)
		}
	})
}
